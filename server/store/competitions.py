"""The competitions on PostgreSQL (the CompetitionTables port). PostgresStore has these methods."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

import psycopg
from psycopg.rows import tuple_row

from ..game.change import Change
from ..game.competitions import CompetitionRecord, restored_terms
from ..game.records import Owner, PublicEntry
from ..service.competitions.records import Entrant, StandingsAt
from ..service.errors import AlreadyEntered, CompetitionNotFound
from ..service.records import StoredResponse
from . import competition_sql as csql
from . import sql
from .public_log import insert_pending
from .rows import creation_params, first_column, jsonb_text, keep_first, raise_translated


class _Connections(Protocol):
    def _connection(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...

    def _transaction(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...

    def _committed(self, logged_entries: bool) -> None: ...

    clocks_set: Callable[[], None]


class CompetitionTables:
    def announce_competition(
        self: _Connections,
        competition: CompetitionRecord,
        server_seed: bytes,
        entry: PublicEntry,
        response: StoredResponse | None,
    ) -> None:
        terms = competition.terms
        parameters = {
            "id": competition.id,
            "organizer_id": competition.organizer.id,
            "name": terms.name,
            "format": terms.format,
            "variant": terms.rules.preset_name,
            "rules": jsonb_text(terms.rules.to_dict()),
            "entrants": terms.entrants,
            "starts_at": terms.starts_at,
            "ends_at": terms.ends_at,
            "limit_ms": terms.limit_ms,
            "winnable": terms.winnable,
            "max_entrants": terms.max_entrants,
            "hints": terms.hints,
            "review_s": terms.review_s,
            "server_seed": server_seed,
            "commitment": competition.commitment,
            "deal": jsonb_text(competition.deal),
            "announced_at": competition.announced_at,
        }
        try:
            with self._transaction() as conn:
                keep_first(conn, response)
                conn.execute(csql.INSERT_COMPETITION, parameters)
                insert_pending(conn, entry)
        except psycopg.errors.UniqueViolation as error:
            raise_translated(error)
        self._committed(True)
        self.clocks_set()

    def open_competitions_of(self: _Connections, organizer_id: UUID) -> int:
        with self._connection() as conn:
            row = conn.execute(csql.COUNT_OPEN_OF_ORGANIZER, {"organizer_id": organizer_id}).fetchone()
        assert row is not None
        return int(row["count"])

    def load_competition(self: _Connections, competition_id: UUID) -> CompetitionRecord:
        with self._connection() as conn:
            row = conn.execute(csql.SELECT_COMPETITION, {"id": competition_id}).fetchone()
        if row is None:
            raise CompetitionNotFound(competition_id)
        return _competition_of(row)

    def load_competition_seed(self: _Connections, competition_id: UUID) -> bytes:
        with self._connection() as conn:
            row = conn.execute(csql.SELECT_SEED, {"id": competition_id}).fetchone()
        if row is None:
            raise CompetitionNotFound(competition_id)
        return bytes(row["server_seed"])

    def list_competitions(
        self: _Connections,
        limit: int,
        now: datetime,
        status: str | None = None,
        before: tuple[datetime, UUID] | None = None,
    ) -> list[CompetitionRecord]:
        parameters: dict[str, Any] = {"limit": limit, "now": now}
        if before is not None:
            parameters["starts_at"], parameters["id"] = before
        with self._connection() as conn:
            rows = conn.execute(csql.competitions_page(status, before is not None), parameters).fetchall()
        return [_competition_of(row) for row in rows]

    def joined_before(self: _Connections, player_id: UUID, competition_id: UUID) -> bool | None:
        with self._connection() as conn:
            row = conn.execute(
                csql.JOINED_BEFORE, {"player_id": player_id, "competition_id": competition_id}
            ).fetchone()
        assert row is not None
        return row["before"]  # type: ignore[no-any-return]

    def enter_competition(self: _Connections, entrant: Entrant, entry: PublicEntry) -> bool:
        """Whether the field had room; raises AlreadyEntered."""
        try:
            with self._transaction() as conn:
                parameters = {
                    "competition_id": entrant.competition_id,
                    "player_id": entrant.player_id,
                    "entered_at": entrant.entered_at,
                }
                if conn.execute(csql.ENTER, parameters).fetchone() is None:
                    return False
                insert_pending(conn, entry)
        except psycopg.errors.UniqueViolation as error:
            if error.diag.constraint_name == "competition_entries_pkey":
                raise AlreadyEntered("you have entered this competition already") from error
            raise
        self._committed(True)
        return True

    def withdraw_from_competition(
        self: _Connections, competition_id: UUID, player_id: UUID, entry: PublicEntry
    ) -> bool:
        """Whether the entrant was withdrawn: False when their game had started meanwhile."""
        with self._transaction() as conn:
            parameters = {"competition_id": competition_id, "player_id": player_id}
            if conn.execute(csql.WITHDRAW, parameters).fetchone() is None:
                return False
            insert_pending(conn, entry)
        self._committed(True)
        return True

    def load_entrant(self: _Connections, competition_id: UUID, player_id: UUID) -> Entrant | None:
        with self._connection() as conn:
            row = conn.execute(
                csql.SELECT_ENTRANT, {"competition_id": competition_id, "player_id": player_id}
            ).fetchone()
        return None if row is None else Entrant(**row)

    def create_competition_game(self: _Connections, change: Change, competition_id: UUID, player_id: UUID) -> bool:
        """Write the entrant's game and claim it for them; False (nothing written) when another was claimed first."""
        clock = change.game.competition
        assert clock is not None, "an entrant's game"
        params = {
            **creation_params(change),
            "competition_id": competition_id,
            "player_id": player_id,
            "started_at": clock.started_at,
            "deadline": clock.deadline,
        }
        try:
            # A start made concurrently waits on the entrant's row, then finds the game claimed: its own creation
            # is rolled back.
            with self._transaction() as conn:
                row = conn.execute(sql.create_game(bool(change.public_entries), "entrant"), params).fetchone()
                if row is None or row["claimed"] != 1:
                    raise _ClaimedFirst()
        except _ClaimedFirst:
            return False
        except psycopg.errors.UniqueViolation as error:
            raise_translated(error)
        self._committed(bool(change.public_entries))
        self.clocks_set()
        return True

    def load_standings(self: _Connections, competition_id: UUID) -> list[StandingsAt]:
        with self._connection() as conn:
            rows = conn.execute(csql.SELECT_STANDINGS, {"competition_id": competition_id}).fetchall()
        return [StandingsAt(**row) for row in rows]

    def games_running_out(self: _Connections, now: datetime, limit: int) -> list[UUID]:
        with self._connection() as conn:
            return first_column(conn, csql.SELECT_RUNNING_OUT, {"now": now, "limit": limit})

    def next_competition_due(self: _Connections) -> datetime | None:
        with self._connection() as conn:
            row = conn.cursor(row_factory=tuple_row).execute(csql.SELECT_NEXT_DUE).fetchone()
        return None if row is None else row[0]

    def competitions_due(self: _Connections, now: datetime, limit: int) -> list[UUID]:
        with self._connection() as conn:
            return first_column(conn, csql.SELECT_DUE, {"now": now, "limit": limit})

    def unrevealed_competition_games(self: _Connections, competition_id: UUID, limit: int) -> list[UUID]:
        with self._connection() as conn:
            return first_column(conn, csql.SELECT_UNREVEALED_GAMES, {"competition_id": competition_id, "limit": limit})

    def finishes_logged(self: _Connections, competition_id: UUID) -> bool:
        with self._connection() as conn:
            row = (
                conn.cursor(row_factory=tuple_row)
                .execute(csql.FINISHES_LOGGED, {"competition_id": competition_id})
                .fetchone()
            )
        return bool(row and row[0])

    def close_competition(
        self: _Connections, competition_id: UUID, closed_at: datetime, standings_root: str, entry: PublicEntry
    ) -> bool:
        """Close it with its root and its entry; False when another process closed it first, or when a game was made
        since the close looked (it is ended and revealed at the next turn, and the standings ranked again)."""
        with self._transaction() as conn:
            parameters = {"id": competition_id, "closed_at": closed_at, "standings_root": standings_root}
            if conn.execute(csql.LOCK_TO_CLOSE, parameters).fetchone() is None:
                return False
            if conn.cursor(row_factory=tuple_row).execute(csql.ANY_UNREVEALED, parameters).fetchone() != (False,):
                return False
            conn.execute(csql.CLOSE, parameters)
            insert_pending(conn, entry)
        self._committed(True)
        return True

    def amend_competition(
        self: _Connections,
        competition_id: UUID,
        player_id: UUID,
        struck: str | None,
        amended: Callable[[list[StandingsAt]], tuple[str, PublicEntry]],
    ) -> str:
        """Strike (or reinstate, `struck` None) the entrant, under the competition's row lock, then root the
        standings as `amended` ranks them and log its entry; the new root."""
        with self._transaction() as conn:
            conn.execute("SELECT FROM competitions WHERE id = %(id)s FOR UPDATE", {"id": competition_id})
            conn.execute(csql.STRIKE, {"competition_id": competition_id, "player_id": player_id, "struck": struck})
            rows = conn.execute(csql.SELECT_STANDINGS, {"competition_id": competition_id}).fetchall()
            root, entry = amended([StandingsAt(**row) for row in rows])
            conn.execute(csql.AMEND_ROOT, {"id": competition_id, "standings_root": root})
            insert_pending(conn, entry)
        self._committed(True)
        return root


class _ClaimedFirst(Exception):
    """Another start claimed the entrant's game first: this one's transaction is rolled back."""


def _competition_of(row: dict[str, Any]) -> CompetitionRecord:
    starts_at, ends_at = row["starts_at"], row["ends_at"]
    terms = restored_terms(
        row["rules"],
        name=row["name"],
        format=row["format"],
        entrants=row["entrants"],
        starts_at=starts_at,
        ends_at=ends_at,
        limit_ms=row["limit_ms"],
        winnable=row["winnable"],
        max_entrants=row["max_entrants"],
        hints=row["hints"],
        review_s=row["review_s"],
    )
    return CompetitionRecord(
        row["id"],
        Owner(row["organizer_id"], row["organizer_name"], row["organizer_kind"]),
        terms,
        row["commitment"],
        row["deal"],
        row["announced_at"],
        row["entrants_count"],
        row["closed_at"],
        row["standings_root"],
    )
