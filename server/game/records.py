"""A game's records: its public row, its secret, what opens it, and what its end gives the public log and its
player's statistics."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from uuid import UUID

from .contests import Contest, EntrantClock, contest_of


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
    undos: int = 0
    """How many actions the player took back (action_undone events)."""
    undoable: int = 0
    """How many actions an undo could still take back, one after another: those not taken back yet."""
    competition: EntrantClock | None = None
    """A competition entrant's game: the entrant's clock (game/contests.py)."""

    @property
    def contest(self) -> Contest | None:
        """The contest the game is played in: a daily deal's, a competition's, or none."""
        return contest_of(self.daily, self.competition)


@dataclass(frozen=True, slots=True)
class GameSecret:
    """What must not leave the server before the game is over: the seeds and the full position."""

    server_seed: bytes
    client_seed: str
    state_text: str
    token_hash: str


@dataclass(frozen=True, slots=True)
class GameKeys:
    """What opens a game to actions: its own player token (as a hash), and its owner's API tokens."""

    token_hash: str
    owner_id: UUID | None
    private_until: datetime | None = None
    """A contest game's close (game/contests.py): before it, a key that does not open the game is told it does not
    exist."""


@dataclass(frozen=True, slots=True)
class PublicEntry:
    """An entry for the public transparency log (log/public_entries.py), about one game or sealed deal."""

    subject: UUID
    kind: str
    entry: bytes


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
    """Moves, deals and redeals (not hints, not a resignation), those taken back too."""
    started_at: datetime
    ended_at: datetime
    verified: bool | None = None
    """Whether the game's verification is VALID (None: not verified yet). Only a valid game counts."""
    public_deal: bool = False
    """A public deal number's: anyone could look its solution up, so it counts on the player's page, not on the
    all-time boards."""
    abandoned: bool = False
    """Ended by the upkeep, left without an action for ABANDONED_AFTER: a loss."""
    undos: int = 0
    """Actions taken back: a game with any ranks on no board, and the player's statistics count it apart."""
