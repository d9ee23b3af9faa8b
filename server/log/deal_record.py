"""A game's deal record (`deal` in its first event and its document): which of its seeds' deals it is.

Every reader of a game's opening goes through here: the verifier, time travel, analyses. A winnable deal is
a later candidate of the same seeds (docs/rules.md, "Winnable deals").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..rules import GameState, Rules
from ..solver.winnable import candidate_opening


def game_opening(rules: Rules, server_seed: bytes, client_seed: str, deal: Mapping[str, Any]) -> GameState:
    """The opening of a game from its seeds and its `deal` record: its winnable candidate, if it has one."""
    winnable = deal.get("winnable")
    candidate = winnable["candidate"] if isinstance(winnable, Mapping) else 0
    return candidate_opening(rules, server_seed, client_seed, candidate)
