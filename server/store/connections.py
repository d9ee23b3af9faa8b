"""Connections to PostgreSQL: the pool every request draws from, the check of a pooled connection before
it is used, and connections of their own outside the pool (listening and publishing changes)."""

from __future__ import annotations

import contextlib
import os
import select
import time
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool
from psycopg_pool.base import AttemptWithBackoff

RECONNECT_SECONDS = 0.5
"""How often a pool tries again to connect while the database is away. psycopg_pool doubles its wait after each
failed attempt, without a ceiling: after a failover of ten seconds its next attempt came sixteen seconds later,
and every request meanwhile waited for a connection in vain. A steady half second costs an outage one connection
attempt a second per pool, and brings the pool back within half a second of the new primary."""
AttemptWithBackoff.INITIAL_DELAY = RECONNECT_SECONDS
AttemptWithBackoff.DELAY_BACKOFF = 1.0


CONNECT_SECONDS = 10
"""How long a connection may take to open when the URL (or PGCONNECT_TIMEOUT) says nothing: without a bound,
libpq waits for ever on a host that accepts TCP and never answers."""


def with_connect_timeout(database_url: str) -> str:
    """`database_url` with a bound on opening a connection, unless it (or PGCONNECT_TIMEOUT) names one."""
    if "connect_timeout" in conninfo_to_dict(database_url) or os.environ.get("PGCONNECT_TIMEOUT"):
        return database_url
    return make_conninfo(database_url, connect_timeout=CONNECT_SECONDS)


def open_pool(
    database_url: str,
    min_size: int,
    max_size: int,
    timeout: float,
    statement_timeout_ms: int,
    max_lifetime: float = 3600.0,
) -> ConnectionPool:
    """A pool whose connections give up on a statement after `statement_timeout_ms`, each replaced after
    `max_lifetime` seconds."""
    pool = ConnectionPool(
        database_url,
        min_size=min_size,
        max_size=max_size,
        timeout=timeout,
        max_lifetime=max_lifetime,
        kwargs={"options": f"-c statement_timeout={statement_timeout_ms}", "connect_timeout": 5, "autocommit": True},
        open=False,
        name="osmosis",
    )
    pool.open(wait=False)
    return pool


def live_connection(pool: ConnectionPool) -> psycopg.Connection[Any]:
    """A connection from the pool that is not known to be dead.

    An idle connection has nothing to read; one whose server went away (PostgreSQL restarted, or the
    connection was terminated) has its goodbye or its end waiting on the socket. Only such a one costs
    a round trip to check, and a dead one is handed back, where the pool replaces it, and the next is
    taken at once: after a restart the first requests succeed instead of each meeting a dead
    connection, and no request pays for the check while the database is well.
    """
    deadline = time.monotonic() + pool.timeout
    while True:
        conn = pool.getconn(timeout=max(0.0, deadline - time.monotonic()))
        if not conn.closed and not select.select([conn.fileno()], [], [], 0)[0]:
            return conn
        with contextlib.suppress(psycopg.Error):
            if not conn.closed:
                conn.execute("")
                return conn
        pool.putconn(conn)


def dedicated_connection(pool: ConnectionPool, options: str = "") -> psycopg.Connection[Any]:
    """A connection of its own, outside the pool, with the pool's settings."""
    conninfo, kwargs = pool.conninfo, pool.kwargs
    assert isinstance(conninfo, str) and isinstance(kwargs, dict), "open_pool gives both as values"
    return psycopg.connect(conninfo, **{**kwargs, "options": f"{kwargs.get('options', '')} {options}".strip()})
