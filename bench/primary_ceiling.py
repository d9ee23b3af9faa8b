"""The ceiling of one primary: actions a second PostgreSQL takes when nothing else is in its way, and what saturates.

Run: .venv/bin/python bench/primary_ceiling.py [--processes 4] [--seconds 10]
Several client processes (no interpreter lock between them), each on its own connection and its own games, send
an action's two statements (the game and its secret read, the version-guarded write of one event, committed:
server/store/sql.py), as fast as PostgreSQL answers. No server, no rules: what is left is the primary's own work.
Uses DATABASE_URL if set, else the embedded PostgreSQL (var/bench). Prints actions a second, and the CPU a second
of PostgreSQL and of the clients: on a machine whose cores are all busy, the share each takes says what saturates,
and PostgreSQL's CPU an action, what one primary could take with the machine to itself.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import psutil
import psycopg
from psycopg.rows import dict_row

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
sys.path.insert(0, str(PROJECT / "bench"))

from load import postgres_server, prepare_database  # noqa: E402
from statements import made_up_change  # noqa: E402

from server.game.commands import NewGame  # noqa: E402
from server.rules import preset  # noqa: E402
from server.runtime.composition import compose  # noqa: E402
from server.store import PostgresStore, migrate, open_pool, sql  # noqa: E402
from server.store.rows import write_game  # noqa: E402

GAMES_A_CLIENT = 4


def _client(url: str, game_ids: list[str], seconds: float, start: float, done: multiprocessing.Queue) -> None:
    pool = open_pool(url, 1, 1, 5, 5000)
    store = PostgresStore(pool, migrate.head_revision())
    records = {game_id: store.load_game(game_id) for game_id in game_ids}
    actions, counted = 0, {}
    window = (start + 1, start + seconds - 1)  # the main process reads PostgreSQL's CPU over this window
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        while time.time() < start:
            time.sleep(0.001)
        while time.time() < start + seconds:
            now = time.time()
            for edge in window:
                if now >= edge and edge not in counted:
                    counted[edge] = (actions, _own_cpu())
            game_id = game_ids[actions % len(game_ids)]
            row = conn.execute(sql.SELECT_GAME_FOR_ACTION, {"id": game_id}).fetchone()
            assert row is not None
            version = row["version"]
            record = replace(records[game_id], version=version + 1)
            assert write_game(conn, made_up_change(record, row["state"]), version, None)
            actions += 1
    pool.close()
    (first, first_cpu), (last, last_cpu) = counted[window[0]], counted[window[1]]
    done.put((last - first, last_cpu - first_cpu))


def _own_cpu() -> float:
    own = os.times()
    return own.user + own.system


def _postgres_cpu() -> float:
    total = 0.0
    for process in psutil.process_iter(["name", "cpu_times"]):
        if process.info["name"] == "postgres" and process.info["cpu_times"] is not None:
            total += process.info["cpu_times"].user + process.info["cpu_times"].system
    return total


def measure(url: str, processes: int, seconds: float) -> None:
    pool = open_pool(url, 1, 2, 5, 5000)
    cases = compose(PostgresStore(pool, migrate.head_revision()))
    games = [
        str(cases.creating.handle(NewGame(preset("osmosis-draw-one"))).outcome.game.id)
        for _ in range(processes * GAMES_A_CLIENT)
    ]
    pool.close()
    done: multiprocessing.Queue = multiprocessing.Queue()
    start = time.time() + 2
    workers = [
        multiprocessing.Process(
            target=_client, args=(url, games[i * GAMES_A_CLIENT : (i + 1) * GAMES_A_CLIENT], seconds, start, done)
        )
        for i in range(processes)
    ]
    for worker in workers:
        worker.start()
    while time.time() < start + 1:
        time.sleep(0.001)
    postgres_before = _postgres_cpu()
    time.sleep(seconds - 2)
    postgres_used = _postgres_cpu() - postgres_before
    seconds -= 2
    results = [done.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    actions = sum(count for count, _ in results)
    clients_cpu = sum(cpu for _, cpu in results)
    cores = os.cpu_count() or 1
    print(f"{processes} client processes, measured over {seconds:g} s, {cores} cores")
    print(f"actions a second: {actions / seconds:,.0f}")
    print(f"PostgreSQL CPU, cores busy: {postgres_used / seconds:.2f}")
    print(f"clients CPU, cores busy (at most): {clients_cpu / seconds:.2f}")
    print(f"PostgreSQL CPU ms an action: {1000 * postgres_used / max(actions, 1):.3f}")
    alone = cores * actions / max(postgres_used, 1e-9)
    print(f"one primary with {cores} cores of its own, actions a second: {alone:,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    with postgres_server() as server_url:
        measure(prepare_database(server_url), args.processes, args.seconds)


if __name__ == "__main__":
    main()
