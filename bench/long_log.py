"""What a game's log costs by its length, up to the longest the server allows (events.MAX_LOG_EVENTS): an action, an
undo, time travel, the stored game's verification and its export.

Run: .venv/bin/python bench/long_log.py [--lengths 100,1000,5000,9958] [--repeat 10]
One game of osmosis-draw-one (unlimited passes: the rules let it go round for ever) is brought to each length in
turn by draws and redeals that play no card, an undo after every fifth (an action taken back and taken again) while
the game has undos left (events.MAX_UNDOS), and a hint at every twentieth step: the ways a log grows. At each length,
through the use cases on PostgreSQL, CPU ms of this process (PostgreSQL's work does not count) and wall ms:
`--repeat` undos each followed by the draw again, less `--repeat` draws (an undo's own cost); time travel to
`--repeat` seqs spread over the log, and to the one before the latest undo; one verification (in the solver's time,
within its budget: verifying.VERIFICATION_BUDGET), and again (the hints it checked remembered), and one
export, with its size. Uses DATABASE_URL if set, else the
embedded PostgreSQL in var/bench.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from load import postgres_server, prepare_database  # noqa: E402

from server.game.commands import Draw, Hint, NewGame, NumberedDeal, Undo  # noqa: E402
from server.log import events as ev  # noqa: E402
from server.rules import preset  # noqa: E402
from server.runtime.composition import compose  # noqa: E402
from server.service.use_cases import UseCases  # noqa: E402
from server.store import PostgresStore, open_pool  # noqa: E402

DEAL = NumberedDeal(3)
"""A deal of osmosis-draw-one whose opening has a play, so that drawing without playing never loses."""
UNDOS_KEPT = 100
"""Undos the growth leaves for the measurements (`--repeat` at each length)."""


def timed(work: Callable[[], object], repeat: int = 1) -> tuple[float, float]:
    """CPU and wall ms a call of `work`."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(repeat):
        work()
    return (time.process_time() - cpu) / repeat * 1000, (time.perf_counter() - wall) / repeat * 1000


class LongGame:
    def __init__(self, cases: UseCases) -> None:
        made = cases.creating.handle(NewGame(preset("osmosis-draw-one"), DEAL)).outcome
        assert made is not None
        self.cases, self.game_id, self.token = cases, made.game.id, made.player_token
        self.version, self.undos, self.steps = 1, 0, 0

    def _land(self, command: Draw | Undo | Hint) -> None:
        answered = self.cases.acting.handle(command).outcome
        assert answered is not None and answered.game.status == "playing", "the game ended: choose another deal"
        self.version = answered.game.version

    def grow_to(self, length: int) -> None:
        while self.version < length:
            self.steps += 1
            self._land(Draw(self.game_id, self.token))
            if self.steps % 5 == 0 and self.undos < ev.MAX_UNDOS - UNDOS_KEPT and self.version + 2 <= length:
                self._land(Undo(self.game_id, self.token))
                self._land(Draw(self.game_id, self.token))
                self.undos += 1
            if self.steps % 20 == 0 and self.version < length:
                self._land(Hint(self.game_id, self.token))

    def undo_and_draw_again(self) -> None:
        self._land(Undo(self.game_id, self.token))
        self._land(Draw(self.game_id, self.token))

    def draw(self) -> None:
        self._land(Draw(self.game_id, self.token))


def measured(game: LongGame, repeat: int) -> dict[str, float]:
    cases, game_id = game.cases, game.game_id
    both_cpu, both_wall = timed(game.undo_and_draw_again, repeat)
    draw_cpu, draw_wall = timed(game.draw, repeat)
    game.undos += repeat
    last = game.version
    seqs = [1 + (last - 1) * n // repeat for n in range(repeat)]
    travel_cpu, travel_wall = timed(lambda: [cases.queries.state_at(game_id, seq) for seq in seqs])
    undone_at = latest_undo(cases, game_id)
    before_undo_cpu, _ = timed(lambda: cases.queries.state_at(game_id, undone_at - 1))
    verdict: dict = {}
    verify_cpu, verify_wall = timed(lambda: verdict.update(cases.verifying.verification(game_id)))
    assert verdict["valid"], verdict
    again_cpu, _ = timed(lambda: cases.verifying.verification(game_id))
    exported: dict = {}
    export_cpu, _ = timed(lambda: exported.update(cases.queries.replay(game_id)))
    return {
        "events": last,
        "draw_cpu": draw_cpu,
        "undo_cpu": both_cpu - draw_cpu,
        "undo_wall": both_wall - draw_wall,
        "draw_wall": draw_wall,
        "travel_cpu": travel_cpu / repeat,
        "travel_wall": travel_wall / repeat,
        "before_undo_cpu": before_undo_cpu,
        "verify_cpu": verify_cpu,
        "verify_wall": verify_wall,
        "verify_again_cpu": again_cpu,
        "export_cpu": export_cpu,
        "export_bytes": len(json.dumps(exported)),
    }


def latest_undo(cases: UseCases, game_id: UUID) -> int:
    events, after = [], 0
    while page := cases.queries.list_events(game_id, after, 1000)[0]:
        events += page
        after = page[-1]["seq"]
    return max(event["seq"] for event in events if event["kind"] == ev.ACTION_UNDONE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", help="events in the log, comma-separated (default: 100,1000,5000 and the longest)")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    # The longest: the bound, less the room a resignation keeps and the events the measurements append.
    args.lengths = args.lengths or f"100,1000,5000,{ev.MAX_LOG_EVENTS - 2 - 4 * args.repeat}"
    with postgres_server() as server_url:
        pool = open_pool(prepare_database(server_url), 1, 2, 5, 60_000)
        try:
            game = LongGame(compose(PostgresStore(pool, "unused")))
            print(
                "  events  draw CPU ms  undo CPU ms  (wall: draw, undo)  travel CPU ms  before an undo  "
                "verify CPU ms  wall ms  again CPU ms  export CPU ms  bytes"
            )
            for length in (int(part) for part in args.lengths.split(",")):
                game.grow_to(length)
                row = measured(game, args.repeat)
                print(
                    f"{row['events']:>8,}  {row['draw_cpu']:11.2f}  {row['undo_cpu']:11.2f}  "
                    f"({row['draw_wall']:5.2f}, {row['undo_wall']:5.2f})      {row['travel_cpu']:13.2f}  "
                    f"{row['before_undo_cpu']:14.2f}  {row['verify_cpu']:13.0f}  {row['verify_wall']:7.0f}  "
                    f"{row['verify_again_cpu']:12.0f}  "
                    f"{row['export_cpu']:13.1f}  {row['export_bytes']:,}",
                    flush=True,
                )
        finally:
            pool.close()


if __name__ == "__main__":
    main()
