"""Where an action's database time goes: its statements one by one, against the ceiling's INSERT.

Run: .venv/bin/python bench/statements.py [--games 50] [--actions 20]
One client, no pipeline, so each statement's time is its own. Uses the store's own statements, on the
embedded PostgreSQL (var/bench) unless DATABASE_URL is set. Prints medians in microseconds.
"""

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from server import embedded, migrate, store  # noqa: E402
from server.rules import preset  # noqa: E402
from server.service import GameService  # noqa: E402

STEPS = ("BEGIN + locking read", "INSERT event", "UPDATE games", "UPDATE game_secrets", "COMMIT", "whole action")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--actions", type=int, default=20)
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL") or embedded.start(PROJECT / "var" / "bench")
    migrate.upgrade(url)
    pool = store.open_pool(url, 1, 2, 5, 5000)
    service = GameService(store.PostgresStore(pool, migrate.head_revision()))
    games = [service.create_game(preset("osmosis-draw-one")).body for _ in range(args.games)]
    times: dict[str, list[float]] = {step: [] for step in STEPS}
    ceiling: list[float] = []
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        for game in games:
            game_id = uuid.UUID(game["id"])
            view = Jsonb({"state": game["state"], "legal_actions": game["legal_actions"]})
            for _ in range(args.actions):
                marks = [time.perf_counter()]
                conn.execute("BEGIN")
                row = conn.execute(store.LOCK_GAME_FOR_ACTION, {"id": game_id}).fetchone()
                assert row is not None
                marks.append(time.perf_counter())
                version = row["version"]
                conn.execute(store.INSERT_EVENT, {"game_id": game_id, "seq": version + 1, "kind": "cards_dealt",
                                                  "data": Jsonb({"cards": ["AS"]}), "hash": "0" * 64})
                marks.append(time.perf_counter())
                conn.execute(store.UPDATE_GAME, {
                    "id": game_id, "updated_at": row["updated_at"], "deal": Jsonb(row["deal"]), "version": version + 1,
                    "status": "playing", "score": 1, "head_hash": "0" * 64, "view": view, "expected_version": version})
                marks.append(time.perf_counter())
                conn.execute(store.UPDATE_SECRET_STATE, {"state": row["state"], "game_id": game_id})
                marks.append(time.perf_counter())
                conn.execute("COMMIT")
                marks.append(time.perf_counter())
                for step, start, end in zip(STEPS, marks, marks[1:], strict=False):
                    times[step].append(end - start)
                times["whole action"].append(marks[-1] - marks[0])
        # A logged table, as the ceiling app's: a temporary one would skip the WAL and so the commit's fsync.
        conn.execute("DROP TABLE IF EXISTS bench_ceiling_rows")
        conn.execute("CREATE TABLE bench_ceiling_rows (id bigserial PRIMARY KEY, body text NOT NULL)")
        for _ in range(args.games * args.actions):
            started = time.perf_counter()
            conn.execute("BEGIN")
            conn.execute("INSERT INTO bench_ceiling_rows (body) VALUES (%s)", ("x" * 200,))
            conn.execute("COMMIT")
            ceiling.append(time.perf_counter() - started)
        conn.execute("DROP TABLE bench_ceiling_rows")
    for step in STEPS:
        print(f"{step:<22} {statistics.median(times[step]) * 1e6:8.0f} us")
    print(f"{'ceiling: INSERT+COMMIT':<22} {statistics.median(ceiling) * 1e6:8.0f} us")
    pool.close()


if __name__ == "__main__":
    main()
