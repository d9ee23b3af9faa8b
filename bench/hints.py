"""Hint speed per preset: time per hint (median, p95), arrangements judged, share answered exactly.

Run: .venv/bin/python bench/hints.py [--deals N] [--variant NAME ...] [--pure]
One process, one core. For each deal, a hint at the opening and one after a few random actions (seeded
by the deal number), each with the default budget. Prints figures and asserts nothing: compare figures
measured side by side in one run.
"""

import argparse
import random
import statistics
import time

from server.rules import (
    PRESETS,
    GameState,
    apply,
    legal_actions,
    numbered_opening,
)
from server.solver import use_compiled_search
from server.solver.hints import HINT_BUDGET, hint


def positions(name: str, number: int) -> list[GameState]:
    rules = PRESETS[name]
    state = numbered_opening(rules, number)
    found = [state]
    rng = random.Random(number)
    for _ in range(rng.randint(5, 30)):
        if state.outcome is not None:
            break
        state = apply(state, rng.choice(legal_actions(state)))
    if state.outcome is None:
        found.append(state)
    return found


def measure(name: str, deals: int) -> dict[str, float]:
    seconds, samples, exact = [], [], 0
    for number in range(deals):
        for state in positions(name, number):
            started = time.perf_counter()
            given = hint(state)
            seconds.append(time.perf_counter() - started)
            samples.append(given.samples)
            exact += given.basis == "exact"
    seconds.sort()
    return {
        "hints": len(seconds),
        "median_ms": 1000 * statistics.median(seconds),
        "p95_ms": 1000 * seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))],
        "max_ms": 1000 * seconds[-1],
        "median_samples": statistics.median(samples),
        "exact": exact / len(seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--variant", action="append", choices=list(PRESETS))
    parser.add_argument("--pure", action="store_true", help="run the pure modules, not the compiled search")
    args = parser.parse_args()
    engine = use_compiled_search(not args.pure)
    print(
        f"deals 0..{args.deals - 1} per preset, two positions each, budget {HINT_BUDGET:,} positions per hint; "
        f"search: {engine}"
    )
    print(f"{'preset':<22}{'hints':>6}{'median ms':>10}{'p95 ms':>8}{'max ms':>8}{'samples':>9}{'exact':>7}")
    for name in args.variant or list(PRESETS):
        f = measure(name, args.deals)
        print(
            f"{name:<22}{f['hints']:>6}{f['median_ms']:>10.0f}{f['p95_ms']:>8.0f}{f['max_ms']:>8.0f}"
            f"{f['median_samples']:>9.0f}{f['exact']:>7.0%}",
            flush=True,
        )


if __name__ == "__main__":
    main()
