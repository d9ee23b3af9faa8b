"""What the competitions' use cases ask of the store (store/competitions.py holds it on PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol
from uuid import UUID

from ...game.change import Change
from ...game.competitions import CompetitionRecord
from ...game.records import PublicEntry
from ..records import StoredResponse
from .records import Entrant, StandingsAt


class CompetitionTables(Protocol):
    def announce_competition(
        self, competition: CompetitionRecord, server_seed: bytes, entry: PublicEntry, response: StoredResponse | None
    ) -> None:
        """The competition and its announcement in the public log, in one transaction, after the reply kept for its
        retries; raises IdempotencyConflict when a retry with the same key was kept first."""
        ...

    def open_competitions_of(self, organizer_id: UUID) -> int:
        """How many of the organizer's competitions have not closed."""
        ...

    def load_competition(self, competition_id: UUID) -> CompetitionRecord:
        """Raises CompetitionNotFound."""
        ...

    def load_competition_seed(self, competition_id: UUID) -> bytes:
        """The competition's server seed: the deal of every entrant's game, revealed at the close."""
        ...

    def list_competitions(
        self, limit: int, now: datetime, status: str | None = None, before: tuple[datetime, UUID] | None = None
    ) -> list[CompetitionRecord]:
        """The latest start first: at most `limit`, of `status` at `now` if given, before (starts_at, id) if given."""
        ...

    def joined_before(self, player_id: UUID, competition_id: UUID) -> bool | None:
        """Whether the player's player_joined entry comes before the competition's announcement in the public
        log; None while the player's own entry is not in the log yet."""
        ...

    def enter_competition(self, entrant: Entrant, entry: PublicEntry) -> bool:
        """The entrant in the field and their entry in the public log; False (nothing written) when the field is
        full. Raises AlreadyEntered."""
        ...

    def withdraw_from_competition(self, competition_id: UUID, player_id: UUID, entry: PublicEntry) -> bool:
        """The entrant out of the field and their withdrawal logged; False (nothing written) once their game was
        made, or when they had not entered."""
        ...

    def load_entrant(self, competition_id: UUID, player_id: UUID) -> Entrant | None: ...

    def create_competition_game(self, change: Change, competition_id: UUID, player_id: UUID) -> bool:
        """The entrant's game, written and claimed for them in one transaction; False (nothing written) when
        another was claimed first."""
        ...

    def load_standings(self, competition_id: UUID) -> list[StandingsAt]: ...

    def games_running_out(self, now: datetime, limit: int) -> list[UUID]:
        """Entrants' games still on whose clock ran out by `now`, the earliest first."""
        ...

    def next_competition_due(self) -> datetime | None:
        """The next moment the referee has work: a clock running out, a competition closing."""
        ...

    def competitions_due(self, now: datetime, limit: int) -> list[UUID]:
        """Competitions not closed yet whose end has come by `now`."""
        ...

    def unrevealed_competition_games(self, competition_id: UUID, limit: int) -> list[UUID]: ...

    def finishes_logged(self, competition_id: UUID) -> bool:
        """Whether every finish entry of the competition's games is in the public log (the tie-breaks are known)."""
        ...

    def close_competition(
        self, competition_id: UUID, closed_at: datetime, standings_root: str, entry: PublicEntry
    ) -> bool:
        """Closed with its root and its entry; False when another process closed it first."""
        ...

    def amend_competition(
        self,
        competition_id: UUID,
        player_id: UUID,
        struck: str | None,
        amended: Callable[[list[StandingsAt]], tuple[str, PublicEntry]],
    ) -> str:
        """Strike (reinstate: `struck` None) the entrant and log the new root `amended` makes of the standings, in
        one transaction under the competition's lock; the new root."""
        ...
