"""Where an action's database time goes: its two statements, against the ceiling's INSERT + COMMIT.

Run: .venv/bin/python bench/statements.py [--games 50] [--actions 20]
One client, so each statement's time is its own. Uses the store's own statements, in a fresh database
on the embedded PostgreSQL (var/bench) unless DATABASE_URL is set. Prints medians in microseconds.
"""

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import psycopg
from psycopg.rows import dict_row

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from load import prepare_database  # noqa: E402

from server.game.change import Change, Game, Reply  # noqa: E402
from server.game.commands import NewGame  # noqa: E402
from server.game.records import GameRecord, GameSecret  # noqa: E402
from server.log.events import Event, events_json  # noqa: E402
from server.rules import layout, opening, preset, shuffled_deck  # noqa: E402
from server.runtime.composition import compose  # noqa: E402
from server.store import PostgresStore, embedded, migrate, open_pool, sql  # noqa: E402
from server.store.rows import write_game  # noqa: E402

STEPS = ("read game + secret", "guarded write, committed", "whole action")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--actions", type=int, default=20)
    args = parser.parse_args()
    data_dir = PROJECT / "var" / "bench"
    given_url = os.environ.get("DATABASE_URL")
    try:
        measure(prepare_database(given_url or embedded.start(data_dir)), args.games, args.actions)
    finally:
        if not given_url:
            embedded.stop(data_dir)


def made_up_change(record: GameRecord, state_text: str) -> Change:
    """A change of one made-up event at the record's version, its position's text as read: what the store writes is
    timed, not the rules."""
    events = (Event(record.version, "cards_dealt", {"cards": ["AS"]}, "0" * 64),)
    secret = GameSecret(b"", "", state_text, "")
    return Change(Game(record, secret, POSITION), events, events_json(events), Reply(200, "{}"))


POSITION = opening(preset("osmosis-draw-one"), layout(shuffled_deck(b"\0" * 32), preset("osmosis-draw-one")))
"""A parsed position for the made-up changes (the store writes only its text)."""


def measure(url: str, games_count: int, actions: int) -> None:
    pool = open_pool(url, 1, 2, 5, 5000)
    postgres = PostgresStore(pool, migrate.head_revision())
    cases = compose(postgres)
    games = [cases.creating.handle(NewGame(preset("osmosis-draw-one"))).outcome for _ in range(games_count)]
    times: dict[str, list[float]] = {step: [] for step in STEPS}
    ceiling: list[float] = []
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        for game in games:
            assert game is not None
            game_id = game.game.id
            record = postgres.load_game(game_id)
            for _ in range(actions):
                started = time.perf_counter()
                row = conn.execute(sql.SELECT_GAME_FOR_ACTION, {"id": game_id}).fetchone()
                assert row is not None
                read = time.perf_counter()
                version = row["version"]
                record = replace(record, version=version + 1)
                assert write_game(conn, made_up_change(record, row["state"]), version, None)
                written = time.perf_counter()
                times["read game + secret"].append(read - started)
                times["guarded write, committed"].append(written - read)
                times["whole action"].append(written - started)
        for _ in range(games_count * actions):
            started = time.perf_counter()
            conn.execute("BEGIN")
            conn.execute("INSERT INTO ceiling_rows (body) VALUES (%s)", ("x" * 200,))
            conn.execute("COMMIT")
            ceiling.append(time.perf_counter() - started)
    for step in STEPS:
        print(f"{step:<26} {statistics.median(times[step]) * 1e6:8.0f} us")
    print(f"{'ceiling: INSERT + COMMIT':<26} {statistics.median(ceiling) * 1e6:8.0f} us")
    pool.close()


if __name__ == "__main__":
    main()
