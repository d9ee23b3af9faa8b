"""What the use cases need from outside: the store's ports, one per concern, and the solver's time.

`server/store/` implements every store port on PostgreSQL (PostgresStore); tests/memory_store.py implements
them in memory for the use cases' unit tests, and tests/store/ holds each port's contract, run against both.
A use case names the ports it uses; the composition root (server/runtime/composition.py) gives it the store that
holds them, and the use cases that only read games the read store (GameReads).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from datetime import date, datetime
from typing import Protocol, TypeVar
from uuid import UUID

from ..game.callers import ApiTokenRecord, Caller, PlayerRecord
from ..game.change import Change
from ..game.records import GameKeys, GameRecord, GameSecret, PlayerResult, PublicEntry
from ..log.events import Event
from .competitions.ports import CompetitionTables
from .feed import FeedEntry, FeedPosition, FeedStart
from .records import (
    AllTimeRow,
    DailyBoardRow,
    DailyDeal,
    GamesPage,
    Joining,
    LockedGame,
    LogGrowth,
    PendingEntry,
    PlayerStats,
    Retirement,
    SealedDeal,
    SignedCheckpoint,
    StoredResponse,
    TimeTravel,
)


class GameReads(Protocol):
    """What reads games and their log: the seam where a second database can serve reads
    (`create_app(read_store=...)`, docs/architecture.md).

    Reading your own writes: a use case that decides a write (acting, creating, closing a day) reads from the store
    it writes to, never from a read store, so that it decides on the latest version and its version-guarded write
    cannot be overtaken by a lagging copy. A read store serves the reads that only answer clients (a game, its
    events, pages of games, time travel, replays, verifications, analyses): it must show every write acknowledged to
    a client before that acknowledgment (on PostgreSQL, standbys that apply before the primary's commit returns:
    `synchronous_commit = remote_apply`), or hand to the primary what it cannot tell is whole (replicas.ReplicaReads),
    or a client could read an older game than the one it was just answered."""

    def load_game(self, game_id: UUID) -> GameRecord:
        """Raises GameNotFound, as every read of one game does."""
        ...

    def load_document(self, game_id: UUID) -> tuple[int, str]:
        """The game's version and its document, as written."""
        ...

    def load_for_action(self, game_id: UUID) -> tuple[GameRecord, GameSecret]:
        """The game with what only the server holds of it (its seeds and position)."""
        ...

    def load_time_travel(self, game_id: UUID, seq: int) -> TimeTravel:
        """`events` does not hold `seq` when the game has no such event."""
        ...

    def load_snapshots(self, game_id: UUID) -> dict[int, str]:
        """The full positions kept for time travel, by seq."""
        ...

    def list_games(self, page: GamesPage) -> list[GameRecord]:
        """The games of `page`, newest first."""
        ...

    def load_audience(self, game_id: UUID) -> tuple[datetime | None, UUID | None]:
        """Until when the game is its player's alone (None: a game in no contest) and its player's id; raises
        GameNotFound."""
        ...

    def load_events(self, game_id: UUID, after: int, limit: int | None, upto: int | None = None) -> list[Event]:
        """Events with after < seq (<= upto), oldest first, at most `limit`."""
        ...


class GameWrites(Protocol):
    """What writes games and their log. A game is created, and each action written, whole or not at all; the reply
    to a request with an Idempotency-Key is kept in the same write (KeptResponses reads it)."""

    def create_game(self, change: Change, response: StoredResponse | None, sealed_deal_id: UUID | None = None) -> None:
        """Write the game `change` creates, its events and its public-log entries (pending). Raises SealedDealUsed
        if `sealed_deal_id` already made a game, IdempotencyConflict if the reply's key is kept already; either
        way nothing is written."""
        ...

    def write(self, change: Change, expected_version: int, kept: StoredResponse | None = None) -> bool:
        """Write a game's change in one go, with the reply `kept` for its retries, if the game is still at
        `expected_version`; whether it was."""
        ...

    def locked_game(self, game_id: UUID) -> AbstractContextManager[LockedGame]:
        """The game read under its lock, to decide on and write while no other write of it lands."""
        ...

    def latest_action(self, game_id: UUID, upto: int) -> Event | None:
        """The action an undo at version `upto` takes back (its own event: events.TAKEN_BACK), the latest not taken
        back by then; None when every action is. Walks back from `upto`, each undo on its way leading to the action
        before the one it took back, so that it reads as many events as it meets undos, not the whole log."""
        ...


class SealedDeals(Protocol):
    """Sealed deals: kept until one makes a game (GameWrites.create_game claims it), and shown meanwhile."""

    def create_sealed_deal(
        self, deal: SealedDeal, response: StoredResponse | None, public_entry: PublicEntry | None = None
    ) -> None:
        """Raises IdempotencyConflict if the reply's key is kept already; then nothing is written."""
        ...

    def load_sealed_deal(self, deal_id: UUID) -> SealedDeal:
        """Raises SealedDealNotFound."""
        ...


class KeptResponses(Protocol):
    """The first reply to a request with an Idempotency-Key, kept by the write it answered."""

    def find_response(self, scope: str, key_hash: str) -> StoredResponse | None: ...

    def find_token_and_response(
        self, game_id: UUID, scope: str, key_hash: str
    ) -> tuple[GameKeys, StoredResponse | None]:
        """What opens the game and the reply kept for the key, if any, read together (so that a retry's token
        is checked first, in the same time whether or not its key was used); raises GameNotFound."""
        ...

    def forget_responses(self, kept_before: datetime, limit: int) -> int:
        """Forget up to `limit` of the replies kept before `kept_before`; how many were forgotten."""
        ...


class KeptAnalyses(Protocol):
    """Finished games' analyses, one per solver and budget."""

    def load_analysis(self, game_id: UUID, solver: str, budget: int) -> str | None:
        """The analysis kept for the game by this solver and budget, as JSON text."""
        ...

    def save_analysis(self, game_id: UUID, solver: str, budget: int, analysis: str) -> None:
        """Keep the analysis of the (finished) game, unless one is kept already: the first stays."""
        ...


class Feed(Protocol):
    """Every game's events in one order, the same for every reader (service/feed.py), and where each game
    a reader follows stands."""

    def read_feed(self, after: FeedPosition, limit: int) -> tuple[list[FeedEntry], bool]:
        """The feed's events after `after`, in order, at most `limit`; and whether committed events wait
        beyond what it can show yet (a transaction begun before theirs is still running)."""
        ...

    def feed_head(self) -> FeedStart:
        """The feed as it stands now: see FeedStart."""
        ...

    def read_versions(self, game_ids: Collection[str]) -> dict[str, int]:
        """The version of each of these games that exists."""
        ...


class ChangeNotices(Protocol):
    """Notices of changes, from any process to every process that listens (the live hubs)."""

    def publish_changes(self, payloads: Sequence[str]) -> None: ...

    def listen_for_changes(
        self, on_change: Callable[[str], None], on_listening: Callable[[], None], stopped: threading.Event
    ) -> None:
        """Pass every change published by any process to `on_change` until `stopped`; `on_listening` each
        time it has (re)started listening."""
        ...


Integrate = Callable[[SignedCheckpoint | None, Sequence[PendingEntry], Mapping[int, bytes]], LogGrowth | None]
"""(the latest checkpoint, the entries to sequence, the partial tiles of its tree by level with -1 for its partial
entry bundle) -> what to write, or None to write nothing."""


class TileReads(Protocol):
    """The public log's tiles and entry bundles: what a read store may serve when it has them whole."""

    def read_tile(self, level: int, index: int) -> bytes:
        """The hashes the tile holds (all 256 once full, fewer while partial; none if it does not exist)."""
        ...

    def read_bundle(self, index: int) -> bytes:
        """The entry bundle as it stands (empty if it does not exist)."""
        ...


class PublicLogStore(TileReads, Protocol):
    """The public transparency log: its pending entries, leaves, tiles and bundles, and signed checkpoints."""

    def sequence(self, limit: int, spacing: float, integrate: Integrate) -> LogGrowth | None:
        """One sequencing, in one transaction under the log's one lock (held by one process at a time, across
        every instance): unless another process holds it, or the latest checkpoint is younger than `spacing`
        seconds, `integrate` what is pending (the first `limit` entries, in their order) and write what it
        returns, taking those entries off the pending list. Returns what was written, or None."""
        ...

    def has_pending_entries(self) -> bool:
        """Whether any entry waits to be integrated."""
        ...

    def claim_record_place(self, place: str, *, move: bool = False) -> str:
        """The place of the log's record of its checkpoints for the whole deployment: `place`, if none was claimed
        before (or `move`: the operator starts the record afresh there); else the one that was."""
        ...

    def published_checkpoint(self) -> SignedCheckpoint | None:
        """The largest checkpoint ever published, by any instance, with its cosignatures; None before the first."""
        ...

    def latest_checkpoint(self, *, confirmed: bool = True) -> SignedCheckpoint | None:
        """The newest checkpoint signed, published or not, with its cosignatures; None before the first. Confirmed
        on the synchronous standby first (ReplicationUnconfirmed when it cannot be), unless only looked at
        (`confirmed=False`: a status, never a checkpoint handed out)."""
        ...

    def publish_checkpoint(self, witnesses: Sequence[str]) -> None:
        """Publish the newest checkpoint cosigned by every one of `witnesses` (names as the cosignatures carry
        them), unless one as large is published already; while none is cosigned and none was ever published, the
        newest. What is published stays published: the published checkpoint never goes back, whatever witnesses
        each instance lists."""
        ...

    def cosigned_size(self, witness: str) -> int:
        """The largest checkpoint `witness` cosigned (0 if none)."""
        ...

    def add_cosignature(self, size: int, witness: str, line: str) -> None: ...

    def leaves_of(self, subjects: Collection[UUID]) -> list[tuple[int, str]]:
        """The (index, kind) of every leaf about these games or sealed deals, by index."""
        ...

    def log_retirements(self) -> list[Retirement]:
        """The logs retired in this database, oldest first (service/public_log/retirement.py)."""
        ...


class Players(Protocol):
    """Players and their API tokens. A player is created with a first token, whole or not at all."""

    def create_player(self, joining: Joining, response: StoredResponse | None) -> None:
        """Write the player, their first token and their entry (pending for the public log). Raises NameTaken if a
        player has the name key already, IdempotencyConflict if the reply's key is kept already; either way
        nothing is written."""
        ...

    def authenticate(self, token_hash: str, now: datetime) -> Caller | None:
        """The player and token of a live (unrevoked) token with this hash, None if there is none. Notes the
        token's use at `now` (at most once a minute, so that a busy token does not write on every request)."""
        ...

    def load_player(self, name_key: str) -> PlayerRecord:
        """Raises PlayerNotFound."""
        ...

    def list_tokens(self, player_id: UUID) -> list[ApiTokenRecord]:
        """The player's live tokens, oldest first."""
        ...

    def add_token(self, token: ApiTokenRecord, most: int, response: StoredResponse | None) -> None:
        """Raises TooManyTokens if the player has `most` live tokens already, IdempotencyConflict as
        create_player does."""
        ...

    def revoke_token(self, player_id: UUID, token_id: UUID, now: datetime) -> bool:
        """Whether the player had that live token (it is revoked now)."""
        ...


class DailyDeals(Protocol):
    """The deals of each day, one a preset, and the daily games made of them."""

    def open_daily_deal(self, deal: DailyDeal, entry: PublicEntry) -> DailyDeal:
        """The day's deal of the preset: `deal`, opened now with its public log entry, if none was opened yet;
        else the one opened first (and `entry` is not recorded)."""
        ...

    def load_daily_deals(self, day: date) -> list[DailyDeal]:
        """The deals opened for `day`, by variant."""
        ...

    def daily_games_of(self, player_id: UUID, day: date) -> dict[str, UUID]:
        """The player's daily games of `day`, by variant."""
        ...

    def unrevealed_daily_games(self, closed_before: date, limit: int) -> list[UUID]:
        """Daily games of the days before `closed_before` whose seeds are not revealed yet: what closing those days
        has still to do, oldest day first, then the games of the oldest accounts first."""
        ...


class BoardReads(Protocol):
    """The boards: what a read store may serve a moment behind (see ReadStore)."""

    def daily_board(
        self, day: date, variant: str, kind: str, after: tuple[bool, int, int, int, int, UUID] | None, limit: int
    ) -> list[DailyBoardRow]:
        """The day's results of a preset and kind in the board's order, after the row whose key is `after`."""
        ...

    def all_time_board(
        self, variant: str, kind: str, min_games: int, after: tuple[float, int, UUID] | None, limit: int
    ) -> list[AllTimeRow]:
        """Players of a kind with at least `min_games` ranked games of a preset (of deals nobody could look up), by
        the lower bound of their win rate's interval, after the row whose key is `after`."""
        ...

    def daily_board_rank(self, day: date, variant: str, kind: str, key: tuple[bool, int, int, int, int, UUID]) -> int:
        """How many rows of the day's board come up to the one whose key is `key`, that one included."""
        ...

    def all_time_board_rank(self, variant: str, kind: str, min_games: int, key: tuple[float, int, UUID]) -> int:
        """How many rows of the all-time board come up to the one whose key is `key`, that one included."""
        ...


class StatisticsReads(Protocol):
    """A player's sums: what a read store may serve a moment behind (see ReadStore)."""

    def load_player_stats(self, player_id: UUID) -> list[PlayerStats]:
        """The player's sums under each preset they have played."""
        ...


class Statistics(BoardReads, StatisticsReads, Protocol):
    """Players' statistics: a projection of their revealed games (the write revealing a game records its result,
    which counts once its game is verified)."""

    def left_games(self, idle_since: datetime, limit: int) -> list[UUID]:
        """Players' games in play, not daily ones, with no write since `idle_since`, the oldest first: the ones
        their players left (a result written `abandoned` is kept as such, whatever the rebuild makes again)."""
        ...

    def revealed_player_games(self, after: UUID, limit: int) -> list[UUID]:
        """Players' games under a preset whose seeds are revealed, by id after `after`: what the statistics count."""
        ...

    def unverified_results(self, limit: int) -> list[UUID]:
        """Games whose results were recorded and not verified yet."""
        ...

    def mark_verified(self, game_id: UUID, valid: bool) -> None:
        """The game's result verified: if `valid`, added to its player's sums (once, whoever marks it first)."""
        ...

    def replace_statistics(self, results: Sequence[PlayerResult]) -> None:
        """The projection made again from these results, in one transaction."""
        ...


class Readiness(Protocol):
    def readiness(self) -> str | None:
        """None when ready to serve; otherwise why not."""
        ...

    def standing(self) -> dict[str, str]:
        """What the store can do now, for /readyz: `writes` for the store written to, `reads` for a read store."""
        ...


class ReadStore(GameReads, TileReads, BoardReads, StatisticsReads, Readiness, Protocol):
    """What a second database serving reads alone implements (see GameReads for what it may serve); the boards and
    a player's sums it may serve a moment behind, as their pages say."""


class Store(
    CompetitionTables,
    GameReads,
    GameWrites,
    SealedDeals,
    KeptResponses,
    KeptAnalyses,
    Feed,
    ChangeNotices,
    PublicLogStore,
    Players,
    DailyDeals,
    Statistics,
    Readiness,
    Protocol,
):
    """Every port of the store, as one backend implements them."""


T = TypeVar("T")

requester: ContextVar[str | Callable[[], str]] = ContextVar("osmosis_requester", default="")
"""Who the current request comes from (the player of its API token, else its client address), or how to tell when
asked (the token is looked up only for a request that needs solver time): told by the HTTP layer, read by the
solver's turns through `requesting` (server/runtime/solver_time.py), so that the use cases need not know who asks."""


def requesting() -> str:
    """Whose turn the current request's solver work takes."""
    who = requester.get()
    return who() if callable(who) else who


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
