"""What the public log's partial entry bundle costs PostgreSQL at a checkpoint: rewritten whole (as the sequencer
does), against the checkpoint's new entries inserted as rows of their own (the bundle stored as it grows).

Run: .venv/bin/python bench/bundle_writes.py [--new 33] [--repeat 300]
Times each statement (wall, medians) on scratch tables for partial bundles of 32, 128 and 224 entries of ~330 bytes
plus `--new` entries (a checkpoint's share of the play in docs/performance.md). Uses DATABASE_URL if set, else the
embedded PostgreSQL in var/bench.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psycopg

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from load import postgres_server  # noqa: E402

ENTRY = b'{"kind":"game_ended","game_id":"' + bytes(range(48, 58)) * 30 + b'"}'


def median_ms(statement: Callable[[int], object], repeat: int) -> float:
    times = []
    for number in range(repeat):
        started = time.perf_counter()
        statement(number)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new", type=int, default=33, help="entries a checkpoint adds")
    parser.add_argument("--repeat", type=int, default=300)
    args = parser.parse_args()

    with postgres_server() as url, psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TEMPORARY TABLE whole_bundles (index bigint PRIMARY KEY, width smallint, entries bytea)")
        conn.execute("CREATE TEMPORARY TABLE bundle_rows (index bigint PRIMARY KEY, entry bytea)")
        for width in (32, 128, 224):
            bundle = ENTRY * (width + args.new)
            rewrite = median_ms(
                lambda n, b=bundle, w=width: conn.execute(
                    "INSERT INTO whole_bundles VALUES (%s, %s, %s) ON CONFLICT (index) DO UPDATE "
                    "SET width = EXCLUDED.width, entries = EXCLUDED.entries",
                    (n % 4, w + args.new, b),
                ),
                args.repeat,
            )
            conn.execute("TRUNCATE bundle_rows")
            append = median_ms(
                lambda n: conn.execute(
                    "INSERT INTO bundle_rows SELECT * FROM unnest(%s::bigint[], %s::bytea[])",
                    ([n * 1000 + k for k in range(args.new)], [ENTRY] * args.new),
                ),
                args.repeat,
            )
            print(
                f"partial bundle of {width:3d} + {args.new} entries   rewritten {rewrite:6.2f} ms   "
                f"new rows {append:6.2f} ms   ({len(bundle):,} bytes)"
            )


if __name__ == "__main__":
    main()
