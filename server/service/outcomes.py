"""What the writing use cases give back: domain outcomes, and how the client was answered.

The use cases know no HTTP: the caller passes a way to answer an outcome (`answer`: the HTTP layer renders
its status and body), and a write with an Idempotency-Key keeps that reply in the same statement as the
write, so that a retry gets it byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..log.events import Event
from .records import GameRecord, SealedDeal

OutcomeT = TypeVar("OutcomeT")


@dataclass(frozen=True, slots=True)
class Reply:
    """How the client was answered: the status and body text, kept for a retry with the same Idempotency-Key.
    A created game's reply never holds its player token, which is kept apart, wrapped (idempotency.py)."""

    status: int
    text: str


Answer = Callable[[OutcomeT], Reply]
"""The caller's way of answering an outcome (the HTTP layer's renderer)."""


@dataclass(frozen=True, slots=True)
class SealedDealMade:
    deal: SealedDeal


@dataclass(frozen=True, slots=True)
class GameMade:
    game: GameRecord
    player_token: str
    """Shown this once: only its hash is kept."""


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """An action (or a hint) landed: the game after it and the events it appended."""

    game: GameRecord
    events: tuple[Event, ...]
    hint: dict[str, Any] | None = None
    """The hint given, for askForHint."""


@dataclass(frozen=True, slots=True)
class Answered(Generic[OutcomeT]):
    """A write's answer: its reply; its outcome, or None when this is a retry answered with the first
    request's reply; and a created game's player token, which the reply does not hold."""

    reply: Reply | None
    """None when the write was made without an answer (no Idempotency-Key, no HTTP: the command line, tests)."""
    outcome: OutcomeT | None
    player_token: str | None = None
    """The token the write made, which its reply does not hold: a created game's player token, a player's API
    token."""

    @property
    def is_retry(self) -> bool:
        return self.outcome is None
