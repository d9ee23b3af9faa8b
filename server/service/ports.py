"""What the service needs from storage: the records it reads and writes, and the store's interface.

`server/store/` implements it on PostgreSQL; this module holds no SQL.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, Protocol, TypeVar
from uuid import UUID

from ..log.events import Event


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A game's public row: everything a read returns, kept current in the same transaction as the log."""

    id: UUID
    created_at: datetime
    updated_at: datetime
    rules: dict[str, Any]
    variant: str | None
    deal: dict[str, Any]
    commitment: str
    version: int
    status: str
    score: int
    head_hash: str
    hints: int
    """How many hints the player asked for (hint_given events)."""
    document: str
    """The game as every response shows it, as JSON text: the fields above, the public view and the legal
    actions. Rendered once when the game changes; a read sends it as it is."""


@dataclass(frozen=True, slots=True)
class GameSecret:
    """What must not leave the server before the game is over: the seeds and the full position."""

    server_seed: bytes
    client_seed: str
    state_text: str
    token_hash: str


@dataclass(frozen=True, slots=True)
class SealedDeal:
    id: UUID
    created_at: datetime
    server_seed: bytes
    commitment: str
    game_id: UUID | None


@dataclass(frozen=True, slots=True)
class StoredResponse:
    """The first response to a request with an Idempotency-Key, returned again to every retry."""

    scope: str
    key_hash: str
    fingerprint: str
    status: int
    body: str
    """The body as sent, JSON text; a created game's without its player token, which is kept wrapped."""
    player_token_wrapped: str | None = None
    """A created game's player token, XORed with a pad drawn from the raw key, which only the client has."""


@dataclass(frozen=True, slots=True)
class GameWrite:
    """What one action writes: the game's new row, the events to append, the new full position."""

    game: GameRecord
    events: Sequence[Event]
    state_text: str
    response: StoredResponse | None
    snapshot: bool = False
    """Keep `state_text` as the snapshot at the new version, for time travel."""


@dataclass(frozen=True, slots=True)
class LockedGame:
    """A game read under its lock, for as long as a unit of work lasts: no other write of it lands meanwhile,
    so `write` lands (or raises VersionConflict if the game moved all the same)."""

    game: GameRecord
    secret: GameSecret
    write: Callable[[GameWrite], None]


@dataclass(frozen=True, slots=True)
class TimeTravel:
    """What it takes to rebuild the position after event `seq`: the seeds, the latest snapshot at or
    before it (if any), and the events from that snapshot's own (or from the first) to the end of the
    action `seq` belongs to (two events past `seq` at most)."""

    secret: GameSecret
    rules: dict[str, Any]
    deal: dict[str, Any]
    snapshot: tuple[int, str] | None
    events: list[Event]


FEED_POSITION_PATTERN = (r"^(0|[1-9][0-9]{0,19})\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
                         r"\.(0|[1-9][0-9]{0,9})$")
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


T = TypeVar("T")

requester: ContextVar[str] = ContextVar("osmosis_requester", default="")
"""Who the current request comes from (its client address): told by the HTTP layer, read by the solver's turns
(server/runtime/solver_time.py), so that the use cases need not know who asks."""


class SolverTime(Protocol):
    """Where the use cases run the solver (hints, winnable deals, analyses, verifications): in the client's fair
    turn, off the event loop (server/runtime/solver_time.py), or at once (`at_once`: the command line, tests)."""

    def __call__(self, work: Callable[[], T], once_for: str | None = None) -> T:
        """`work()`; `once_for` names the work of a request with an Idempotency-Key, whose retries wait for it
        (IdenticalRequestFinished) instead of working it out again."""
        ...


def at_once(work: Callable[[], T], once_for: str | None = None) -> T:
    """Solver time with no turns to take: the work runs now, in the caller's thread."""
    return work()


class Store(Protocol):
    def create_game(
        self,
        game: GameRecord,
        secret: GameSecret,
        events: Sequence[Event],
        response: StoredResponse | None,
        sealed_deal_id: UUID | None = None,
    ) -> None:
        """Raises SealedDealUsed if `sealed_deal_id` already made a game."""
        ...

    def create_sealed_deal(self, deal: SealedDeal, response: StoredResponse | None) -> None: ...

    def load_sealed_deal(self, deal_id: UUID) -> SealedDeal: ...

    def load_game(self, game_id: UUID) -> GameRecord: ...

    def load_document(self, game_id: UUID) -> tuple[int, str]:
        """The game's version and its document."""
        ...

    def load_for_action(self, game_id: UUID) -> tuple[GameRecord, GameSecret]: ...

    def write(self, write: GameWrite, expected_version: int) -> bool:
        """Write a game's change in one go if the game is still at `expected_version`; whether it was."""
        ...

    def locked_game(self, game_id: UUID) -> AbstractContextManager[LockedGame]:
        """The game read under its lock, to decide on and write while nothing else writes it."""
        ...

    def load_time_travel(self, game_id: UUID, seq: int) -> TimeTravel:
        """Raises GameNotFound; `events` does not hold `seq` when the game has no such event."""
        ...

    def load_snapshots(self, game_id: UUID) -> dict[int, str]:
        """The full positions kept for time travel, by seq."""
        ...

    def list_games(self, limit: int, before: tuple[datetime, UUID] | None, status: str | None = None,
                   variant: str | None = None) -> list[GameRecord]:
        """Newest first, created before `before` (created_at, id) and of this status and variant if given."""

    def load_events(self, game_id: UUID, after: int, limit: int | None, upto: int | None = None) -> list[Event]:
        """Events with after < seq (<= upto), oldest first, at most `limit`."""
        ...

    def read_versions(self, game_ids: Collection[str]) -> dict[str, int]:
        """The version of each of these games that exists."""
        ...

    def read_feed(self, after: FeedPosition, limit: int) -> tuple[list[FeedEntry], bool]:
        """The feed's events after `after`, in order, at most `limit`; and whether committed events wait
        beyond what it can show yet (a transaction begun before theirs is still running)."""
        ...

    def feed_head(self) -> FeedStart:
        """The feed as it stands now: see FeedStart."""
        ...

    def publish_changes(self, payloads: Sequence[str]) -> None:
        """Tell every process that listens for changes."""
        ...

    def listen_for_changes(self, on_change: Callable[[str], None], on_listening: Callable[[], None],
                           stopped: threading.Event) -> None:
        """Pass every change published by any process to `on_change` until `stopped`; `on_listening` each
        time it has (re)started listening."""
        ...

    def find_response(self, scope: str, key_hash: str) -> StoredResponse | None: ...

    def load_analysis(self, game_id: UUID, solver: str, budget: int) -> str | None:
        """The analysis stored for the game by this solver and budget, as JSON text."""
        ...

    def save_analysis(self, game_id: UUID, solver: str, budget: int, analysis: str) -> None:
        """Keep the analysis of the (finished) game, unless one is kept already."""
        ...

    def find_token_and_response(self, game_id: UUID, scope: str,
                                key_hash: str) -> tuple[str, StoredResponse | None]:
        """The game's token hash and the response stored for the key, if any; raises GameNotFound."""
        ...

    def readiness(self) -> str | None:
        """None when ready; otherwise why not."""
        ...
