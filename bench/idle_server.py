"""What an idle server asks of PostgreSQL: the transactions it commits while nobody calls it.

Run: .venv/bin/python bench/idle_server.py [--seconds 30] [--settle 8]
Starts gunicorn with deploy/gunicorn.conf.py (4 workers) on a fresh database, waits `--settle` seconds for the
workers' first turns, then counts the database's transactions (pg_stat_database) for `--seconds`. Its own threads
(the public log's sequencer, the upkeep, the live hub) should cost nothing while nothing happens; compare commits
with `bench/compare.py --bench idle_server --bench-from . A B`. Uses DATABASE_URL if set, else the embedded
PostgreSQL in var/bench.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import psycopg

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from load import free_port, postgres_server, prepare_database, start_gunicorn, stop_servers  # noqa: E402

COUNT = "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30, help="how long to count")
    parser.add_argument("--settle", type=float, default=8, help="seconds after the start before counting")
    args = parser.parse_args()

    with postgres_server() as server_url:
        url = prepare_database(server_url)
        server = start_gunicorn("server.runtime.app:create_app()", url, free_port(), None)
        try:
            time.sleep(args.settle)
            with psycopg.connect(url, autocommit=True) as conn:
                first = conn.execute(COUNT).fetchone()
                time.sleep(args.seconds)
                second = conn.execute(COUNT).fetchone()
            assert first is not None and second is not None
            counted = second[0] - first[0] - 1  # less the first count's own
            print(
                f"idle server, transactions           {counted:6d}   in {args.seconds:g} s "
                f"({counted / args.seconds:.1f} a second, {os.environ.get('WEB_CONCURRENCY', '4')} workers)"
            )
        finally:
            stop_servers({"game server": server})


if __name__ == "__main__":
    main()
