"""Automatic players, for simulations, benchmarks and property tests.

The greedy policy is defined exactly (issue "Rules engine"), so that win rates are comparable:

    repeat {
        sweep R1, R2, R3, R4 in that order, playing each pile's top card if it has a legal foundation
        (at most one card per pile per sweep); then the cell's card; then the waste's top (one card)
    } while anything was played
    then deal if the stock is not empty, else redeal if the rules allow; stop when the game is over.

It never moves a card to the cell, and resigns when a whole pass brought no play (which matters only
where the rules still allow a move to the cell, since otherwise the engine has already ended the game).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..rules import (
    FOUNDATIONS,
    RESERVES,
    Action,
    Card,
    Deal,
    GameState,
    Move,
    Place,
    Redeal,
    Resign,
    apply,
    can_redeal,
    foundation_for,
    legal_actions,
    waste_top_is_playable,
)


def play_greedy(state: GameState) -> GameState:
    """Play the greedy policy from `state` to the end of the game."""
    while state.outcome is None:
        state = _greedy_sweeps(state)
        if state.outcome is not None:
            break
        if state.stock:
            state = apply(state, Deal())
        elif state.played_this_pass and can_redeal(state):
            state = apply(state, Redeal())
        else:
            # A fruitless pass, or no redeal left while only a move to the cell (never made) remains.
            state = apply(state, Resign())
    return state


def _greedy_sweeps(state: GameState) -> GameState:
    played = True
    while played and state.outcome is None:
        played = False
        for p in range(len(state.reserves)):
            pile = state.reserves[p]
            if pile:
                state, moved = _play_if_possible(state, RESERVES[p], pile[-1])
                played |= moved
        if state.cell is not None:
            state, moved = _play_if_possible(state, Place.CELL, state.cell)
            played |= moved
        if waste_top_is_playable(state):
            state, moved = _play_if_possible(state, Place.WASTE, state.waste[-1])
            played |= moved
    return state


def _play_if_possible(state: GameState, source: Place, card: Card) -> tuple[GameState, bool]:
    if state.outcome is not None:
        return state, False
    k = foundation_for(state, card)
    if k is None:
        return state, False
    return apply(state, Move(card, source, FOUNDATIONS[k])), True


def play_first_legal(state: GameState) -> GameState:
    """The first legal move in legal_actions' order (reserves R1..R4, waste, cell), else deal or redeal.

    What a player does who clicks the first lit card, else the stock; tests use it to pick deals that
    such clicking wins or loses.
    """
    while state.outcome is None:
        actions = legal_actions(state)
        moves = [action for action in actions if isinstance(action, Move)]
        state = apply(state, moves[0] if moves else next(a for a in actions if isinstance(a, Deal | Redeal)))
    return state


def random_policy(rng: random.Random) -> Callable[[GameState], Action]:
    """A player that picks uniformly among the legal actions (never resigning)."""

    def choose(state: GameState) -> Action:
        return rng.choice(legal_actions(state))

    return choose


def play_random(state: GameState, rng: random.Random) -> GameState:
    """Play uniformly random legal actions from `state` to the end of the game."""
    choose = random_policy(rng)
    while state.outcome is None:
        state = apply(state, choose(state))
    return state
