"""Engine speed: actions per second (legal-action listing included) and greedy games per second.

Run: make bench   (or: .venv/bin/python bench/engine.py [--games N])
Single process, one core. Prints figures; it asserts nothing: these machines are shared and noisy, so
compare figures measured side by side in one run.
"""

import argparse
import random
import time

from server.rules import (
    PRESETS,
    apply,
    deal_number_seed,
    legal_actions,
    numbered_opening,
    preset,
    shuffled_deck,
)
from server.solver.players import play_greedy


def random_actions_per_second(name: str, games: int) -> tuple[int, float]:
    rules = preset(name)
    openings = [numbered_opening(rules, n) for n in range(games)]
    rng = random.Random(1)
    actions = 0
    started = time.perf_counter()
    for state in openings:
        while not state.is_over:
            state = apply(state, rng.choice(legal_actions(state)))
            actions += 1
    return actions, time.perf_counter() - started


def greedy_games_per_second(name: str, games: int) -> float:
    rules = preset(name)
    openings = [numbered_opening(rules, n) for n in range(games)]
    started = time.perf_counter()
    for state in openings:
        play_greedy(state)
    return games / (time.perf_counter() - started)


def deals_per_second(count: int) -> float:
    started = time.perf_counter()
    for n in range(count):
        shuffled_deck(deal_number_seed(n))
    return count / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per preset and measure")
    args = parser.parse_args()
    print(f"{'preset':<22} {'actions/s':>10} {'actions/game':>13} {'greedy games/s':>15}")
    for name in PRESETS:
        actions, seconds = random_actions_per_second(name, args.games)
        print(
            f"{name:<22} {actions / seconds:>10,.0f} {actions / args.games:>13.0f} "
            f"{greedy_games_per_second(name, args.games):>15,.0f}"
        )
    print(f"deals (shuffle) per second: {deals_per_second(2000):,.0f}")


if __name__ == "__main__":
    main()
