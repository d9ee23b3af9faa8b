"""Keyset pagination cursors: opaque to clients, the position after the last game of a page."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from uuid import UUID

from ...game.records import GameRecord
from ..errors import InvalidCursor


def encode_cursor(record: GameRecord) -> str:
    return base64.urlsafe_b64encode(f"{record.created_at.isoformat()}|{record.id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, UUID]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        created_at, game_id = text.split("|")
        return datetime.fromisoformat(created_at), UUID(game_id)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidCursor('cursor is not one this server issued: follow the Link rel="next" header') from None
