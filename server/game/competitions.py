"""A competition: one sealed deal every entrant plays on their own clock, as an organizer scheduled it. Its rules as
pure functions: the terms an organizer may set (`scheduled`), its status at a moment, who may enter and when, each
entrant's clock, and what an entrant's game's end records. The ranking is the public format's (log/standings.py).
Pure: times are given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from ..log.competition_entries import ELIGIBILITY, RANKING
from ..rules import Rules
from .contests import EntrantClock
from .errors import GameRefused
from .records import Owner

FORMATS = ("race", "window")
"""`race`: one start for all, at `starts_at`; `window`: each entrant starts once, when they like, before the close."""
ENTRANTS = ("human", "bot")
HINTS = ("off", "counted")
STATUSES = ("open", "running", "closed", "final")
LIMIT_S = (5, 86_400)
"""An entrant's clock, in seconds: at least, at most."""
MAX_ENTRANTS = 10_000
DEFAULT_MAX_ENTRANTS = 1_000
LEAD = timedelta(seconds=2)
"""How far ahead of its announcement a competition starts at least: time for the announcement to be logged."""
FURTHEST_START = timedelta(days=366)
LONGEST_WINDOW = timedelta(days=31)
MAX_REVIEW_S = 30 * 86_400


class CompetitionRefused(GameRefused):
    """A request a competition's rules refuse; the class names the problem (docs/api.md)."""


class EntriesClosed(CompetitionRefused):
    """After a race's start, or a window's last moment a whole clock fits."""


class NotEligible(CompetitionRefused):
    """A player of the other kind, or one who joined after the competition was announced."""


class CompetitionFull(CompetitionRefused):
    """Its field has its max_entrants."""


class StartClosed(CompetitionRefused):
    """A window entrant who asks for their game too late for a whole clock before the close."""


class NotStarted(CompetitionRefused):
    """A game asked for before the start: `retry_after`, the seconds to the start."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class BadSchedule(ValueError):
    """Terms an organizer may not set: a schedule in the past or out of order, a limit out of range."""


@dataclass(frozen=True, slots=True)
class Terms:
    """Everything a competition is held to, as announced."""

    name: str
    format: str
    rules: Rules
    entrants: str
    starts_at: datetime
    ends_at: datetime
    limit_ms: int
    winnable: bool = False
    max_entrants: int = DEFAULT_MAX_ENTRANTS
    hints: str = "off"
    review_s: int = 0

    @property
    def last_start(self) -> datetime:
        """The last moment an entrant may enter (and, in a window, start): a race's start, a window's last moment
        a full clock fits before the close."""
        if self.format == "race":
            return self.starts_at
        return self.ends_at - timedelta(milliseconds=self.limit_ms)

    def announced(self, organizer: dict[str, str], commitment: str) -> dict[str, Any]:
        """The terms as the announcement in the public log states them (competition_entries.announced)."""
        return {
            "name": self.name,
            "organizer": organizer,
            "format": self.format,
            "variant": self.rules.preset_name,
            "rules": self.rules.to_dict(),
            "entrants": self.entrants,
            "eligibility": ELIGIBILITY,
            "starts_at": self.starts_at.isoformat(),
            "ends_at": self.ends_at.isoformat(),
            "limit_ms": self.limit_ms,
            "hints": self.hints,
            "winnable": self.winnable,
            "max_entrants": self.max_entrants,
            "review_s": self.review_s,
            "ranking": RANKING,
            "commitment": commitment,
        }


def restored_terms(rules: Mapping[str, Any], **terms: Any) -> Terms:
    """Terms as they were announced and kept, their rules from their stored parameters."""
    return Terms(rules=Rules.from_mapping(rules), **terms)


def scheduled(
    *,
    name: str,
    format_name: str,
    rules: Rules,
    entrants: str,
    starts_at: datetime,
    ends_at: datetime | None,
    limit_s: int,
    now: datetime,
    winnable: bool = False,
    max_entrants: int = DEFAULT_MAX_ENTRANTS,
    hints: str = "off",
    review_s: int = 0,
) -> Terms:
    """The terms of a competition announced at `now`; BadSchedule, naming the field, if they cannot be held."""
    if format_name not in FORMATS:
        raise BadSchedule(f"format: one of {', '.join(FORMATS)}")
    if entrants not in ENTRANTS:
        raise BadSchedule(f"entrants: one of {', '.join(ENTRANTS)}")
    if hints not in HINTS:
        raise BadSchedule(f"hints: one of {', '.join(HINTS)}")
    if not LIMIT_S[0] <= limit_s <= LIMIT_S[1]:
        raise BadSchedule(f"limit_s: an entrant's clock runs {LIMIT_S[0]:,} to {LIMIT_S[1]:,} seconds")
    if not 1 <= max_entrants <= MAX_ENTRANTS:
        raise BadSchedule(f"max_entrants: 1 to {MAX_ENTRANTS:,}")
    if not 0 <= review_s <= MAX_REVIEW_S:
        raise BadSchedule(f"review_s: 0 to {MAX_REVIEW_S:,} seconds")
    if starts_at.tzinfo is None:
        raise BadSchedule("starts_at: a time with its offset from UTC, as 2026-12-06T18:00:00Z")
    if starts_at < now + LEAD:
        raise BadSchedule(f"starts_at: at least {LEAD.seconds} s ahead; it is {now.isoformat()} now")
    if starts_at > now + FURTHEST_START:
        raise BadSchedule(f"starts_at: at most {FURTHEST_START.days} days ahead")
    limit = timedelta(seconds=limit_s)
    if format_name == "race":
        if ends_at is not None:
            raise BadSchedule("ends_at: a race ends when its clock does (starts_at + limit_s); leave ends_at out")
        ends_at = starts_at + limit
    elif ends_at is None or ends_at.tzinfo is None:
        raise BadSchedule("ends_at: a window's close, a time with its offset from UTC")
    elif ends_at < starts_at + limit:
        raise BadSchedule("ends_at: a window closes after its start, at least one whole clock (limit_s) later")
    elif ends_at - starts_at > LONGEST_WINDOW:
        raise BadSchedule(f"ends_at: a window stays open at most {LONGEST_WINDOW.days} days")
    return Terms(
        name, format_name, rules, entrants, starts_at, ends_at, limit_s * 1000, winnable, max_entrants, hints, review_s
    )


def status_at(terms: Terms, closed_at: datetime | None, now: datetime) -> str:
    """`open` before the start, `running` until its close is written, `closed` while its results may be amended
    (review_s after the close), `final` after."""
    if closed_at is not None:
        return "final" if now >= closed_at + timedelta(seconds=terms.review_s) else "closed"
    return "open" if now < terms.starts_at else "running"


def check_entry(terms: Terms, now: datetime, kind: str, joined_before: bool, entrants: int) -> None:
    """Raises the refusal of an entry by a player of `kind` at `now`, when `entrants` have entered already;
    `joined_before`: whether the player's player_joined entry comes before the competition's announcement in
    the public log (an account made to scout the deal does not play it)."""
    if now >= terms.last_start:
        raise EntriesClosed(f"entries closed at {terms.last_start.isoformat()}")
    if kind != terms.entrants:
        raise NotEligible(f"this competition is for {terms.entrants}s, and you are a {kind}")
    if not joined_before:
        raise NotEligible(
            "only players who joined before the competition was announced may enter: your player_joined entry "
            "comes after its announcement in the public log",
        )
    if entrants >= terms.max_entrants:
        raise CompetitionFull(f"the field is full: {terms.max_entrants:,} entrants")


def clock_for(terms: Terms, competition_id: UUID, now: datetime) -> EntrantClock:
    """An entrant's clock, for a game asked for at `now`: a race's starts at its start for everyone, fetched or
    not; a window's when the entrant asks. Raises the refusal of a start before the competition's or too late for
    a whole clock."""
    if now < terms.starts_at:
        wait = -(-(terms.starts_at - now) // timedelta(seconds=1))
        raise NotStarted(f"the competition starts at {terms.starts_at.isoformat()}", wait)
    if now >= terms.ends_at:
        raise StartClosed(f"the competition ended at {terms.ends_at.isoformat()}: no game starts after its end")
    if terms.format == "race":
        return EntrantClock(competition_id, terms.starts_at, terms.limit_ms, terms.ends_at, terms.hints != "off")
    if now > terms.last_start:
        raise StartClosed(
            f"the last start that leaves a whole clock before the close was {terms.last_start.isoformat()}"
        )
    return EntrantClock(competition_id, now, terms.limit_ms, terms.ends_at, terms.hints != "off")


@dataclass(frozen=True, slots=True)
class Finish:
    """An entrant's game as it ended: what its competition_game_finished entry states and the standings rank."""

    game_id: UUID
    status: str
    """won, lost, resigned or timed_out."""
    score: int
    actions: int
    elapsed_ms: int
    events: int
    head_hash: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": str(self.game_id),
            "status": self.status,
            "score": self.score,
            "actions": self.actions,
            "elapsed_ms": self.elapsed_ms,
            "events": self.events,
            "head_hash": self.head_hash,
        }


@dataclass(frozen=True, slots=True)
class CompetitionRecord:
    """A competition as announced, and where it stands: its field's size, and once closed, when and its root."""

    id: UUID
    organizer: Owner
    terms: Terms
    commitment: str
    deal: dict[str, Any]
    """What every entrant's game names as its deal: the competition, and its winnable candidate if it has one."""
    announced_at: datetime
    entrants: int = 0
    closed_at: datetime | None = None
    standings_root: str | None = None

    def status(self, now: datetime) -> str:
        return status_at(self.terms, self.closed_at, now)
