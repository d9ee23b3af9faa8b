"""What the server can tell of its database itself (the Readiness port and the replicas' standing): whether it is
migrated to head, whether a write would be acknowledged now (a synchronous standby streaming), where the primary's
WAL is and how far a replica has replayed it. PostgresStore has these methods."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

import psycopg
from psycopg.rows import tuple_row

from ..service.errors import StoreUnavailable
from . import sql


class _Connections(Protocol):
    _head_revision: str

    def _connection(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...


class ServerStanding:
    def wal_position(self: _Connections) -> str:
        with self._connection() as conn:
            row = conn.cursor(row_factory=tuple_row).execute(sql.WAL_POSITION).fetchone()
        assert row is not None
        return str(row[0])

    def replayed(self: _Connections, position: str) -> bool:
        with self._connection() as conn:
            row = conn.cursor(row_factory=tuple_row).execute(sql.REPLAYED, {"position": position}).fetchone()
        return bool(row and row[0])

    def replay_behind(self: _Connections, max_lag_bytes: int) -> bool:
        with self._connection() as conn:
            row = conn.execute(sql.REPLAY_BEHIND, {"max_lag_bytes": max_lag_bytes}).fetchone()
        return bool(row and row["behind"])

    def standing(self: _Connections) -> dict[str, str]:
        """Whether a write would be acknowledged now: on a primary that must wait for a synchronous standby, one is
        streaming (what pg_stat_replication shows the role: with no pg_monitor grant, it cannot tell)."""
        try:
            with self._connection() as conn:
                row = conn.execute(sql.SYNCHRONOUS_STANDBYS).fetchone()
        except StoreUnavailable:
            return {"writes": "unavailable: the database cannot be reached"}
        if row is None or not row["waits_for_standby"]:
            return {"writes": "ok"}
        if row["hidden"]:
            return {"writes": "unknown: grant pg_monitor to see the synchronous standbys"}
        if row["streaming"]:
            return {"writes": "ok"}
        return {"writes": "waiting for a synchronous standby: answered 503 until one is back"}

    def readiness(self: _Connections) -> str | None:
        try:
            with self._connection() as conn:
                row = conn.execute(sql.SELECT_SCHEMA_REVISION).fetchone()
        except StoreUnavailable as error:
            return str(error)
        except psycopg.errors.UndefinedTable:
            return "the database has no migrations applied"
        revision = row["version_num"] if row else None
        if revision != self._head_revision:
            return f"the database schema is at {revision}, not at head {self._head_revision}"
        return None
