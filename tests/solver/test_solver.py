"""The solver against the rules engine: witnesses that win, verdicts a brute force agrees with."""

import dataclasses
import random

import pytest

from server.rules import (
    PRESETS,
    Deal,
    GameState,
    Move,
    Redeal,
    Rules,
    StartRule,
    WasteAccess,
    apply,
    legal_actions,
    numbered_opening,
)
from server.solver import MAX_BUDGET, SOLVER_VERSION, Verdict, solve
from server.solver.plans import plans_of, viable_plans
from server.solver.players import play_greedy

CUSTOM_RULES = {
    "group waste, draw one": Rules(draw=1, waste_access=WasteAccess.GROUP),
    "no reserves, draw one, two passes": Rules(reserve_piles=0, reserve_face_down=0, draw=1, max_passes=2),
    "cell, draw one, two passes": Rules(draw=1, max_passes=2, free_cells=1),
    "rank above, face down, three passes": Rules(start_rule=StartRule.RANK_ABOVE, max_passes=3),
    "cell, group waste, unlimited": Rules(free_cells=1, waste_access=WasteAccess.GROUP),
}
ALL_RULES = {**PRESETS, **CUSTOM_RULES}
QUICK = 20_000


def dealt(rules: Rules, number: int) -> GameState:
    return numbered_opening(rules, number)


def replay(state: GameState, actions) -> GameState:
    for action in actions:
        state = apply(state, action)
    return state


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_RULES)
def test_every_witness_wins_and_every_greedy_win_is_winnable(name):
    rules = ALL_RULES[name]
    verdicts = set()
    for number in range(40):
        state = dealt(rules, number)
        solution = solve(state, QUICK)
        verdicts.add(solution.verdict)
        assert solution.solver == SOLVER_VERSION and solution.budget == QUICK
        assert solution.nodes <= QUICK
        if solution.verdict is Verdict.WINNABLE:
            assert replay(state, solution.witness).status == "won", (name, number)
        else:
            assert solution.witness == ()
        if play_greedy(state).status == "won":
            assert solution.verdict is not Verdict.UNWINNABLE, (name, number)
    assert Verdict.WINNABLE in verdicts, name


def brute_force(state: GameState) -> bool:
    """Whether any sequence of the engine's legal actions wins: every position, no shortcut."""
    unlimited = state.rules.max_passes is None
    seen = set()
    stack = [state]
    while stack:
        position = stack.pop()
        if position.status == "won":
            return True
        key = dataclasses.replace(position, pass_number=1) if unlimited else position
        if key in seen:
            continue
        seen.add(key)
        stack.extend(apply(position, action) for action in legal_actions(position))
    return False


def endgames(rules: Rules, count: int, cards_left: int, rng: random.Random):
    """Positions with few cards left: along a solver's win, then a few random actions astray, and every
    other one with its cards not yet home shuffled among their places, so that some stay winnable and
    some do not."""
    found = 0
    for number in range(400):
        start = dealt(rules, number)
        solution = solve(start, QUICK)
        if solution.verdict is not Verdict.WINNABLE:
            continue
        state = start
        for action in solution.witness:
            if 52 - state.cards_on_foundations <= cards_left:
                break
            state = apply(state, action)
        for _ in range(rng.randrange(0, 40)):
            actions = legal_actions(state)
            if not actions:
                break
            state = apply(state, rng.choice(actions))
        yield rearranged(state, rng) if found % 2 else state
        found += 1
        if found == count:
            return


def rearranged(state: GameState, rng: random.Random) -> GameState:
    """The same position with the cards off the foundations dealt at random into the same places."""
    cards = [card for pile in state.reserves for card in pile] + list(state.waste) + list(state.stock)
    cards += [state.cell] if state.cell is not None else []
    rng.shuffle(cards)
    taken = iter(cards)
    reserves = tuple(tuple(next(taken) for _ in pile) for pile in state.reserves)
    waste = tuple(next(taken) for _ in state.waste)
    stock = tuple(next(taken) for _ in state.stock)
    cell = next(taken) if state.cell is not None else None
    return dataclasses.replace(state, reserves=reserves, waste=waste, stock=stock, cell=cell)


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_RULES)
def test_verdicts_agree_with_a_brute_force_on_endgames(name):
    rules = ALL_RULES[name]
    rng = random.Random(name)
    outcomes = set()
    for state in endgames(rules, 25, 14, rng):
        expected = brute_force(state)
        solution = solve(state, MAX_BUDGET)
        assert solution.verdict is (Verdict.WINNABLE if expected else Verdict.UNWINNABLE), (name, state)
        if expected:
            assert replay(state, solution.witness).status == "won"
        outcomes.add(expected)
    assert outcomes == {True, False}, f"{name}: the endgames should include both verdicts"


def test_a_deal_dead_under_every_plan_is_unwinnable_at_once_and_a_cell_kills_no_plan():
    rules = PRESETS["osmosis"]
    dead = next(state for state in (dealt(rules, n) for n in range(100)) if not viable_plans(state))
    assert len(plans_of(dead)) == 6
    assert (solve(dead, 1).verdict, solve(dead, 1).nodes) == (Verdict.UNWINNABLE, 1)
    cell_rules = PRESETS["osmosis-ablage"]
    assert viable_plans(dealt(cell_rules, 0)) == plans_of(dealt(cell_rules, 0))


def test_the_budget_counts_positions_and_the_answer_repeats():
    state = next(
        dealt(PRESETS["osmosis"], n)
        for n in range(200)
        if solve(dealt(PRESETS["osmosis"], n), 2_000).verdict is Verdict.UNKNOWN
    )
    first = solve(state, 2_000)
    assert first.verdict is Verdict.UNKNOWN and first.nodes == 2_000 and first.witness == ()
    assert solve(state, 2_000) == first


def test_a_win_counts_within_the_budget_it_is_found_in():
    state = dealt(PRESETS["osmosis"], 3)
    found = solve(state, 1_000)
    assert found.verdict is Verdict.WINNABLE and 1 < found.nodes < 1_000
    assert solve(state, found.nodes) == dataclasses.replace(found, budget=found.nodes)
    short = solve(state, found.nodes - 1)
    assert (short.verdict, short.nodes) == (Verdict.UNKNOWN, found.nodes - 1)


def test_finished_games_and_bad_budgets():
    rules = PRESETS["osmosis-draw-one"]
    won = next(final for final in (play_greedy(dealt(rules, n)) for n in range(50)) if final.status == "won")
    lost = next(final for final in (play_greedy(dealt(rules, n)) for n in range(50)) if final.status == "lost")
    assert (solve(won).verdict, solve(won).nodes) == (Verdict.WINNABLE, 0)
    assert (solve(lost).verdict, solve(lost).nodes) == (Verdict.UNWINNABLE, 0)
    for budget in (0, -1, True, 1.5, MAX_BUDGET + 1):
        with pytest.raises(ValueError, match="budget"):
            solve(dealt(rules, 3), budget)


def test_witnesses_name_every_source_and_target():
    state = dealt(PRESETS["osmosis"], 3)
    solution = solve(state)
    assert solution.verdict is Verdict.WINNABLE
    moves = [action for action in solution.witness if isinstance(action, Move)]
    assert len(moves) == 52 - state.cards_on_foundations
    assert all(move.source is not None and move.target is not None for move in moves)
    assert all(isinstance(action, Move | Deal | Redeal) for action in solution.witness)
    assert solution.to_dict()["witness"] == [
        {"kind": "move", "card": a.card.code, "from": a.source.value, "to": a.target.value}
        if isinstance(a, Move)
        else {"kind": str(a)}
        for a in solution.witness
    ]
