"""Where the use cases take the time, fresh seeds, tokens and ids from: the world's by default, given by tests."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import UUID, uuid4


def utc_now() -> datetime:
    return datetime.now(UTC)


def new_server_seed() -> bytes:
    return secrets.token_bytes(32)


def new_game_token() -> str:
    return secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class Sources:
    clock: Callable[[], datetime] = utc_now
    new_server_seed: Callable[[], bytes] = new_server_seed
    new_game_token: Callable[[], str] = new_game_token
    """A game's own player token, shown once at its creation."""
    new_id: Callable[[], UUID] = uuid4
