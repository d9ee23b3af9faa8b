"""The feed of every game's events: where a reader stands in it, and what it reads."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

FEED_POSITION_PATTERN = (
    r"^(0|[1-9][0-9]{0,19})\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"\.(0|[1-9][0-9]{0,9})$"
)
"""How a feed position is written (FeedPosition.__str__): transaction id, game id and seq."""


class FeedPosition(NamedTuple):
    """A place in the feed of every game's events: after the event of `game_id` and `seq` written by the
    transaction `tx`. Positions compare in the feed's order; the first is before every event."""

    tx: int
    game_id: str
    seq: int

    def __str__(self) -> str:
        return f"{self.tx}.{self.game_id}.{self.seq}"

    @classmethod
    def parse(cls, text: str) -> FeedPosition:
        """The position `str` wrote; ValueError for text of another form. Numbers past any transaction id or
        seq stand for a place after every event."""
        if re.fullmatch(FEED_POSITION_PATTERN, text) is None:
            raise ValueError(text)
        tx, game_id, seq = text.split(".")
        return cls(min(int(tx), 2**64 - 1), game_id, min(int(seq), 2**31 - 1))


FEED_START = FeedPosition(0, "00000000-0000-0000-0000-000000000000", 0)


@dataclass(frozen=True, slots=True)
class FeedStart:
    """The feed as it stands at one moment: its last event below every transaction still running then
    (`position`), and what had committed by then, to tell the events beyond `position` that came before
    that moment from those that came after it."""

    position: FeedPosition
    xmax: int
    """Every transaction from this one on began after the moment."""
    running: frozenset[int]
    """The transactions still running at the moment."""

    def committed_before(self, tx: int) -> bool:
        return tx < self.xmax and tx not in self.running


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """An event of the feed: where it stands, its game and the game's variant, and the event as data."""

    position: FeedPosition
    variant: str | None
    event: dict[str, Any]
