"""Keyset pagination cursors: opaque to clients, the position after the last row of a page (a game by its creation, a
competition by its start), each a time and an id."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from uuid import UUID

from ...game.records import GameRecord
from ..errors import InvalidCursor


def encode_cursor(record: GameRecord) -> str:
    return encode_position(record.created_at, record.id)


def decode_cursor(cursor: str) -> tuple[datetime, UUID]:
    return decode_position(cursor)


def encode_position(at: datetime, row_id: UUID) -> str:
    return base64.urlsafe_b64encode(f"{at.isoformat()}|{row_id}".encode()).decode().rstrip("=")


def decode_position(cursor: str) -> tuple[datetime, UUID]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        at, row_id = text.split("|")
        when = datetime.fromisoformat(at)
        if when.tzinfo is None:
            raise ValueError("a cursor's time has its offset")
        return when, UUID(row_id)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidCursor('cursor is not one this server issued: follow the Link rel="next" header') from None
