"""`osmosis solve` and `osmosis win-rates`: the solver on the command line (docs/solver.md)."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ..rules import PRESETS, Rules, RulesError, deal_number_seed, parse_server_seed, preset
from ..service.players.stats import wilson_interval
from ..solver import DEFAULT_BUDGET, MAX_BUDGET, SOLVER_VERSION, Verdict, solve
from ..solver.players import play_greedy, play_random
from ..solver.winnable import candidate_opening, first_winnable


def add_commands(commands: Any) -> None:
    solve_command = commands.add_parser(
        "solve", help="whether a deal can be won, and how (every card known)",
        description="Search the deal with every card known: winnable (with the actions that win), unwinnable "
                    "(every position searched) or unknown (the budget ran out).")
    source = solve_command.add_mutually_exclusive_group(required=True)
    source.add_argument("--deal-number", type=int, metavar="N", help="a public, shareable deal number")
    source.add_argument("--server-seed", metavar="HEX", help="a revealed 32-byte server seed in hexadecimal")
    solve_command.add_argument("--client-seed", default="", metavar="S", help="the client seed (with --server-seed)")
    solve_command.add_argument("--variant", default="osmosis", choices=list(PRESETS))
    solve_command.add_argument("--rules", type=_rules, metavar="JSON",
                               help="custom rules instead of --variant, e.g. '{\"draw\": 1}'")
    solve_command.add_argument("--winnable", action="store_true",
                               help="the seeds' winnable deal (POST /games with winnable: true), not the plain one")
    solve_command.add_argument("--budget", type=_budget, default=DEFAULT_BUDGET, metavar="NODES",
                               help=f"positions to search at most (default {DEFAULT_BUDGET:,})")
    solve_command.add_argument("--json", action="store_true", help="print the answer as JSON")
    solve_command.set_defaults(run=_solve)

    rates = commands.add_parser("win-rates", help="win rates of the random, greedy and exact players, in Markdown")
    rates.add_argument("--variant", action="append", choices=list(PRESETS), help="a preset (default: every one)")
    rates.add_argument("--deals", type=int, default=None, metavar="N",
                       help="deals per preset (default 10,000 under draw one, 2,000 under draw three)")
    rates.add_argument("--budget", type=_budget, default=DEFAULT_BUDGET, metavar="NODES")
    rates.add_argument("--jobs", type=int, default=1, metavar="J", help="processes to solve in")
    rates.set_defaults(run=_win_rates)


def _budget(text: str) -> int:
    value = int(text)
    if not 1 <= value <= MAX_BUDGET:
        raise argparse.ArgumentTypeError(f"a budget is from 1 to {MAX_BUDGET:,} positions")
    return value


def _rules(text: str) -> Rules:
    try:
        values = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not JSON: {error}") from None
    if not isinstance(values, dict):
        raise argparse.ArgumentTypeError("the rules are a JSON object of rule parameters")
    try:
        return Rules.from_mapping(values)
    except RulesError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _solve(args: argparse.Namespace) -> int:
    rules = args.rules or preset(args.variant)
    if args.server_seed is not None:
        server_seed, client_seed = parse_server_seed(args.server_seed), args.client_seed
        deal: dict[str, Any] = {"server_seed": args.server_seed.lower(), "client_seed": client_seed}
    else:
        server_seed, client_seed = deal_number_seed(args.deal_number), ""
        deal = {"deal_number": args.deal_number}
    if args.winnable:
        chosen = first_winnable(rules, server_seed, client_seed)
        deal["winnable"] = chosen.record
        start = chosen.opening
    else:
        start = candidate_opening(rules, server_seed, client_seed, 0)
    started = time.perf_counter()
    solution = solve(start, args.budget)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps({"variant": rules.preset_name, "rules": rules.to_dict(), "deal": deal,
                          **solution.to_dict(), "witness_text": [str(action) for action in solution.witness]}))
        return 0
    described = " ".join(f"{key} {value}" for key, value in deal.items() if key != "winnable")
    if args.winnable:
        described += f", winnable candidate {deal['winnable']['candidate']}"
    print(f"deal        {described}")
    print(f"rules       {rules.preset_name or json.dumps(rules.to_dict())}")
    print(f"verdict     {solution.verdict}")
    print(f"searched    {solution.nodes:,} positions of {solution.budget:,} in {elapsed:.2f} s ({solution.solver})")
    if solution.witness:
        print(f"witness     {len(solution.witness)} actions: {' '.join(str(action) for action in solution.witness)}")
    return 0


DRAW_ONE_DEALS = 10_000
DRAW_THREE_DEALS = 2_000
CLAIMS = (
    ("osmosis-strict-waste", "13%", 0.13, "seeds/001 (its rules: draw three, reserves face down, strict waste)"),
    ("peek", "one game in ten or a bit more", 0.10, "seeds/004 (Peek)"),
    ("osmosis-draw-one", "Medium (32%)", 0.32, "Pretty Good Solitaire (draw one)"),
)


def _outcomes(task: tuple[str, int, int]) -> tuple[bool, bool, str]:
    """The random player's result, the greedy one's and the solver's verdict on one deal."""
    name, number, budget = task
    state = candidate_opening(PRESETS[name], deal_number_seed(number), "", 0)
    random_won = play_random(state, random.Random(number)).status == "won"
    greedy_won = play_greedy(state).status == "won"
    return random_won, greedy_won, solve(state, budget).verdict.value



def _win_rates(args: argparse.Namespace) -> int:
    names = args.variant or list(PRESETS)
    rows = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name in names:
            deals = args.deals or (DRAW_ONE_DEALS if PRESETS[name].draw == 1 else DRAW_THREE_DEALS)
            started = time.perf_counter()
            tasks = [(name, number, args.budget) for number in range(deals)]
            results = list(pool.map(_outcomes, tasks, chunksize=16))
            rows.append(_row(name, deals, results, time.perf_counter() - started))
            print(f"osmosis: {name} done", file=sys.stderr, flush=True)
    print(_document(rows, args))
    return 0


def _rate(wins: int, deals: int) -> str:
    low, high = wilson_interval(wins, deals)
    return f"{wins / deals:.1%} ({low:.1%} to {high:.1%})"


def _row(name: str, deals: int, results: list[tuple[bool, bool, str]], seconds: float) -> dict[str, Any]:
    random_wins = sum(result[0] for result in results)
    greedy_wins = sum(result[1] for result in results)
    winnable = sum(result[2] == Verdict.WINNABLE for result in results)
    unknown = sum(result[2] == Verdict.UNKNOWN for result in results)
    low, _ = wilson_interval(winnable, deals)
    _, high = wilson_interval(winnable + unknown, deals)
    exact = f"{winnable / deals:.1%} to {(winnable + unknown) / deals:.1%} ({low:.1%} to {high:.1%})" if unknown \
        else _rate(winnable, deals)
    return {"name": name, "deals": deals, "random": _rate(random_wins, deals), "greedy": _rate(greedy_wins, deals),
            "exact": exact, "unknown": unknown, "winnable": winnable, "seconds": seconds}


def _document(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    lines = [
        "| preset | deals | random player | greedy player | every card known (solver) | unknown |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(f"| {row['name']} | {row['deals']:,} | {row['random']} | {row['greedy']} | {row['exact']} | "
                     f"{row['unknown']} |")
    lines.append("")
    lines.append(f"Deal numbers 0 to N-1 of each preset; solver {SOLVER_VERSION}, budget {args.budget:,} positions "
                 "per deal. Each rate with its 95% Wilson interval; where the solver left deals unknown, the exact "
                 "rate is given as the bounds (unknown counted as lost, then as won) and the interval runs from the "
                 "lower bound's low end to the upper bound's high end.")
    by_name = {row["name"]: row for row in rows}
    claims = [(name, text, value, source) for name, text, value, source in CLAIMS if name in by_name]
    if claims:
        lines += ["", "| claim | source | preset | greedy | exact |", "|---|---|---|---:|---:|"]
        for name, text, _, source in claims:
            row = by_name[name]
            lines.append(f"| {text} | {source} | {name} | {row['greedy']} | {row['exact']} |")
    return "\n".join(lines)
