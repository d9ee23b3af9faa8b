"""Players' statistics on PostgreSQL (the Statistics port). PostgresStore has these methods; the write that
reveals a game records its result and sums (sql.write_change)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import date, datetime, timedelta
from typing import Any, LiteralString, Protocol, TypeVar
from uuid import UUID

import psycopg
from psycopg.rows import class_row

from ..game.records import PlayerResult
from ..service.records import AllTimeRow, DailyBoardRow, PlayerStats
from . import player_sql, sql
from .rows import first_column, record_params

Row = TypeVar("Row")


class _Connections(Protocol):
    def _connection(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...

    def _transaction(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...


class StatisticsTables:
    def left_games(self: _Connections, idle_since: datetime, limit: int) -> list[UUID]:
        with self._connection() as conn:
            return first_column(conn, sql.SELECT_LEFT_GAMES, {"idle_since": idle_since, "limit": limit})

    def load_player_stats(self: _Connections, player_id: UUID) -> list[PlayerStats]:
        with self._connection() as conn, conn.pipeline():
            sums = conn.execute(player_sql.SELECT_PLAYER_STATS, {"player_id": player_id})
            days = conn.execute(player_sql.SELECT_DAILY_DAYS, {"player_id": player_id})
            by_variant = {row["variant"]: list(row["days"]) for row in days.fetchall()}
            rows = sums.fetchall()
        return [
            PlayerStats(
                row["variant"],
                row["games"],
                row["wins"],
                row["best_actions"],
                row["best_game"],
                tuple(by_variant.get(row["variant"], ())),
                row["ranked_games"],
                row["ranked_wins"],
                row["abandoned"],
                row["undone"],
            )
            for row in rows
        ]

    def revealed_player_games(self: _Connections, after: UUID, limit: int) -> list[UUID]:
        with self._connection() as conn:
            return first_column(conn, player_sql.SELECT_REVEALED_PLAYER_GAMES, {"after": after, "limit": limit})

    def daily_board(
        self: _Connections,
        day: date,
        variant: str,
        kind: str,
        after: tuple[bool, int, int, int, int, UUID] | None,
        limit: int,
    ) -> list[DailyBoardRow]:
        key = _daily_key(after or (False, -53, 0, 0, -1, UUID(int=0)))
        parameters = {**key, "day": day, "variant": variant, "kind": kind, "limit": limit}
        return _rows(self, DailyBoardRow, player_sql.DAILY_BOARD, parameters)

    def all_time_board(
        self: _Connections, variant: str, kind: str, min_games: int, after: tuple[float, int, UUID] | None, limit: int
    ) -> list[AllTimeRow]:
        key = _all_time_key(after or (-2.0, 0, UUID(int=0)))
        parameters = {**key, "variant": variant, "kind": kind, "min_games": min_games, "limit": limit}
        return _rows(self, AllTimeRow, player_sql.ALL_TIME_BOARD, parameters)

    def daily_board_rank(
        self: _Connections, day: date, variant: str, kind: str, key: tuple[bool, int, int, int, int, UUID]
    ) -> int:
        parameters = {**_daily_key(key), "day": day, "variant": variant, "kind": kind}
        with self._connection() as conn:
            return int(conn.execute(player_sql.DAILY_BOARD_RANK, parameters).fetchone()["rank"])  # type: ignore[index]

    def all_time_board_rank(
        self: _Connections, variant: str, kind: str, min_games: int, key: tuple[float, int, UUID]
    ) -> int:
        parameters = {**_all_time_key(key), "variant": variant, "kind": kind, "min_games": min_games}
        with self._connection() as conn:
            return int(conn.execute(player_sql.ALL_TIME_BOARD_RANK, parameters).fetchone()["rank"])  # type: ignore[index]

    def unverified_results(self: _Connections, limit: int) -> list[UUID]:
        with self._connection() as conn:
            return first_column(conn, player_sql.SELECT_UNVERIFIED_RESULTS, {"limit": limit})

    def mark_verified(self: _Connections, game_id: UUID, valid: bool) -> None:
        with self._connection() as conn:
            conn.execute(player_sql.MARK_VERIFIED, {"game_id": game_id, "valid": valid})

    def replace_statistics(self: _Connections, results: Sequence[PlayerResult]) -> None:
        with self._transaction() as conn:
            conn.execute(player_sql.CLEAR_STATISTICS)
            conn.cursor().executemany(player_sql.INSERT_RESULT, [record_params(result) for result in results])
            conn.execute(player_sql.TIME_RESULTS)
            conn.execute(player_sql.MARK_ABANDONED_RESULTS)
            conn.execute(player_sql.SUM_RESULTS)


def _rows(store: _Connections, row_class: type[Row], statement: LiteralString, parameters: dict[str, Any]) -> list[Row]:
    with store._connection() as conn:
        return conn.cursor(row_factory=class_row(row_class)).execute(statement, parameters).fetchall()


def _daily_key(key: tuple[bool, int, int, int, int, UUID]) -> dict[str, Any]:
    lost, minus_score, hints, actions, micros, game_id = key
    return {
        "lost": lost,
        "minus_score": minus_score,
        "hints": hints,
        "actions": actions,
        "duration": timedelta(microseconds=micros),
        "game_id": game_id,
    }


def _all_time_key(key: tuple[float, int, UUID]) -> dict[str, Any]:
    minus_bound, minus_games, player_id = key
    return {"minus_bound": minus_bound, "minus_games": minus_games, "player_id": player_id}
