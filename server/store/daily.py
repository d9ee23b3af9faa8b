"""The daily deals on PostgreSQL (the DailyDeals port). PostgresStore has these methods."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import date
from typing import Any, Protocol
from uuid import UUID

import psycopg
from psycopg.rows import tuple_row

from ..game.records import PublicEntry
from ..service.records import DailyDeal
from . import player_sql
from .rows import first_column


class _Connections(Protocol):
    def _connection(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...

    def _committed(self, logged_entries: bool) -> None: ...


class DailyTables:
    def open_daily_deal(self: _Connections, deal: DailyDeal, entry: PublicEntry) -> DailyDeal:
        parameters = {
            "day": deal.day,
            "variant": deal.variant,
            "id": deal.id,
            "server_seed": deal.server_seed,
            "commitment": deal.commitment,
            "opened_at": deal.opened_at,
            "log_kind": entry.kind,
            "log_entry": entry.entry,
        }
        with self._connection() as conn:
            row = conn.execute(player_sql.OPEN_DAILY_DEAL, parameters).fetchone()
            if row is None:  # opened by another meanwhile: committed now, and visible to a new statement
                row = conn.execute(player_sql.SELECT_DAILY_DEAL, parameters).fetchone()
        assert row is not None, "a daily deal, once opened, stays"
        self._committed(row["id"] == deal.id)  # opened here, not by another process first
        return _daily_of(row)

    def load_daily_deals(self: _Connections, day: date) -> list[DailyDeal]:
        with self._connection() as conn:
            rows = conn.execute(player_sql.SELECT_DAILY_DEALS, {"day": day}).fetchall()
        return [_daily_of(row) for row in rows]

    def daily_games_of(self: _Connections, player_id: UUID, day: date) -> dict[str, UUID]:
        with self._connection() as conn:
            rows = (
                conn.cursor(row_factory=tuple_row)
                .execute(player_sql.SELECT_DAILY_GAMES_OF_PLAYER, {"player_id": player_id, "day": day})
                .fetchall()
            )
        return dict(rows)

    def unrevealed_daily_games(self: _Connections, closed_before: date, limit: int) -> list[UUID]:
        with self._connection() as conn:
            return first_column(
                conn, player_sql.SELECT_UNREVEALED_DAILY_GAMES, {"closed_before": closed_before, "limit": limit}
            )


def _daily_of(row: dict[str, Any]) -> DailyDeal:
    return DailyDeal(
        row["day"], row["variant"], row["id"], bytes(row["server_seed"]), row["commitment"], row["opened_at"]
    )
