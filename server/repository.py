"""What the service needs from storage: the records it reads and writes, and the store's interface.

`server/store/` implements it on PostgreSQL; this module holds no SQL.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

from .events import Event


class GameNotFound(LookupError):
    def __init__(self, game_id: UUID | str) -> None:
        super().__init__(f"no game with id {game_id}")


class VersionConflict(Exception):
    """Another action was appended first: the version this one was computed against is stale."""


class IdempotencyConflict(Exception):
    """Another request with the same Idempotency-Key was stored first."""


class SealedDealNotFound(LookupError):
    def __init__(self, deal_id: UUID | str) -> None:
        super().__init__(f"no sealed deal with id {deal_id}")


class SealedDealUsed(Exception):
    """A sealed deal makes one game only."""


class StoreUnavailable(Exception):
    """The database cannot be reached or did not answer in time."""


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
class Change:
    """What one action writes: the game's new row, the events to append, the new full position."""

    game: GameRecord
    events: Sequence[Event]
    state_text: str
    response: StoredResponse | None
    snapshot: bool = False
    """Keep `state_text` as the snapshot at the new version, for time travel."""


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

    def write_if_at(self, change: Change, expected_version: int) -> bool:
        """Write `change` atomically if its game is still at `expected_version`; whether it was."""
        ...

    def act(self, game_id: UUID, decide: Callable[[GameRecord, GameSecret], Change]) -> Change:
        """Run `decide` on the game and write the change it returns atomically, if the game is still at
        the version `decide` saw; if another action landed first, run `decide` again on the game as
        that action left it (so `decide` may run twice and must refuse a version stated in the request).

        Whatever `decide` raises propagates and nothing is written.
        """
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
