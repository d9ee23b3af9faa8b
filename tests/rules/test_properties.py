"""Properties that hold in every position of thousands of random playouts of every preset."""

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules import (
    DECK,
    PRESETS,
    Deal,
    GameOver,
    GameState,
    IllegalAction,
    Move,
    Redeal,
    Resign,
    apply,
    from_text,
    layout,
    legal_actions,
    numbered_opening,
    opening,
    preset,
    public_view,
    shuffled_deck,
    to_text,
)
from server.solver.players import play_greedy

GAMES_PER_PRESET = 500
MAX_ACTIONS = 5000
CARD_CODE = re.compile(r"\b[A2-9TJQK][CDHS]\b")


def all_cards(state: GameState) -> list:
    cards = [card for pile in state.reserves for card in pile]
    cards += [card for foundation in state.foundations for card in foundation]
    cards += [*state.stock, *state.waste]
    if state.cell is not None:
        cards.append(state.cell)
    return cards


def hidden_cards(state: GameState) -> set:
    hidden = set(state.stock)
    for p, pile in enumerate(state.reserves):
        hidden.update(pile[: state.face_down(p)])
    return hidden


def check_cheap_invariants(state: GameState) -> tuple:
    cards = all_cards(state)
    assert len(cards) == 52 and set(cards) == set(DECK), to_text(state)
    actions = legal_actions(state)
    assert bool(actions) != state.is_over, to_text(state)
    targets = [action.card for action in actions if isinstance(action, Move) and action.target.startswith("F")]
    assert len(targets) == len(set(targets)), f"a card with two foundations: {to_text(state)}"
    visible = set(CARD_CODE.findall(json.dumps(public_view(state))))
    assert not visible & {str(card) for card in hidden_cards(state)}, to_text(state)
    return actions


def check_every_action(state: GameState, actions: tuple) -> None:
    """Every legal action applies; every other action is refused and leaves the state as it was."""
    before = to_text(state)
    for action in actions:
        apply(state, action)
    legal_cards = {action.card for action in actions if isinstance(action, Move) and action.target != "cell"}
    for card in DECK:
        if card not in legal_cards:
            with pytest.raises(IllegalAction):
                apply(state, Move(card))
    for action in (Deal(), Redeal()):
        if action not in actions:
            with pytest.raises(IllegalAction):
                apply(state, action)
    assert to_text(state) == before


def random_playout(state: GameState, rng: random.Random, thorough: bool) -> GameState:
    for _ in range(MAX_ACTIONS):
        actions = check_cheap_invariants(state)
        if state.is_over:
            return state
        if thorough:
            check_every_action(state, actions)
        state = apply(state, rng.choice(actions))
    raise AssertionError(f"no end after {MAX_ACTIONS} actions: {to_text(state)}")


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESETS)
def test_random_playouts_keep_every_invariant_and_always_end(name):
    rules = preset(name)
    statuses = set()

    for number in range(GAMES_PER_PRESET):
        state = numbered_opening(rules, number)
        final = random_playout(state, random.Random(number), thorough=number % 100 == 0)
        statuses.add(final.status)
        with pytest.raises(GameOver):
            apply(final, Resign())

    assert "lost" in statuses


@pytest.mark.parametrize("name", PRESETS)
def test_greedy_playouts_end_and_some_are_won(name):
    rules = preset(name)

    finals = [play_greedy(numbered_opening(rules, n)) for n in range(400)]

    assert all(final.is_over for final in finals)
    assert any(final.status == "won" for final in finals)
    assert all(final.cards_on_foundations == 52 for final in finals if final.status == "won")


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(list(PRESETS)),
    server_seed=st.binary(min_size=32, max_size=32),
    client_seed=st.text(max_size=20),
    choices=st.randoms(use_true_random=False),
)
@pytest.mark.slow
def test_any_seeds_give_a_game_whose_positions_read_back_from_their_text(name, server_seed, client_seed, choices):
    rules = preset(name)
    state = opening(rules, layout(shuffled_deck(server_seed, client_seed), rules))

    while not state.is_over:
        check_cheap_invariants(state)
        assert from_text(to_text(state)) == state
        state = apply(state, choices.choice(legal_actions(state)))

    assert from_text(to_text(state)) == state
