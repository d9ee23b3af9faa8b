"""Who acts on a game: its player with the game's own token, or a player calling with one of their API tokens."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from .records import Owner


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
