"""Gymnasium environment benchmark: steps a second on one core, in process, per preset.

Run: .venv/bin/python bench/gym_env.py [--steps 100000] [--rounds 3]
An agent picks uniformly among `info["legal_actions"]` (its own cost is counted: it is what any agent pays
at least); an episode that ends is reset with the next deal number. Prints the median of the rounds;
docs/performance.md states the goal (at least 20,000 steps a second).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.gym.env import OsmosisEnv
from server.rules import PRESETS


def steps_per_second(preset: str, steps: int, seed: int) -> tuple[float, int]:
    env, rng = OsmosisEnv(preset), random.Random(seed)
    _, info = env.reset(seed=seed)
    episodes, started = 1, time.perf_counter()
    for _ in range(steps):
        _, _, terminated, _, info = env.step(rng.choice(info["legal_actions"]))
        if terminated:
            _, info = env.reset(options={"deal_number": seed + episodes})  # no reseeding of the generator
            episodes += 1
    return steps / (time.perf_counter() - started), episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for preset in PRESETS:
        rates, episodes = [], 0
        for round_number in range(args.rounds):
            rate, played = steps_per_second(preset, args.steps, round_number * 1_000_000)
            rates.append(rate)
            episodes += played
        print(
            f"{preset:<22} {statistics.median(rates):>9,.0f} steps/s   ({args.rounds} rounds of {args.steps:,} "
            f"steps, {episodes:,} episodes)   (goal >= 20,000)"
        )


if __name__ == "__main__":
    main()
