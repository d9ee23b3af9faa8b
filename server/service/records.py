"""The records the use cases hand to the store and get back from it: a game's public row and its secret,
a sealed deal, a kept reply, one action's write, a game under its lock, what time travel reads; a player,
their API tokens, and who calls with one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from uuid import UUID

from ..log.events import Event


@dataclass(frozen=True, slots=True)
class Owner:
    """The player a game belongs to, as its document names them."""

    id: UUID
    name: str
    kind: str

    def named(self) -> dict[str, str]:
        """The player as a game's body, its log and its public-log entry name them."""
        return {"name": self.name, "kind": self.kind}


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
    owner: Owner | None = None
    """The player who created the game with their API token; None for a game made with no player's token."""
    daily: date | None = None
    """The UTC day of a daily game: private to its player until the day closes (service/daily.py)."""


@dataclass(frozen=True, slots=True)
class GameSecret:
    """What must not leave the server before the game is over: the seeds and the full position."""

    server_seed: bytes
    client_seed: str
    state_text: str
    token_hash: str


@dataclass(frozen=True, slots=True)
class Audience:
    """Who reads games: a daily game of a day before `closed_before` is anyone's to read, a later one only its
    player's (`viewer`, the player calling; None for anyone else)."""

    closed_before: date
    viewer: UUID | None


@dataclass(frozen=True, slots=True)
class GameKeys:
    """What opens a game to actions: its own player token (as a hash), and its owner's API tokens."""

    token_hash: str
    owner_id: UUID | None
    daily: date | None = None
    """A daily game's day: before it closes, a key that does not open the game is told it does not exist."""


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
class PublicEntry:
    """An entry for the public transparency log (log/public_entries.py), about one game or sealed deal."""

    subject: UUID
    kind: str
    entry: bytes


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
class PlayerResult:
    """A player's finished game under a preset, as its log shows it: what the statistics and boards count."""

    game_id: UUID
    player_id: UUID
    kind: str
    """The player's: humans and bots are ranked apart."""
    variant: str
    daily: date | None
    won: bool
    score: int
    hints: int
    actions: int
    """Moves, deals and redeals (not hints, not a resignation)."""
    started_at: datetime
    ended_at: datetime
    verified: bool | None = None
    """Whether the game's verification is VALID (None: not verified yet). Only a valid game counts."""
    public_deal: bool = False
    """A public deal number's: anyone could look its solution up, so it counts on the player's page, not on the
    all-time boards."""
    abandoned: bool = False
    """Ended by the upkeep, left without an action for ABANDONED_AFTER: a loss."""


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's sums under one preset, and the days of their daily games of it."""

    variant: str
    games: int
    wins: int
    best_actions: int | None
    best_game: UUID | None
    """The won game of fewest actions with no hint (the first by id of those)."""
    daily_days: tuple[date, ...] = ()
    ranked_games: int = 0
    """The games and wins the all-time boards count: of deals nobody could look up (not public deal numbers)."""
    ranked_wins: int = 0
    abandoned: int = 0
    """Games left without an action for ABANDONED_AFTER, ended by the upkeep: counted as losses."""


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
class GameWrite:
    """What one action writes: the game's new row, the events to append, the new full position."""

    game: GameRecord
    events: Sequence[Event]
    state_text: str
    response: StoredResponse | None
    snapshot: bool = False
    """Keep `state_text` as the snapshot at the new version, for time travel."""
    result: PlayerResult | None = None
    """A player's game under a preset revealed by this write: its result, recorded in the same write with the
    player's statistics (service/players/stats.py)."""
    public_entries: tuple[PublicEntry, ...] = ()
    """The entries this write adds to the public log, in order, recorded as pending in the same write: a game's
    end; a daily game's creation and end, when its day closes."""


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


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    id: UUID
    name: str
    """As chosen, in NFKC (players/names.py); a name is never changed, so games and boards may show it."""
    kind: str
    """`human` or `bot`: the boards keep them apart."""
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ApiTokenRecord:
    """One of a player's API tokens, as kept: its hash only (players/tokens.py)."""

    id: UUID
    player_id: UUID
    token_hash: str
    scopes: tuple[str, ...]
    label: str
    created_at: datetime
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Caller:
    """A request made with a player's live API token: the player, and the token (its scopes)."""

    player: PlayerRecord
    token: ApiTokenRecord

    @property
    def owner(self) -> Owner:
        return Owner(self.player.id, self.player.name, self.player.kind)


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
