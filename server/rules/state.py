"""The state of a game: an immutable value; every action makes a new one."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .cards import Card, Rank
from .variants import Rules


class Status(StrEnum):
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"
    RESIGNED = "resigned"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended, and why in words."""

    status: Status
    reason: str


@dataclass(frozen=True, slots=True)
class GameState:
    """A position. Tuples throughout, so that the value is immutable all the way down.

    - `reserves`: one tuple per pile, bottom to top. Which cards are face down follows from the rules
      and the pile's size (only the top card of a pile ever leaves, and an exposed card turns up at
      once), so it is not stored.
    - `foundations`: F1..F4, each in the order its cards were played; F1[0] is the base card.
    - `stock`: the next card to be dealt first. `waste`: bottom to top.
    - `live_waste`: how many cards of the latest deal are still on the waste (the playable ones under
      the `group` waste access).
    - `played_this_pass`: whether a card went to a foundation or the cell since the pass began.
    """

    rules: Rules
    reserves: tuple[tuple[Card, ...], ...]
    foundations: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    waste: tuple[Card, ...] = ()
    live_waste: int = 0
    cell: Card | None = None
    pass_number: int = 1
    played_this_pass: bool = False
    outcome: Outcome | None = None

    @property
    def status(self) -> Status:
        return Status.PLAYING if self.outcome is None else self.outcome.status

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def base_rank(self) -> Rank:
        return self.foundations[0][0].rank

    @property
    def passes_left(self) -> int | None:
        """Further passes (redeals) still allowed; None when unlimited."""
        if self.rules.max_passes is None:
            return None
        return self.rules.max_passes - self.pass_number

    def face_down(self, pile: int) -> int:
        """How many cards of reserve pile `pile` (0-based) are face down."""
        size = len(self.reserves[pile])
        return min(self.rules.reserve_face_down, size - 1) if size else 0

    @property
    def cards_on_foundations(self) -> int:
        return sum(len(foundation) for foundation in self.foundations)
