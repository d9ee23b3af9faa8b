"""What the writing use cases give back: their outcome, and how the client was answered.

A write with an Idempotency-Key keeps its reply in the same statement as the write, so that a retry gets it byte
for byte. A game's reply is the game's own (game/change.py); the use cases of sealed deals and players know no HTTP
either: the caller passes a way to answer their outcome (`answer`: the HTTP layer renders its status and body).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..game.change import Reply
from .records import SealedDeal

OutcomeT = TypeVar("OutcomeT")

Answer = Callable[[OutcomeT], Reply]
"""The caller's way of answering an outcome (the HTTP layer's renderer)."""


@dataclass(frozen=True, slots=True)
class SealedDealMade:
    deal: SealedDeal


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
