"""Solver speed per preset: time per deal (median, p95, p99), positions per second, share decided.

Run: .venv/bin/python bench/solver.py [--deals N] [--budget NODES] [--variant NAME ...] [--pure]
                                      [--solver osmosis-solver/1]
One process, one core; the compiled search if it is built (docs/solver.md), the pure modules with --pure.
Prints figures and asserts nothing: these machines are shared and noisy, so compare figures measured side
by side in one run. The goals (issue "Solver 2"): at least 99% of deals 0..999 of every preset decided
within 2 s each; a draw-three median under 50 ms; every draw-one deal decided, median under 1 ms.
"""

import argparse
import statistics
import time

from server.rules import PRESETS, numbered_opening
from server.solver import DEFAULT_BUDGET, SOLVER_VERSION, SOLVERS, Verdict, solve, use_compiled_search


def measure(name: str, deals: int, budget: int, solver: str) -> dict[str, float]:
    rules = PRESETS[name]
    seconds: list[float] = []
    nodes = 0
    verdicts = dict.fromkeys(Verdict, 0)
    within_two_seconds = 0
    for number in range(deals):
        state = numbered_opening(rules, number)
        started = time.perf_counter()
        solution = solve(state, budget, solver)
        elapsed = time.perf_counter() - started
        seconds.append(elapsed)
        nodes += solution.nodes
        verdicts[solution.verdict] += 1
        within_two_seconds += solution.verdict is not Verdict.UNKNOWN and elapsed <= 2.0
    seconds.sort()
    return {
        "median_ms": 1000 * statistics.median(seconds),
        "p95_ms": 1000 * seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))],
        "p99_ms": 1000 * seconds[min(len(seconds) - 1, int(0.99 * len(seconds)))],
        "nodes_per_second": nodes / sum(seconds),
        "decided": 1 - verdicts[Verdict.UNKNOWN] / deals,
        "decided_within_2s": within_two_seconds / deals,
        "winnable": verdicts[Verdict.WINNABLE] / deals,
        "unwinnable": verdicts[Verdict.UNWINNABLE] / deals,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--variant", action="append", choices=list(PRESETS))
    parser.add_argument("--pure", action="store_true", help="run the pure modules, not the compiled search")
    parser.add_argument("--solver", choices=SOLVERS, default=SOLVER_VERSION)
    args = parser.parse_args()
    engine = use_compiled_search(not args.pure)
    print(f"deals 0..{args.deals - 1} per preset, budget {args.budget:,} positions; {args.solver}; search: {engine}")
    print(
        f"{'preset':<22}{'median ms':>10}{'p95 ms':>10}{'p99 ms':>10}{'pos/s':>10}{'decided':>9}{'<=2 s':>8}"
        f"{'winnable':>10}{'unwinnable':>11}"
    )
    for name in args.variant or list(PRESETS):
        figures = measure(name, args.deals, args.budget, args.solver)
        print(
            f"{name:<22}{figures['median_ms']:>10.1f}{figures['p95_ms']:>10.0f}{figures['p99_ms']:>10.0f}"
            f"{figures['nodes_per_second']:>10,.0f}"
            f"{figures['decided']:>9.1%}{figures['decided_within_2s']:>8.1%}{figures['winnable']:>10.1%}"
            f"{figures['unwinnable']:>11.1%}",
            flush=True,
        )


if __name__ == "__main__":
    main()
