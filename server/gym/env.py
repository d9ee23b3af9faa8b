"""OsmosisEnv: one deal of a preset per episode, played through the rules engine in this process, or, given a
server's URL, as a real game on that server (each episode then in its log, verifiable afterwards).

    env = gymnasium.make("Osmosis-v0")
    observation, info = env.reset(seed=42)              # deal number 42: the server's deal 42, shareable
    mask = info["action_mask"]                            # which of the numbered actions to choose from
    observation, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))

Rewards: +1 for each card that reaches a foundation, +WIN_BONUS more on the win. The episode terminates
when the game is over (won, lost by the rules, resigned) and is truncated by gymnasium.make's step limit.
An action the rules refuse changes nothing, earns nothing and is named in `info["refused"]`. There is no undo in
the action space: an episode is one line of play, and an agent that could take a deal back would learn to peek.

The mask (`info["action_mask"]`, and `action_masks()` for MaskablePPO and its kind) marks the legal actions but
resigning: resigning is always legal, earns nothing and ends the episode, so an agent sampling from a mask that
offers it learns to give up. `resign_in_mask=True` offers it. Once the game is over the mask holds resigning
alone (a step then changes nothing), so that it is never all zeros: a vector environment that resets on the next
step samples an action from it first.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..rules import MAX_DEAL_NUMBER
from ..rules import preset as preset_rules
from .games import Game, LocalGame
from .remote import RemoteGame
from .spaces import ACTIONS, RESIGN, observation_space

WIN_BONUS = 52.0


class OsmosisEnv(gym.Env[dict[str, Any], np.int64]):
    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 -- gymnasium's own attribute

    def __init__(
        self,
        preset: str = "osmosis",
        render_mode: str | None = None,
        server: str | None = None,
        timeout: float = 30.0,
        resign_in_mask: bool = False,
    ) -> None:
        """`server`: play each episode as a real game on that server (its base URL) instead of in process;
        `timeout`: seconds each request to it may take in all; `resign_in_mask`: offer resigning in the mask."""
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode is 'ansi' or None, not {render_mode!r}")
        preset_rules(preset)  # an unknown preset is refused here, not at the first reset
        self.preset = preset
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(ACTIONS)
        self._game: Game = RemoteGame(server, preset, timeout) if server is not None else LocalGame(preset)
        self._resign_in_mask = resign_in_mask
        self._started = False
        self._deal_number = 0
        self._home = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
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
        self._game.start(number)
        self._started = True
        self._home = self._game.cards_home
        return self._game.observation(), self._info()

    def step(self, action: np.int64 | int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        refused = self._game.act(int(action))
        home = self._game.cards_home
        won = self._game.status == "won"
        reward = float(home - self._home) + (WIN_BONUS if won else 0.0)
        self._home = home
        info = self._info()
        if refused is not None:
            info["refused"] = refused
        return self._game.observation(), reward, self._game.status != "playing", False, info

    def render(self) -> str | None:
        if self.render_mode != "ansi" or not self._started:
            return None
        return self._game.text() + "\n"

    def action_masks(self) -> np.ndarray:
        """The mask of the current position as booleans (what sb3-contrib's MaskablePPO asks an environment for)."""
        return self._mask(self._game.legal()).astype(bool)

    @property
    def deal_number(self) -> int:
        return self._deal_number

    @property
    def game_id(self) -> str | None:
        """With a server: the id of the episode's game there, to fetch its replay and verify it (it is not in
        `info`, which Gymnasium wants the same for the same deal and actions)."""
        return self._game.game_id if self._started else None

    def _info(self) -> dict[str, Any]:
        legal = self._game.legal()
        return {
            "action_mask": self._mask(legal),
            "legal_actions": legal,
            "deal_number": self._deal_number,
            "status": self._game.status,
            "cards_home": self._home,
        }

    def _mask(self, legal: list[int]) -> np.ndarray:
        mask = np.zeros(ACTIONS, dtype=np.int8)
        if self._game.status == "playing":
            mask[legal] = 1
            mask[RESIGN] = self._resign_in_mask
        else:
            mask[RESIGN] = 1  # never all zeros: on a game over, a step of it changes nothing
        return mask
