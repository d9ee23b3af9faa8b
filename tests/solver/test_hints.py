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
    from_text,
    legal_actions,
    to_text,
)
from server.solver import SOLVER_VERSION, Verdict, solve
from server.solver.hints import (
    MAX_SAMPLES,
    PASS_LINE,
    ROUNDS_WITHOUT_PLAY,
    SAMPLE_BUDGET,
    SeenPosition,
    hint,
    judged_actions,
    never_hurts,
)
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
    answers = {
        repr(hint(dealt(PRESETS["osmosis-draw-one"], number), SMALL).to_dict()["estimates"]) for number in range(6)
    }
    assert len(answers) > 1


@pytest.mark.parametrize("name", ALL_RULES)
def test_an_estimate_judges_every_legal_action_on_the_same_arrangements_within_its_budget(name):
    rng = random.Random(f"hint-estimate-{name}")
    for state in positions(ALL_RULES[name], 7, rng, count=3):
        given = hint(state, SMALL)
        if given.basis != "estimate":
            continue
        judged = [estimate.action for estimate in given.estimates]
        assert sorted(map(str, judged)) == sorted(map(str, judged_actions(state, SOLVER_VERSION)))
        assert set(map(str, legal_actions(state))) - set(map(str, judged)) <= {"redeal"}
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
        str(state.stock[i] if p == "stock" else state.reserves[p][i]) for p, i in unseen_places(state)
    )
    for _ in range(5):
        arranged = seen.arranged(rng)
        cards = [
            *arranged.stock,
            *arranged.waste,
            *(c for pile in arranged.reserves for c in pile),
            *(c for foundation in arranged.foundations for c in foundation),
        ]
        assert sorted(map(str, cards + ([arranged.cell] if arranged.cell else []))) == sorted(map(str, DECK))
        assert arranged.waste == state.waste and arranged.foundations == state.foundations
        for p, pile in enumerate(arranged.reserves):
            assert pile[state.face_down(p) :] == state.reserves[p][state.face_down(p) :]


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


@pytest.mark.slow
def test_a_player_taking_every_hint_never_goes_round_the_stock_for_ever():
    """The engine lets a player redeal after a pass in which nothing was played while a card could be: the
    next pass is then the same as this one. Judged on arrangements, waiting to start F2 looked best pass after
    pass in osmosis-draw-one deal 72, and a player taking every hint went round for ever; from pass
    ROUNDS_WITHOUT_PLAY on, the hint plays instead."""
    state = dealt(PRESETS["osmosis-draw-one"], 72)
    for _ in range(1_000):
        if state.outcome is not None:
            break
        legal = legal_actions(state)
        given = hint(state) if len(legal) > 1 else None
        if given is not None and isinstance(given.action, Redeal) and not state.played_this_pass:
            assert state.pass_number < ROUNDS_WITHOUT_PLAY
        state = apply(state, legal[0] if given is None else given.action or Resign())
    assert state.outcome is not None, "the game should be over within 1,000 actions"


LOOPED = {
    # Positions the exact hint of before `exact_choice` came back to, one pass later, in the hint player's games
    # (docs/win-rates.md): the line the search found dealt first each time.
    "peek 136": "rules peek\nR1 KC 4C AD 9S\nR2 KS 8C 3H\nR3 AH 4S JC\nR4 KH TS 5C 6H\nF1 6D 5D KD 9D\nF2 -\nF3 -\n"
    "F4 -\nstock 4D QD 5S 5H 6C JH JD 4H 7H TH 2D QC QH 7C TD JS 8S 6S 9C 3S AS 3D TC 7S 2H 9H 2C 8D AC "
    "3C 2S QS 7D 8H\nwaste -\npass 2",
    "peek-till-dawn 430": "rules peek-till-dawn\nR1 TD 7S 9H 4D\nR2 KH 2H JC JH\nR3 8S 6H KD 7H\nR4 6D 3H AH\n"
    "F1 2S TS 6S 5S 4S QS 9S\nF2 -\nF3 -\nF4 -\nstock AS 9C 8C 6C 3C KC TH 4C QH 3D 3S TC 9D "
    "JD QC JS 2C 2D 4H 7D AD AC 5C 5H QD KS 5D 8H 8D 7C\nwaste -\npass 2",
    "bridesmaids 643": "rules bridesmaids\nF1 TD 5D 7D QD\nF2 TS\nF3 -\nF4 -\nstock 3H QS 8H TC 6C QC JD 3C 5S 9D "
    "5H AS 6S JS KH 4H 8D JH KC 2D KS 6D QH 2H JC AH 9C 9S TH\nwaste 2C 8C 8S 4S 4D 4C 5C 2S 6H "
    "7H 9H AC 3D 7C 3S | 7S KD AD\npass 3",
}


def taking_every_hint(state, exact_choice, actions):
    """A player taking every hint (the first legal action, which plays before it deals, where the exact search ran
    out of positions), until the game ends, `actions` are taken, or a position comes back a pass later: the
    positions, and whether one came back."""
    seen = {}
    for _ in range(actions):
        if state.outcome is not None:
            return state, False
        key = to_text(dataclasses.replace(state, pass_number=1))
        if key in seen:
            return state, True
        seen[key] = state
        given = hint(state, exact_choice=exact_choice)
        assert given.basis == "exact" and given.verdict is not Verdict.UNWINNABLE
        state = apply(state, given.action or legal_actions(state)[0])
    return state, False


@pytest.mark.slow
@pytest.mark.parametrize("deal", LOOPED)
def test_a_player_taking_every_exact_hint_plays_a_card_in_every_pass_and_the_game_ends(deal):
    start = from_text(LOOPED[deal])
    assert taking_every_hint(start, None, 60)[1], "the exact hint of before went round the stock"

    end, came_back = taking_every_hint(start, PASS_LINE, 400)
    assert not came_back and end.outcome is not None
    assert hint(start).to_dict()["exact_choice"] == PASS_LINE


def test_a_pass_s_line_that_takes_the_whole_budget_leaves_the_hint_undecided_not_a_search_of_nothing():
    """The line found from the pass's start plays before this position's depth, and that search used the whole
    budget: the position's own search has none left (it was asked for a search of 0 positions, and raised)."""
    start = from_text(LOOPED["peek 136"])
    found = solve(start, 100_000)
    first_play = next(i for i, action in enumerate(found.witness) if not isinstance(action, Deal | Redeal))
    past = start
    for _ in range(first_play + 1):
        past = apply(past, Deal())
    given = hint(past, budget=found.nodes)
    assert (given.action, given.verdict, given.nodes) == (None, Verdict.UNKNOWN, found.nodes)


def test_the_exact_choice_is_named_only_in_exact_hints():
    assert "exact_choice" not in hint(dealt(PRESETS["osmosis"], 11), TINY).to_dict()
    assert "exact_choice" not in hint(from_text(LOOPED["peek 136"]), TINY, exact_choice=None).to_dict()


@pytest.mark.slow
def test_a_play_that_never_hurts_wins_its_ties():
    """A card to a started foundation from a reserve or the cell, or from the waste where no later deal
    depends on it, leaves every arrangement at least as winnable: an estimate of /2 names such a play unless
    another action won strictly more arrangements."""
    checked = set()
    for name, rules in ALL_RULES.items():
        rng = random.Random(f"never hurts {name}")
        for state in (state for number in range(10) for state in positions(rules, number, rng)):
            given = hint(state, SMALL)
            safe = [estimate for estimate in given.estimates if never_hurts(state, estimate.action)]
            if given.basis != "estimate" or not safe:
                continue
            checked.add(name)
            chosen = given.estimates[0]
            assert never_hurts(state, chosen.action) or chosen.wins > max(estimate.wins for estimate in safe)
    assert len(checked) >= 8, checked


FOURTH_PASS_OF_DEAL_152 = """rules osmosis
R1 3S 7H 9C 6C
R2 9S 3H 9D 8S
R3 2D 7C 7S
R4 5D 7D 9H QD
F1 4H QH AH TH 6H 8H JH
F2 -
F3 -
F4 -
stock -
waste AC 5H QC 6S AS 2S 5C 5S KS JS JD 2C 3C KC KD 8C 6D 8D 2H TC 4D KH AD TS 3D TD 4C | QS JC 4S
pass 4"""


def test_a_hint_may_ask_for_a_redeal_after_a_fruitless_pass():
    """Going round again can be the only good move: at the end of osmosis deal 152's fourth pass, in which
    nothing was played, the other action is to start F2 with spades, which loses (the position is winnable).
    An earlier rule of /2 left the redeal out of the estimate, and a player taking the hint lost the game."""
    state = from_text(FOURTH_PASS_OF_DEAL_152)
    assert solve(state).verdict is Verdict.WINNABLE
    assert solve(apply(state, legal_actions(state)[0])).verdict is Verdict.UNWINNABLE
    given = hint(state)
    assert Redeal() in [estimate.action for estimate in given.estimates]
    assert given.action == Redeal()
