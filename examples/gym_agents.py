"""Two agents on the Gymnasium environment, in vectorised environments: a random one and the greedy one of
`osmosis simulate` (docs/rules.md), written against observations and action masks alone. Prints their win
rates on deals FIRST to FIRST + GAMES - 1, beside `osmosis simulate`'s for the same deals: they are equal.

Run: .venv/bin/python examples/gym_agents.py [--preset osmosis] [--games 200] [--first-deal 0] [--envs 8]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.gym import env_id
from server.gym.spaces import CELL, DEAL, REDEAL, RESIGN, WASTE
from server.rules import numbered_opening, preset
from server.solver.players import play_greedy, play_random

SWEEP = (1, 2, 3, 4, CELL, WASTE)
"""The greedy sweep: each reserve's top card, then the cell's, then the waste's top (observation place codes)."""


class RandomAgent:
    """Uniform among the legal actions, in the engine's order, by a generator seeded with the deal number."""

    def __init__(self, deal_number: int) -> None:
        self.rng = random.Random(deal_number)

    def act(self, observation: dict, info: dict) -> int:
        return int(self.rng.choice(info["legal_actions"]))


class GreedyAgent:
    """The greedy policy: sweep the tops to the foundations while any plays, then deal, else redeal after a
    pass that played, else resign. It keeps what it needs (the sweep under way, whether this pass played)."""

    def __init__(self, deal_number: int) -> None:
        self.queue, self.played_in_sweep, self.played_this_pass = list(SWEEP), False, False

    def act(self, observation: dict, info: dict) -> int:
        legal = set(info["legal_actions"])
        while self.queue or self.played_in_sweep:
            if not self.queue:
                self.queue, self.played_in_sweep = list(SWEEP), False
            place = self.queue.pop(0)
            on_top = np.flatnonzero((observation["cards"] == place) & (observation["depth"] == 0))
            for card in on_top:
                for target in range(4):  # F1..F4: the one the rules give the card, if it can go
                    if card * 5 + target in legal:
                        self.played_in_sweep = self.played_this_pass = True
                        return int(card * 5 + target)
        self.queue = list(SWEEP)
        if DEAL in legal:
            return DEAL
        if self.played_this_pass and REDEAL in legal:
            self.played_this_pass = False
            return REDEAL
        return RESIGN


def win_rate(agent_type: type, preset_name: str, deals: list[int], envs: int) -> list[int]:
    """The deals the agent won, played `envs` at a time in a synchronous vector environment."""
    won = []
    vector = gym.make_vec(f"server.gym:{env_id(preset_name)}", num_envs=envs, vectorization_mode="sync")
    for start in range(0, len(deals), envs):
        batch = deals[start : start + envs]
        seeds = batch + [batch[-1]] * (envs - len(batch))  # a short last batch: the spare envs repeat a deal
        observations, infos = vector.reset(seed=seeds)
        agents = [agent_type(deal) for deal in seeds]
        done = [i >= len(batch) for i in range(envs)]  # the spare envs of a short batch only resign
        while not all(done):
            actions = []
            for i, agent in enumerate(agents):
                observation = {key: value[i] for key, value in observations.items()}
                info = {"legal_actions": infos["legal_actions"][i]}
                actions.append(RESIGN if done[i] else agent.act(observation, info))
            observations, _, terminated, truncated, infos = vector.step(np.array(actions))
            for i in range(envs):
                if not done[i] and (terminated[i] or truncated[i]):
                    done[i] = True
                    if infos["status"][i] == "won":
                        won.append(batch[i])
    vector.close()
    return sorted(won)


def simulated(preset_name: str, deals: list[int], policy: str) -> list[int]:
    rules = preset(preset_name)
    won = []
    for number in deals:
        state = numbered_opening(rules, number)
        final = play_greedy(state) if policy == "greedy" else play_random(state, random.Random(number))
        if final.status == "won":
            won.append(number)
    return won


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="osmosis")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--envs", type=int, default=8)
    args = parser.parse_args()
    deals = list(range(args.first_deal, args.first_deal + args.games))
    for name, agent_type in (("random", RandomAgent), ("greedy", GreedyAgent)):
        won = win_rate(agent_type, args.preset, deals, args.envs)
        reference = simulated(args.preset, deals, name)
        print(
            f"{name:<7} agent  {len(won)}/{len(deals)} won ({len(won) / len(deals):.1%});   "
            f"osmosis simulate --policy {name}: {len(reference)}/{len(deals)}"
            f"{'   the same deals' if won == reference else '   DIFFERENT deals'}"
        )


if __name__ == "__main__":
    main()
