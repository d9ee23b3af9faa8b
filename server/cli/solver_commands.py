"""`osmosis solve` and `osmosis win-rates` (win_rates.py): the solver on the command line (docs/solver.md)."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from ..rules import PRESETS, Rules, RulesError, preset
from ..solver import DEFAULT_BUDGET, MAX_BUDGET, solve
from ..solver.winnable import candidate_opening, first_winnable
from . import win_rates
from .deal_source import add_deal_source, seeds_of


def add_commands(commands: Any) -> None:
    solve_command = commands.add_parser(
        "solve",
        help="whether a deal can be won, and how (every card known)",
        description="Search the deal with every card known: winnable (with the actions that win), unwinnable "
        "(every position searched) or unknown (the budget ran out).",
    )
    add_deal_source(solve_command)
    solve_command.add_argument("--variant", default="osmosis", choices=list(PRESETS))
    solve_command.add_argument(
        "--rules", type=_rules, metavar="JSON", help="custom rules instead of --variant, e.g. '{\"draw\": 1}'"
    )
    solve_command.add_argument(
        "--winnable",
        action="store_true",
        help="the seeds' winnable deal (POST /games with winnable: true), not the plain one",
    )
    solve_command.add_argument(
        "--budget",
        type=_budget,
        default=DEFAULT_BUDGET,
        metavar="NODES",
        help=f"positions to search at most (default {DEFAULT_BUDGET:,})",
    )
    solve_command.add_argument("--json", action="store_true", help="print the answer as JSON")
    solve_command.set_defaults(run=_solve)

    win_rates.add_command(commands, _budget)


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
    server_seed, client_seed = seeds_of(args)
    deal: dict[str, Any] = (
        {"deal_number": args.deal_number}
        if args.server_seed is None
        else {"server_seed": args.server_seed.lower(), "client_seed": client_seed}
    )
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
        print(
            json.dumps(
                {
                    "variant": rules.preset_name,
                    "rules": rules.to_dict(),
                    "deal": deal,
                    **solution.to_dict(),
                    "witness_text": [str(action) for action in solution.witness],
                }
            )
        )
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
