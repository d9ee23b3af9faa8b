"""Hints: made only of what the player has seen, exact when nothing is unseen, bounded by their budget."""

import dataclasses
import random

import pytest

from server.rules import (
    DECK,
    PRESETS,
    Deal,
    GameOver,
    GameState,
    Redeal,
    Resign,
    action_to_dict,
    apply,
    legal_actions,
)
from server.solver import SOLVER_VERSION, Verdict, solve
from server.solver.hints import MAX_SAMPLES, SAMPLE_BUDGET, SeenPosition, hint
from server.solver.players import play_greedy
from tests.solver.test_solver import ALL_RULES, dealt

SMALL = 12 * SAMPLE_BUDGET
"""Enough for several arrangements of every preset's openings, small enough for many positions."""
TINY = 3 * SAMPLE_BUDGET
"""An arrangement or two: the leak test compares many positions."""


def positions(rules, number, rng, count=4):
    """The opening and a few positions after random actions, all still being played."""
    state = dealt(rules, number)
    found = [state]
    while len(found) < count and state.outcome is None:
        for _ in range(rng.randint(1, 8)):
            if state.outcome is not None:
                break
            state = apply(state, rng.choice(legal_actions(state)))
        if state.outcome is None:
            found.append(state)
    return found


def unseen_places(state):
    """Where the cards the player has not seen lie: the stock in the first pass, the face-down cards."""
    places = [("stock", i) for i in range(len(state.stock))] if state.pass_number == 1 else []
    places += [(p, i) for p in range(len(state.reserves)) for i in range(state.face_down(p))]
    return places


def rearranged(state, rng):
    """The same position with its unseen cards shuffled among their places: a deal the player cannot tell
    apart from this one."""
    places = unseen_places(state)
    cards = [state.stock[i] if p == "stock" else state.reserves[p][i] for p, i in places]
    rng.shuffle(cards)
    stock, reserves = list(state.stock), [list(pile) for pile in state.reserves]
    for (p, i), card in zip(places, cards, strict=True):
        if p == "stock":
            stock[i] = card
        else:
            reserves[p][i] = card
    return dataclasses.replace(state, stock=tuple(stock), reserves=tuple(tuple(pile) for pile in reserves))


@pytest.mark.parametrize("name", ALL_RULES)
def test_two_deals_that_differ_only_in_unseen_cards_get_the_same_hint(name):
    rng = random.Random(f"hint-leak-{name}")
    differed = 0
    for number in range(3):
        for state in positions(ALL_RULES[name], number, rng, count=3):
            other = rearranged(state, rng)
            differed += other != state
            assert hint(other, TINY) == hint(state, TINY), (name, number)
    assert differed >= 6, "the test must compare deals that really differ"


def test_the_hint_does_change_with_what_the_player_sees():
    """The leak test above would pass for a hint that ignores the position: this one shows it does not."""
    answers = {repr(hint(dealt(PRESETS["osmosis-draw-one"], number), SMALL).to_dict()["estimates"])
               for number in range(6)}
    assert len(answers) > 1


@pytest.mark.parametrize("name", ALL_RULES)
def test_an_estimate_judges_every_legal_action_on_the_same_arrangements_within_its_budget(name):
    rng = random.Random(f"hint-estimate-{name}")
    for state in positions(ALL_RULES[name], 7, rng, count=3):
        given = hint(state, SMALL)
        if given.basis != "estimate":
            continue
        judged = [estimate.action for estimate in given.estimates]
        fruitless_redeal = [] if state.played_this_pass or len(legal_actions(state)) == 1 else [Redeal()]
        assert sorted(map(str, judged)) == sorted(map(str, [action for action in legal_actions(state)
                                                             if action not in fruitless_redeal]))
        assert given.action == judged[0]
        assert 1 <= given.samples <= MAX_SAMPLES
        assert all(estimate.wins + estimate.unknown <= given.samples for estimate in given.estimates)
        ranked = [(estimate.wins, estimate.unknown) for estimate in given.estimates]
        assert ranked == sorted(ranked, reverse=True)
        assert given.nodes <= given.budget == SMALL
        assert given.unseen == len(unseen_places(state))


def test_each_arrangement_keeps_every_seen_card_in_place_and_deals_out_the_whole_deck():
    rng = random.Random(5)
    state = positions(PRESETS["osmosis"], 3, rng)[-1]
    seen = SeenPosition.of(state)
    assert sorted(map(str, seen.unseen_cards)) == sorted(
        str(state.stock[i] if p == "stock" else state.reserves[p][i]) for p, i in unseen_places(state))
    for _ in range(5):
        arranged = seen.arranged(rng)
        cards = [*arranged.stock, *arranged.waste, *(c for pile in arranged.reserves for c in pile),
                 *(c for foundation in arranged.foundations for c in foundation)]
        assert sorted(map(str, cards + ([arranged.cell] if arranged.cell else []))) == sorted(map(str, DECK))
        assert arranged.waste == state.waste and arranged.foundations == state.foundations
        for p, pile in enumerate(arranged.reserves):
            assert pile[state.face_down(p):] == state.reserves[p][state.face_down(p):]


def after_first_pass(state: GameState) -> GameState:
    """Deal through the whole stock, then redeal (if the game goes on): every card of a face-up deal has
    been seen."""
    while state.stock:
        state = apply(state, Deal())
    return state if state.outcome is not None else apply(state, legal_actions(state)[-1])


def test_once_the_player_has_seen_every_card_the_hint_is_the_solvers_exact_best_action():
    exact = {verdict: 0 for verdict in Verdict}
    for number in range(40):
        state = dealt(PRESETS["peek"], number)
        state = after_first_pass(state)
        if state.outcome is not None:
            continue
        given = hint(state, SMALL)
        assert (given.basis, given.unseen, given.estimates) == ("exact", 0, ())
        assert given.verdict is solve(state, SMALL).verdict
        exact[given.verdict] += 1
        if given.verdict is Verdict.WINNABLE:
            after = apply(state, given.action)
            assert solve(after, SMALL).verdict is Verdict.WINNABLE, number
        else:
            assert given.action is None
    assert exact[Verdict.WINNABLE] and exact[Verdict.UNWINNABLE]


def test_a_hint_is_whole_numbers_and_names_the_solver():
    given = hint(dealt(PRESETS["osmosis"], 11), SMALL).to_dict()

    def numbers(value):
        if isinstance(value, dict):
            return [n for item in value.values() for n in numbers(item)]
        if isinstance(value, list):
            return [n for item in value for n in numbers(item)]
        return [value] if isinstance(value, int | float) and not isinstance(value, bool) else []

    assert given["solver"] == SOLVER_VERSION
    assert all(isinstance(number, int) for number in numbers(given))
    assert given["action"] in [action_to_dict(action) for action in legal_actions(dealt(PRESETS["osmosis"], 11))]


def test_a_finished_game_gets_no_hint():
    state = dealt(PRESETS["osmosis"], 1)
    with pytest.raises(GameOver):
        hint(apply(state, Resign()))
    with pytest.raises(GameOver):
        hint(play_greedy(state))


def test_a_player_taking_every_hint_never_goes_round_the_stock_for_nothing():
    """The engine lets a player redeal after a pass in which nothing was played while a card could be: the
    next pass is then the same as this one. A hint of /2 never asks for that when anything else is legal,
    so a player who takes every hint makes progress (osmosis-draw-one deal 72 went round for ever under
    hints that preferred the deal's undecided arrangements)."""
    state = dealt(PRESETS["osmosis-draw-one"], 72)
    for _ in range(600):
        if state.outcome is not None:
            break
        legal = legal_actions(state)
        given = hint(state) if len(legal) > 1 else None
        action = legal[0] if given is None else given.action or Resign()
        if isinstance(action, Redeal):
            assert state.played_this_pass or legal == (Redeal(),), state
        state = apply(state, action)
    assert state.outcome is not None, "the game should be over within 600 actions"
