"""What an undo costs against a draw, by the length of the game's log: an undo folds the whole log from the opening.

Run: .venv/bin/python bench/undo.py [--lengths 100,1000,1900] [--repeat 20]
For each length, a game of osmosis-draw-one whose log is brought to that many events by a deal taken back again and
again (the longest a log grows by undos: MAX_UNDOS of them make 2,000 events, of which the measurement takes
2 x --repeat), then `--repeat` undos, each with the deal again, and `--repeat` draws, through the acting use case on
PostgreSQL, each landed. CPU ms of this process a command (the driver's work counts, PostgreSQL's does not), and the
wall time. Uses DATABASE_URL if set, else the embedded PostgreSQL in var/bench.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from load import postgres_server, prepare_database  # noqa: E402

from server.game.commands import Draw, NewGame, NumberedDeal, Undo  # noqa: E402
from server.rules import preset  # noqa: E402
from server.runtime.composition import compose  # noqa: E402
from server.service.use_cases import UseCases  # noqa: E402
from server.store import PostgresStore, open_pool  # noqa: E402


def timed(work: Callable[[], object], repeat: int) -> tuple[float, float]:
    """CPU and wall ms a call of `work`."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(repeat):
        work()
    return (time.process_time() - cpu) / repeat * 1000, (time.perf_counter() - wall) / repeat * 1000


def measured(cases: UseCases, length: int, repeat: int) -> tuple[int, float, float, float, float]:
    made = cases.creating.handle(NewGame(preset("osmosis-draw-one"), NumberedDeal(7))).outcome
    assert made is not None
    game_id, token = made.game.id, made.player_token
    version = 1
    while version < length:
        cases.acting.handle(Draw(game_id, token))
        answered = cases.acting.handle(Undo(game_id, token)).outcome
        assert answered is not None
        version = answered.game.version
    cases.acting.handle(Draw(game_id, token))

    def undo_and_draw_again() -> None:
        cases.acting.handle(Undo(game_id, token))
        cases.acting.handle(Draw(game_id, token))

    both_cpu, both_wall = timed(undo_and_draw_again, repeat)
    draw_cpu, draw_wall = timed(lambda: cases.acting.handle(Draw(game_id, token)), repeat)
    return version, both_cpu - draw_cpu, both_wall - draw_wall, draw_cpu, draw_wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--lengths", default="100,1000,1900", help="events in the log before the undos, comma-separated"
    )
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with postgres_server() as server_url:
        pool = open_pool(prepare_database(server_url), 1, 2, 5, 60_000)
        try:
            cases = compose(PostgresStore(pool, "unused"))
            print("events in the log   undo: CPU ms  wall ms   draw: CPU ms  wall ms")
            for length in (int(part) for part in args.lengths.split(",")):
                version, undo_cpu, undo_wall, draw_cpu, draw_wall = measured(cases, length, args.repeat)
                print(f"{version:>17,}   {undo_cpu:11.2f}  {undo_wall:7.2f}   {draw_cpu:11.2f}  {draw_wall:7.2f}")
        finally:
            pool.close()


if __name__ == "__main__":
    main()
