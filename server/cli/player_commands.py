"""The players' commands: `osmosis rebuild-stats`, the statistics made again from the games' logs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..config import Settings
from ..service.games.verifying import Verifying
from ..service.players.profiles import Profiles
from ..service.ports import at_once
from ..service.sources import utc_now


def add_commands(commands: Any) -> None:
    rebuild = commands.add_parser(
        "rebuild-stats",
        help="make the players' statistics again from their games' logs (DATABASE_URL, or the "
        "embedded PostgreSQL when the server is not running)",
    )
    rebuild.set_defaults(run=_rebuild_stats)


def _rebuild_stats(args: argparse.Namespace) -> int:
    from ..store import embedded  # the database's commands alone load psycopg: `osmosis deal` starts without it

    settings = Settings.from_env()
    if settings.database_url is not None:
        return _rebuild(settings.database_url)
    try:
        with embedded.running(settings.data_dir) as database_url:
            return _rebuild(database_url)
    except embedded.InUse as error:
        print(f"osmosis: {error}; give DATABASE_URL to rebuild beside the running server", file=sys.stderr)
        return 2


def _rebuild(database_url: str) -> int:
    from ..store import PostgresStore, migrate, open_pool

    migrate.upgrade(database_url)
    pool = open_pool(database_url, min_size=1, max_size=2, timeout=30, statement_timeout_ms=0)
    try:
        store = PostgresStore(pool, migrate.head_revision())
        counted = Profiles(store, Verifying(store, at_once), utc_now).rebuild()
    finally:
        pool.close()
    print(f"osmosis: statistics rebuilt from the logs of {counted} games")
    return 0
