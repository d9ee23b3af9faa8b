"""A contest: one deal many play, each their own game of it. A daily deal is one (a day and a preset, its player's
only attempt); a competition's entrant's game is another (its organizer's schedule, the entrant's clock).

Every contest game is its player's alone until the contest closes (to anyone else it does not exist), takes no undo,
and reveals its seeds only at the close, since every other game of the contest is dealt from them. A competition game
also runs on a clock: every event it appends carries the time since the entrant's start (`elapsed_ms`), and once the
clock has run out it takes nothing more. Pure: the time is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from uuid import UUID

from .. import rules
from .errors import ClockExpired, DayClosed, HintsOff, UndoInCompetition


@dataclass(frozen=True, slots=True)
class EntrantClock:
    """A competition entrant's game: which competition, when the entrant's clock started and how long it runs, when
    the competition closes, and whether it gives (counted) hints."""

    competition_id: UUID
    started_at: datetime
    limit_ms: int
    closes_at: datetime
    hints: bool = False

    @property
    def deadline(self) -> datetime:
        return self.started_at + timedelta(milliseconds=self.limit_ms)

    def elapsed_ms(self, now: datetime) -> int:
        """The entrant's time at `now`, in whole milliseconds: never below 0, never above the limit."""
        return max(0, min(self.limit_ms, (now - self.started_at) // timedelta(milliseconds=1)))

    def ran_out(self, now: datetime) -> bool:
        return now >= self.deadline

    def to_dict(self) -> dict[str, Any]:
        """The clock as the game's document and its first event show it."""
        return {
            "id": str(self.competition_id),
            "started_at": self.started_at.isoformat(),
            "limit_ms": self.limit_ms,
            "deadline": self.deadline.isoformat(),
        }

    def stored(self) -> dict[str, Any]:
        """Everything the clock holds, as its game's row keeps it."""
        return {**self.to_dict(), "closes_at": self.closes_at.isoformat(), "hints": self.hints}

    @classmethod
    def from_stored(cls, data: dict[str, Any]) -> EntrantClock:
        return cls(
            UUID(data["id"]),
            datetime.fromisoformat(data["started_at"]),
            int(data["limit_ms"]),
            datetime.fromisoformat(data["closes_at"]),
            bool(data["hints"]),
        )


@dataclass(frozen=True, slots=True)
class Contest:
    """What a game's contest decides of it: when it closes, and a daily game's day or a competition game's clock."""

    closes_at: datetime
    day: date | None = None
    clock: EntrantClock | None = None


def day_of(moment: datetime) -> date:
    """The UTC day a moment falls in: a daily deal's."""
    return moment.astimezone(UTC).date()


def day_closes_at(day: date) -> datetime:
    """When a daily deal's day closes: the next midnight, UTC."""
    return datetime.combine(day + timedelta(days=1), time(), UTC)


def contest_of(daily: date | None, clock: EntrantClock | None) -> Contest | None:
    """The contest of a game with this daily day or this entrant's clock; None for a game of its own."""
    if clock is not None:
        return Contest(clock.closes_at, clock=clock)
    if daily is not None:
        return Contest(day_closes_at(daily), day=daily)
    return None


def private_until(contest: Contest | None) -> datetime | None:
    """Until when the game is its player's alone (None: anyone's from the start)."""
    return None if contest is None else contest.closes_at


def still_private(closes_at: datetime | None, now: datetime) -> bool:
    """Whether a game private until `closes_at` (None: never private) is still its player's alone."""
    return closes_at is not None and now < closes_at


def check_open(contest: Contest | None, now: datetime) -> None:
    """Raises the contest's refusal of any command of its player's at `now`: its day closed, or its clock ran out."""
    if contest is None:
        return
    if contest.clock is not None:
        if contest.clock.ran_out(now):
            raise ClockExpired(
                f"your clock ran out at {contest.clock.deadline.isoformat()}: a competition game takes nothing after"
            )
    elif now >= contest.closes_at:
        assert contest.day is not None
        raise DayClosed(f"the day of this daily game, {contest.day.isoformat()}, has closed: the game ended with it")


def check_undo(contest: Contest | None) -> None:
    """Raises the contest's refusal of an undo: no contest game takes an action back."""
    if contest is None:
        return
    if contest.clock is not None:
        raise UndoInCompetition("a competition game takes no undo: every entrant plays one line, as it stands")
    raise rules.IllegalAction("undo-in-daily", "a daily deal is a competition: its actions are not taken back")


def check_hint(contest: Contest | None) -> None:
    """Raises the contest's refusal of a hint: a competition gives them only if its organizer said so (counted)."""
    if contest is not None and contest.clock is not None and not contest.clock.hints:
        raise HintsOff("this competition gives no hints: its organizer set hints off")


def elapsed_stamped(data: dict[str, Any], clock: EntrantClock | None, elapsed_ms: int) -> dict[str, Any]:
    """An event's data as a game on `clock` logs it: with the entrant's time; a game on no clock's as it is."""
    return data if clock is None else {**data, "elapsed_ms": elapsed_ms}
