"""The records the use cases hand to the store and get back from it: a game's public row and its secret,
a sealed deal, a kept reply, a game under its lock, what time travel reads, the public log's; a player's
statistics and boards."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from uuid import UUID

from ..game.callers import ApiTokenRecord, PlayerRecord
from ..game.change import Change
from ..game.records import GameRecord, GameSecret, PublicEntry
from ..log.events import Event


@dataclass(frozen=True, slots=True)
class Audience:
    """Who reads games at `now`: a contest game (game/contests.py) whose contest has closed by then is anyone's to
    read, one still open only its player's (`viewer`, the player calling; None for anyone else)."""

    now: datetime
    viewer: UUID | None


@dataclass(frozen=True, slots=True)
class GamesPage:
    """A page of games, newest first: at most `limit`, created before `before` (created_at, id), of this status,
    variant and player if given, acted on (an action, a hint, an undo) since `acted_since` if given; only those
    `audience` may read, if given."""

    limit: int
    before: tuple[datetime, UUID] | None = None
    status: str | None = None
    variant: str | None = None
    audience: Audience | None = None
    player_id: UUID | None = None
    acted_since: datetime | None = None


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
class Joining:
    """What a sign-up writes: the player, the key their name is unique by, their first token, and their joining
    as an entry for the public log."""

    player: PlayerRecord
    name_key: str
    token: ApiTokenRecord
    entry: PublicEntry | None = None


@dataclass(frozen=True, slots=True)
class PendingEntry:
    """An entry recorded by its game's write and not yet in the tree: `id` orders the sequencing."""

    id: int
    entry: PublicEntry


@dataclass(frozen=True, slots=True)
class SignedCheckpoint:
    """A checkpoint the log signed: its size and root, the signed note, and the witnesses' cosignature lines."""

    size: int
    root: bytes
    note: str
    cosignatures: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Retirement:
    """A log retired: its key, its final checkpoint (signed by that key, naming its successor's), and the key of the
    log that goes on after it."""

    origin: str
    verifier_key: str
    final_checkpoint: str
    successor_origin: str
    successor_key: str
    retired_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class LogGrowth:
    """What one sequencing writes: the tiles and entry bundles as they become (by (level, index), and by
    index), the new leaves as (index, entry), and the checkpoint of the grown tree."""

    tiles: dict[tuple[int, int], bytes]
    bundles: dict[int, bytes]
    leaves: list[tuple[int, PublicEntry]]
    checkpoint: SignedCheckpoint


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's sums under one preset, and the days of their daily games of it."""

    variant: str
    games: int
    wins: int
    best_actions: int | None
    best_game: UUID | None
    """The won game of fewest actions with no hint and no undo (the first by id of those)."""
    daily_days: tuple[date, ...] = ()
    ranked_games: int = 0
    """The games and wins the all-time boards count: of deals nobody could look up (not public deal numbers)."""
    ranked_wins: int = 0
    abandoned: int = 0
    """Games left without an action for ABANDONED_AFTER, ended by the upkeep: counted as losses."""
    undone: int = 0
    """Games in which the player took an action back: counted among the games, never ranked."""


@dataclass(frozen=True, slots=True)
class DailyBoardRow:
    """A daily game on its day's board; `key` is its place in the board's order (every part ascending)."""

    game_id: UUID
    name: str
    kind: str
    won: bool
    score: int
    hints: int
    actions: int
    seconds: float
    """From its first action to its last."""

    @property
    def key(self) -> tuple[bool, int, int, int, int, UUID]:
        return not self.won, -self.score, self.hints, self.actions, round(self.seconds * 1_000_000), self.game_id


@dataclass(frozen=True, slots=True)
class AllTimeRow:
    player_id: UUID
    name: str
    kind: str
    games: int
    wins: int
    lower_bound: float

    @property
    def key(self) -> tuple[float, int, UUID]:
        return -self.lower_bound, -self.games, self.player_id


@dataclass(frozen=True, slots=True)
class LockedGame:
    """A game read under its lock, for as long as a unit of work lasts: no other write of it lands meanwhile,
    so `write` lands (or raises VersionConflict if the game moved all the same)."""

    game: GameRecord
    secret: GameSecret
    write: Callable[[Change, StoredResponse | None], None]
    """Writes the change, and the reply kept for its retries (if any)."""


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


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """A preset's deal of one UTC day: the same sealed seed for every player, revealed when the day closes."""

    day: date
    variant: str
    id: UUID
    """What the public log's entry names it by."""
    server_seed: bytes
    commitment: str
    opened_at: datetime
