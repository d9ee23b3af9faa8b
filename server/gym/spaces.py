"""The environment's spaces: what an agent sees, and the numbered actions it may take.

The observation holds what the public view (rules.public_view, the one the API serves) holds, read straight from
the position for speed: never a face-down card, never the stock's order (tested as the API's views are).

    cards       for each of the 52 cards (rules.DECK's order): where it is in sight.
                0 out of sight (face down, or in the stock), 1-4 reserves R1-R4, 5 waste, 6 cell, 7-10 F1-F4
    depth       for each card in a reserve or the waste: how many cards lie on it (0: it is the top); else 0
    face_down   face-down cards under each reserve's face-up ones
    stock       cards in the stock
    live_waste  waste cards of the latest deal (the playable ones when only they are: osmosis-strict-waste)
    base_rank   the foundations' base rank, 0 (ace) to 12 (king)
    pass_number the current pass, from 1 (capped at MAX_PASSES; its space starts at 0, as Stable-Baselines3
                wants every discrete space to, and 0 never occurs)

Every discrete space starts at 0. Actions are numbered: card index * 5 + target for a move (targets F1-F4, then
the cell), then deal, redeal and resign. The mask in `info["action_mask"]` marks the legal ones but resign
(env.py says why, and how to offer it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ..rules import DECK, FOUNDATIONS, RANK_CODES, Action, Deal, GameState, Move, Place, Redeal, Resign

HIDDEN, WASTE, CELL = 0, 5, 6
_RESERVE = {f"R{p + 1}": 1 + p for p in range(4)}
_FOUNDATION = 7
TARGETS = (*FOUNDATIONS, Place.CELL)
MOVES = len(DECK) * len(TARGETS)
DEAL, REDEAL, RESIGN = MOVES, MOVES + 1, MOVES + 2
ACTIONS = MOVES + 3
MAX_PASSES = 1000
_TARGET = {target: t for t, target in enumerate(TARGETS)}
_INDEX = {card.code: card.index for card in DECK}


def observation_space() -> spaces.Dict:
    return spaces.Dict(
        {
            "cards": spaces.MultiDiscrete(np.full(len(DECK), 11, dtype=np.int64)),
            "depth": spaces.Box(0, len(DECK) - 1, shape=(len(DECK),), dtype=np.int64),
            "face_down": spaces.Box(0, 3, shape=(4,), dtype=np.int64),
            "stock": spaces.Discrete(len(DECK) + 1),
            "live_waste": spaces.Discrete(len(DECK) + 1),
            "base_rank": spaces.Discrete(13),
            "pass_number": spaces.Discrete(MAX_PASSES + 1),
        }
    )


def observe(state: GameState) -> dict[str, Any]:
    """What a player sees of `state`: it reads the face-up part of each reserve, the waste, the cell and the
    foundations, and only the number of face-down and stock cards (tests/gym checks that states differing
    only in hidden cards give equal observations, and that every observation agrees with the public view)."""
    cards = [HIDDEN] * len(DECK)
    depth = [0] * len(DECK)
    face_down = [0, 0, 0, 0]
    for p, pile in enumerate(state.reserves):
        hidden = face_down[p] = state.face_down(p)
        top, place = len(pile) - 1, 1 + p
        for at in range(hidden, top + 1):
            index = pile[at].index
            cards[index] = place
            depth[index] = top - at
    top = len(state.waste) - 1
    for at, card in enumerate(state.waste):
        cards[card.index] = WASTE
        depth[card.index] = top - at
    if state.cell is not None:
        cards[state.cell.index] = CELL
    for place, foundation in enumerate(state.foundations, start=_FOUNDATION):
        for card in foundation:
            cards[card.index] = place
    return _observation(
        cards, depth, face_down, len(state.stock), state.live_waste, state.base_rank - 1, state.pass_number
    )


def observe_view(view: dict[str, Any]) -> dict[str, Any]:
    """The observation of a public view as the API serves it (a remote game's): the same as `observe` gives
    of the position in view."""
    cards = [HIDDEN] * len(DECK)
    depth = [0] * len(DECK)
    places = [(1 + p, pile["face_up"]) for p, pile in enumerate(view["reserves"])] + [(WASTE, view["waste"])]
    for place, codes in places:
        for below, code in enumerate(reversed(codes)):
            cards[_INDEX[code]], depth[_INDEX[code]] = place, below
    if view["cell"] is not None:
        cards[_INDEX[view["cell"]]] = CELL
    for place, foundation in enumerate(view["foundations"], start=_FOUNDATION):
        for code in foundation["cards"]:
            cards[_INDEX[code]] = place
    face_down = [pile["face_down"] for pile in view["reserves"]]
    return _observation(
        cards,
        depth,
        face_down + [0] * (4 - len(face_down)),
        view["stock_count"],
        view["live_waste"],
        RANK_CODES.index(view["base_rank"]),
        view["pass_number"],
    )


def _observation(
    cards: list[int],
    depth: list[int],
    face_down: list[int],
    stock: int,
    live_waste: int,
    base_rank: int,
    pass_number: int,
) -> dict[str, Any]:
    both = np.array(cards + depth, dtype=np.int64)  # one array made, two views of it
    return {
        "cards": both[: len(DECK)],
        "depth": both[len(DECK) :],
        "face_down": np.array(face_down, dtype=np.int64),
        "stock": stock,
        "live_waste": live_waste,
        "base_rank": base_rank,
        "pass_number": min(pass_number, MAX_PASSES),
    }


def index_of(action: Action) -> int:
    if isinstance(action, Move):
        assert action.target is not None, "legal actions name their target"
        return action.card.index * len(TARGETS) + _TARGET[action.target]
    if isinstance(action, Deal):
        return DEAL
    if isinstance(action, Redeal):
        return REDEAL
    return RESIGN


def action_of(index: int) -> Action:
    """The action numbered `index` (whether it is legal is the engine's to say)."""
    if index < MOVES:
        return Move(DECK[index // len(TARGETS)], None, TARGETS[index % len(TARGETS)])
    return (Deal(), Redeal(), Resign())[index - MOVES]
