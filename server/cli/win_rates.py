"""`osmosis win-rates`: how often each preset is won by a random player, by the greedy one, and by a player
who sees every card (the solver), on the same deals (docs/win-rates.md).

Every deal is decided in the end: a deal the solver leaves unknown within `--budget` is searched again with
ten times the positions, and again, up to `--max-budget`. With `--record FILE` each result is appended to
FILE as one JSON line the moment it is known, and a later run with the same FILE starts where it stopped:
an exact run takes hours of CPU, and an interruption costs only the deals under way.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from ..rules import PRESETS, apply, deal_number_seed
from ..service.players.stats import wilson_interval
from ..solver import DEFAULT_BUDGET, MAX_BUDGET, Verdict, solve
from ..solver.players import play_greedy, play_random
from ..solver.winnable import candidate_opening

DEALS = 10_000
ESCALATION = 10
"""Each new search of a deal left unknown has this many times the positions of the one before."""
PROGRESS_SECONDS = 30.0
CLAIMS = (
    ("osmosis-strict-waste", "13%", "seeds/001 (its rules: draw three, reserves face down, strict waste)"),
    ("peek", "one game in ten or a bit more", "seeds/004 (Peek)"),
    ("osmosis-draw-one", "Medium (32%)", "Pretty Good Solitaire (draw one)"),
)


def add_command(commands: Any, budget_type: Any) -> None:
    rates = commands.add_parser(
        "win-rates",
        help="win rates of the random, greedy and exact players, in Markdown",
        description="Play each deal with a random player and the greedy one, and decide it with the solver "
        "(every card known), searching again with more positions until every deal is decided or "
        "--max-budget is reached; print the rates with 95% intervals as Markdown.",
    )
    rates.add_argument("--variant", action="append", choices=list(PRESETS), help="a preset (default: every one)")
    rates.add_argument(
        "--deals",
        type=_at_least_one("--deals"),
        default=DEALS,
        metavar="N",
        help=f"deal numbers 0 to N-1 of each preset (default {DEALS:,})",
    )
    rates.add_argument(
        "--budget",
        type=budget_type,
        default=DEFAULT_BUDGET,
        metavar="NODES",
        help=f"positions of each deal's first search (default {DEFAULT_BUDGET:,})",
    )
    rates.add_argument(
        "--max-budget",
        type=budget_type,
        default=MAX_BUDGET,
        metavar="NODES",
        help=f"positions of the last search of a deal still unknown (default {MAX_BUDGET:,}); "
        "the --budget value searches each deal once",
    )
    rates.add_argument(
        "--jobs", type=_at_least_one("--jobs"), default=1, metavar="J", help="processes to solve in (default 1)"
    )
    rates.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="append each result to FILE (JSON lines) and take up where an earlier run left off",
    )
    rates.add_argument(
        "--per-deal",
        type=Path,
        metavar="FILE",
        help="also write every deal's results to FILE, a line of one character per deal for each "
        "preset and player (docs/win-rates.md)",
    )
    rates.set_defaults(run=run)


def _at_least_one(option: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if value < 1:
            raise argparse.ArgumentTypeError(f"{option} is at least 1")
        return value

    return parse


@dataclass(frozen=True, slots=True)
class Outcome:
    """One deal's results: the players' are the same in every search of it, the solver's are its last."""

    variant: str
    deal: int
    random: bool
    greedy: bool
    verdict: str
    nodes: int
    budget: int
    solver: str

    @property
    def decided(self) -> bool:
        return self.verdict != Verdict.UNKNOWN

    def better_than(self, other: Outcome | None) -> bool:
        return other is None or (not other.decided and (self.decided or self.budget > other.budget))


@dataclass(frozen=True, slots=True)
class Task:
    variant: str
    deal: int
    budget: int
    players: tuple[bool, bool] | None
    """The players' results if known already (a search again), else None (play them too)."""


def work(task: Task) -> Outcome:
    """Solve one deal (and play it, the first time). A witness is replayed by the rules engine before it is
    counted: a win the engine does not confirm stops the run."""
    state = candidate_opening(PRESETS[task.variant], deal_number_seed(task.deal), "", 0)
    if task.players is None:
        players = (play_random(state, random.Random(task.deal)).status == "won", play_greedy(state).status == "won")
    else:
        players = task.players
    solution = solve(state, task.budget)
    if solution.verdict is Verdict.WINNABLE:
        end = state
        for action in solution.witness:
            end = apply(end, action)
        if end.status != "won":
            raise AssertionError(f"{task.variant} deal {task.deal}: the solver's witness does not win")
    return Outcome(
        task.variant, task.deal, *players, solution.verdict.value, solution.nodes, task.budget, solution.solver
    )


class Record:
    """The results so far, best per deal, and the file they are appended to (if any), which no other run may
    write to meanwhile."""

    def __init__(self, path: Path | None) -> None:
        self.best: dict[tuple[str, int], Outcome] = {}
        self.positions = 0
        """Positions searched by every search kept, in this run and the ones it takes up."""
        self.file: TextIO | None = None
        if path is None:
            return
        self.file = path.open("a", encoding="utf-8")
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.file.close()
            raise SystemExit(f"osmosis: another win-rates run is writing to {path}") from None
        try:
            for outcome in _read(path):
                self.keep(outcome)
        except BaseException:
            self.close()
            raise

    def keep(self, outcome: Outcome) -> None:
        self.positions += outcome.nodes
        key = (outcome.variant, outcome.deal)
        if outcome.better_than(self.best.get(key)):
            self.best[key] = outcome

    def add(self, outcome: Outcome) -> None:
        self.keep(outcome)
        if self.file is not None:
            self.file.write(json.dumps(asdict(outcome), separators=(",", ":")) + "\n")
            self.file.flush()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def _read(path: Path) -> Iterator[Outcome]:
    text = path.read_text(encoding="utf-8")
    complete, _, tail = text.rpartition("\n")
    if tail:
        # The last line of a run cut off while writing it: its deal is solved again, and the record is cut
        # back to its last whole line, so that the next result starts a line of its own.
        print(f"osmosis: {path}: the last line is incomplete and is ignored", file=sys.stderr)
        with path.open("r+", encoding="utf-8") as file:
            file.truncate(len((complete + "\n").encode()) if complete else 0)
    for number, line in enumerate(complete.splitlines(), 1):
        try:
            yield Outcome(**json.loads(line))
        except (ValueError, TypeError) as error:
            raise SystemExit(f"osmosis: {path}, line {number}: not a result of win-rates ({error})") from None


def run(args: argparse.Namespace) -> int:
    if args.max_budget < args.budget:
        print("osmosis: --max-budget is below --budget", file=sys.stderr)
        return 2
    names = args.variant or list(PRESETS)
    record = Record(args.record)
    try:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            budget = args.budget
            while True:
                tasks = list(_tasks(record, names, args.deals, budget))
                _solve_all(pool, args.jobs, tasks, record)
                if budget >= args.max_budget or not _unknown(record, names, args.deals):
                    break
                budget = min(budget * ESCALATION, args.max_budget)
    finally:
        record.close()
    if args.per_deal is not None:
        args.per_deal.write_text(per_deal(record, names, args.deals), encoding="utf-8")
    print(document(record, names, args.deals, args.budget))
    return 0


VERDICT_LETTERS = {Verdict.WINNABLE: "W", Verdict.UNWINNABLE: "L", Verdict.UNKNOWN: "?"}


def per_deal(record: Record, names: list[str], deals: int) -> str:
    """Every deal's results: for each preset a line of the solver's verdicts (W winnable, L unwinnable,
    ? unknown), one of the greedy player's and one of the random player's results (1 won, 0 lost), one
    character per deal, deal 0 first."""
    lines = [
        f"# osmosis win-rates, deal numbers 0 to {deals - 1:,} of each preset, one character per deal, deal 0 first",
        "# solver: W winnable, L unwinnable, ? unknown; greedy and random: 1 won, 0 lost",
    ]
    for name in names:
        outcomes = [record.best[(name, deal)] for deal in range(deals)]
        lines.append(f"{name} solver {''.join(VERDICT_LETTERS[Verdict(outcome.verdict)] for outcome in outcomes)}")
        lines.append(f"{name} greedy {''.join('1' if outcome.greedy else '0' for outcome in outcomes)}")
        lines.append(f"{name} random {''.join('1' if outcome.random else '0' for outcome in outcomes)}")
    return "\n".join(lines) + "\n"


def read_per_deal(text: str) -> dict[tuple[str, str], str]:
    """What `per_deal` wrote: {(preset, "solver" | "greedy" | "random"): one character per deal}."""
    results = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, player, letters = line.split()
            results[(name, player)] = letters
    return results


def _tasks(record: Record, names: list[str], deals: int, budget: int) -> Iterator[Task]:
    for name in names:
        for deal in range(deals):
            known = record.best.get((name, deal))
            if known is None:
                yield Task(name, deal, budget, None)
            elif not known.decided and known.budget < budget:
                yield Task(name, deal, budget, (known.random, known.greedy))


def _solve_all(pool: ProcessPoolExecutor, jobs: int, tasks: list[Task], record: Record) -> None:
    """Solve `tasks`, keeping each result as it comes; a few per process at a time, so that a run stopped
    at any moment leaves every finished result in the record."""
    pending: set[Future[Outcome]] = set()
    queue = iter(tasks)
    done = 0
    last_word = time.monotonic()
    while True:
        while len(pending) < 4 * jobs:
            task = next(queue, None)
            if task is None:
                break
            pending.add(pool.submit(work, task))
        if not pending:
            return
        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in finished:
            record.add(future.result())
            done += 1
        if time.monotonic() - last_word >= PROGRESS_SECONDS:
            last_word = time.monotonic()
            print(f"osmosis: {done:,} of {len(tasks):,} searches done", file=sys.stderr, flush=True)


def _unknown(record: Record, names: Iterable[str], deals: int) -> list[Outcome]:
    return [outcome for name in names for deal in range(deals) if not (outcome := record.best[(name, deal)]).decided]


def _rate(wins: int, deals: int) -> str:
    low, high = wilson_interval(wins, deals)
    return f"{wins / deals:.1%} ({low:.1%} to {high:.1%})"


def _exact(winnable: int, unknown: int, deals: int) -> str:
    if not unknown:
        return _rate(winnable, deals)
    low, _ = wilson_interval(winnable, deals)
    _, high = wilson_interval(winnable + unknown, deals)
    # Two decimals where a few deals are unknown, so that the bounds do not print as one number.
    return f"{winnable / deals:.2%} to {(winnable + unknown) / deals:.2%} ({low:.1%} to {high:.1%})"


def document(record: Record, names: list[str], deals: int, budget: int) -> str:
    """The rates as Markdown: a row per preset, the deals left unknown, the sources' claims."""
    lines = [
        "| preset | deals | random player | greedy player | every card known (solver) | winnable | unwinnable "
        "| unknown |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    exact: dict[str, str] = {}
    greedy: dict[str, str] = {}
    for name in names:
        outcomes = [record.best[(name, deal)] for deal in range(deals)]
        winnable = sum(outcome.verdict == Verdict.WINNABLE for outcome in outcomes)
        unwinnable = sum(outcome.verdict == Verdict.UNWINNABLE for outcome in outcomes)
        unknown = deals - winnable - unwinnable
        exact[name] = _exact(winnable, unknown, deals)
        greedy[name] = _rate(sum(outcome.greedy for outcome in outcomes), deals)
        lines.append(
            f"| {name} | {deals:,} | {_rate(sum(outcome.random for outcome in outcomes), deals)} | "
            f"{greedy[name]} | {exact[name]} | {winnable:,} | {unwinnable:,} | {unknown:,} |"
        )
    solvers = sorted({outcome.solver for outcome in record.best.values()})
    lines += [
        "",
        f"Deal numbers 0 to {deals - 1:,} of each preset; solver {', '.join(solvers)}, each deal searched "
        f"first with {budget:,} positions and, while unknown, again with {ESCALATION} times as many; every "
        "win the solver found was replayed by the rules engine. Each rate with its 95% Wilson interval (of the "
        "rate over all deals, which these deals sample). Where deals are left unknown, the exact rate is given "
        "as bounds (unknown counted as lost, then as won), the interval from the lower bound's low end to the "
        f"upper bound's high end. {record.positions:,} positions searched in all, in every run of the record.",
    ]
    resisting = _unknown(record, names, deals)
    if resisting:
        lines += [
            "",
            "Deals no search has decided (open problems):",
            "",
            "| preset | deal number | positions searched |",
            "|---|---:|---:|",
        ]
        lines += [f"| {outcome.variant} | {outcome.deal} | {outcome.budget:,} |" for outcome in resisting]
    claims = [(name, text, source) for name, text, source in CLAIMS if name in exact]
    if claims:
        lines += ["", "| claim | source | preset | greedy | exact |", "|---|---|---|---:|---:|"]
        lines += [f"| {text} | {source} | {name} | {greedy[name]} | {exact[name]} |" for name, text, source in claims]
    return "\n".join(lines)
