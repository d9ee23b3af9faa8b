"""How well the hint plays: a player that takes the hint at every step, beside greedy play and the
full-information bound, on the same deals (docs/win-rates.md, "The hint as a player").

Run: .venv/bin/python bench/hint_player.py [--deals N] [--variant NAME ...] [--jobs J] [--record FILE]
                                            [--rates FILE]

The player takes the only legal action when there is one, and else the action the hint names (the hint
sees only what a player sees: the unseen cards are arranged at random, docs/solver.md); when the hint names
none, the position is one it knows is lost (the player resigns) or one whose exact search ran out of
positions (the player takes the first legal action, plays before deals, and the run counts it). With
--record FILE each game is appended to FILE as a JSON line, and a later run with the same FILE plays only
the deals not there yet. The bound and the greedy rate are read from the per-deal results of `osmosis
win-rates --per-deal` (--rates, by default the committed docs/win-rates-per-deal.txt) where they have the deal,
else worked out here. Prints figures and asserts nothing.
"""

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from server.cli.win_rates import VERDICT_LETTERS, read_per_deal
from server.rules import PRESETS, Resign, apply, legal_actions, numbered_opening
from server.service.players.stats import wilson_interval
from server.solver import DEFAULT_BUDGET, Verdict, search_engine, solve
from server.solver.hints import hint
from server.solver.players import play_greedy

PER_DEAL_RESULTS = Path(__file__).resolve().parents[1] / "docs" / "win-rates-per-deal.txt"

MAX_ACTIONS = 5_000
"""A game still on after this many actions is counted lost and reported (a hint that led round in circles)."""


def play(task: tuple[str, int]) -> dict[str, object]:
    """One game of the hint player, with the deal's greedy result and verdict for the comparison."""
    name, number = task
    start = numbered_opening(PRESETS[name], number)
    state = start
    started = time.perf_counter()
    hints = fallbacks = actions = 0
    while state.outcome is None and actions < MAX_ACTIONS:
        legal = legal_actions(state)
        if len(legal) == 1:
            action = legal[0]
        else:
            given = hint(state)
            hints += 1
            if given.action is not None:
                action = given.action
            elif given.verdict is Verdict.UNWINNABLE:
                action = Resign()
            else:
                action = legal[0]
                fallbacks += 1
        state = apply(state, action)
        actions += 1
    return {
        "variant": name,
        "deal": number,
        "won": state.status == "won",
        "actions": actions,
        "hints": hints,
        "fallbacks": fallbacks,
        "unfinished": state.outcome is None,
        "seconds": round(time.perf_counter() - started, 3),
    }


def comparison(task: tuple[str, int]) -> tuple[bool, str]:
    name, number = task
    start = numbered_opening(PRESETS[name], number)
    return play_greedy(start).status == "won", solve(start, DEFAULT_BUDGET).verdict.value


def known_rates(path: Path) -> dict[tuple[str, int], tuple[bool, str]]:
    """(greedy won, verdict) per deal from the per-deal results of `osmosis win-rates --per-deal`."""
    results = read_per_deal(path.read_text(encoding="utf-8"))
    verdicts = {letter: verdict.value for verdict, letter in VERDICT_LETTERS.items()}
    return {
        (name, deal): (greedy == "1", verdicts[verdict])
        for name in {name for name, _ in results}
        for deal, (verdict, greedy) in enumerate(zip(results[(name, "solver")], results[(name, "greedy")], strict=True))
    }


def rate(wins: int, games: int) -> str:
    low, high = wilson_interval(wins, games)
    return f"{wins / games:.1%} ({low:.1%} to {high:.1%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--variant", action="append", choices=list(PRESETS))
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--record", type=Path)
    parser.add_argument(
        "--rates",
        type=Path,
        default=PER_DEAL_RESULTS,
        help="the per-deal results of `osmosis win-rates --per-deal` (default: %(default)s)",
    )
    args = parser.parse_args()
    names = args.variant or list(PRESETS)
    games: dict[tuple[str, int], dict[str, object]] = {}
    if args.record is not None and args.record.exists():
        for line in args.record.read_text().splitlines():
            if line.strip():
                game = json.loads(line)
                games[(game["variant"], game["deal"])] = game
    todo = [(name, number) for name in names for number in range(args.deals) if (name, number) not in games]
    print(
        f"deals 0..{args.deals - 1} per preset; {len(todo):,} games to play; search: {search_engine()}",
        file=sys.stderr,
        flush=True,
    )
    known = known_rates(args.rates)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for game in pool.map(play, todo, chunksize=1):
            games[(str(game["variant"]), int(str(game["deal"])))] = game
            if args.record is not None:
                with args.record.open("a") as file:
                    file.write(json.dumps(game) + "\n")
        missing = [(name, number) for name in names for number in range(args.deals) if (name, number) not in known]
        for task, found in zip(missing, pool.map(comparison, missing, chunksize=8), strict=True):
            known[task] = found
    print(
        "| preset | deals | hint player | greedy player | every card known (bound) | hints per game | "
        "fallbacks | unfinished |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        played = [games[(name, number)] for number in range(args.deals)]
        compared = [known[(name, number)] for number in range(args.deals)]
        winnable = sum(verdict == "winnable" for _, verdict in compared)
        unknown = sum(verdict == "unknown" for _, verdict in compared)
        bound = rate(winnable, args.deals) + (f" (+{unknown} unknown)" if unknown else "")
        print(
            f"| {name} | {args.deals:,} | {rate(sum(bool(game['won']) for game in played), args.deals)} | "
            f"{rate(sum(greedy for greedy, _ in compared), args.deals)} | {bound} | "
            f"{sum(int(str(game['hints'])) for game in played) / args.deals:.0f} | "
            f"{sum(int(str(game['fallbacks'])) for game in played)} | "
            f"{sum(bool(game.get('unfinished')) for game in played)} |"
        )


if __name__ == "__main__":
    main()
