"""OsmosisEnv: one deal of a preset per episode, played through the rules engine in this process.

    env = gymnasium.make("Osmosis-v0")
    observation, info = env.reset(seed=42)              # deal number 42: the server's deal 42, shareable
    mask = info["action_mask"]                            # which of the numbered actions are legal
    observation, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))

Rewards: +1 for each card that reaches a foundation, +WIN_BONUS more on the win. The episode terminates
when the game is over (won, lost by the rules, resigned) and is truncated by gymnasium.make's step limit.
An action the rules refuse changes nothing, earns nothing and is named in `info["refused"]`.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..rules import (
    MAX_DEAL_NUMBER,
    GameState,
    RulesError,
    apply,
    deal_number_seed,
    layout,
    legal_actions,
    opening,
    public_text,
    shuffled_deck,
)
from ..rules import preset as preset_rules
from .spaces import ACTIONS, RESIGN, action_of, index_of, observation_space, observe

WIN_BONUS = 52.0


class OsmosisEnv(gym.Env[dict[str, Any], np.int64]):
    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 -- gymnasium's own attribute

    def __init__(self, preset: str = "osmosis", render_mode: str | None = None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode is 'ansi' or None, not {render_mode!r}")
        self.preset = preset
        self.rules = preset_rules(preset)
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(ACTIONS)
        self._state: GameState | None = None
        self._deal_number = 0
        self._home = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """`seed` is the deal number (0 to 2**53 - 1), so an episode can be replayed and shared; without one
        the deal is drawn from the environment's generator. `options={"deal_number": n}` says it directly."""
        super().reset(seed=seed)
        if options and "deal_number" in options:
            number = int(options["deal_number"])
        elif seed is not None:
            number = seed
        else:
            number = int(self.np_random.integers(0, MAX_DEAL_NUMBER, endpoint=True))
        if not 0 <= number <= MAX_DEAL_NUMBER:
            raise ValueError(f"a deal number runs from 0 to {MAX_DEAL_NUMBER}, not {number}")
        self._deal_number = number
        self._state = opening(self.rules, layout(shuffled_deck(deal_number_seed(number)), self.rules))
        self._home = self._state.cards_on_foundations
        return self._observation(), self._info()

    def step(self, action: np.int64 | int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        state = self._playing()
        refused = None
        try:
            after = apply(state, action_of(int(action)))
        except RulesError as error:
            after, refused = state, str(error)
        self._state = after
        home = after.cards_on_foundations
        reward = float(home - self._home) + (WIN_BONUS if after.status == "won" else 0.0)
        self._home = home
        info = self._info()
        if refused is not None:
            info["refused"] = refused
        return self._observation(), reward, after.is_over, False, info

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._state is None:
            return None
        return public_text(self._state) + "\n"

    @property
    def deal_number(self) -> int:
        return self._deal_number

    def _playing(self) -> GameState:
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        return self._state

    def _observation(self) -> dict[str, Any]:
        return observe(self._playing())

    def _info(self) -> dict[str, Any]:
        state = self._playing()
        legal = [index_of(action) for action in legal_actions(state)]
        mask = np.zeros(ACTIONS, dtype=np.int8)
        if not state.is_over:
            mask[legal] = 1
            mask[RESIGN] = 1
        return {"action_mask": mask, "legal_actions": legal, "deal_number": self._deal_number,
                "status": state.status.value, "cards_home": self._home}
