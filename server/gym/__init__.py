"""A Gymnasium environment for bot authors (the `gym` extra: pip install 'osmosis-server[gym]').

Importing this package registers one id per preset: Osmosis-v0, OsmosisDrawOne-v0, OsmosisThreePasses-v0,
OsmosisStrictWaste-v0, OsmosisAblage-v0, Peek-v0, PeekTillDawn-v0, Bridesmaids-v0.
"""

from gymnasium.envs.registration import register, registry

from ..rules import PRESETS
from .env import OsmosisEnv

MAX_EPISODE_STEPS = 2000


def env_id(preset: str) -> str:
    return "".join(part.capitalize() for part in preset.split("-")) + "-v0"


ENV_IDS = {preset: env_id(preset) for preset in PRESETS}

for _preset, _id in ENV_IDS.items():
    if _id not in registry:
        register(
            id=_id,
            entry_point="server.gym.env:OsmosisEnv",
            kwargs={"preset": _preset},
            max_episode_steps=MAX_EPISODE_STEPS,
        )

__all__ = ["ENV_IDS", "MAX_EPISODE_STEPS", "OsmosisEnv", "env_id"]
