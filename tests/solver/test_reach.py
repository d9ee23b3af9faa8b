"""The test of cards that can never come home (reach.py): a relaxation of the game, so it may call a lost
position open, never a winnable one lost."""

import dataclasses
import random

import pytest

from server.solver.reach import ALL_CARDS, Reach, ReservePiles, Waits, on_top_untouched
from server.solver.search import Searcher

from .test_solver import ALL_RULES, brute_force, endgames, rearranged


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_RULES)
def test_the_hopeless_test_never_calls_a_winnable_position_lost(name):
    rules = ALL_RULES[name]
    rng = random.Random(f"hopeless {name}")
    called_lost = lost = 0
    # Under draw one there is little to choose, so the brute force can afford more cards, and needs them to
    # meet lost positions.
    for state in endgames(rules, 30, 13 if rules.draw > 1 else 16, rng):
        shuffled = rearranged(state, rng)
        last_pass = [dataclasses.replace(shuffled, pass_number=rules.max_passes)] if rules.max_passes else []
        for position in (state, shuffled, *last_pass):
            if position.outcome is not None:
                continue
            searcher = Searcher(position)
            hopeless = not searcher.plans or searcher.hopeless(searcher.start)
            winnable = brute_force(position)
            assert not (hopeless and winnable), (name, position)
            called_lost += hopeless
            lost += not winnable
    assert lost, f"{name}: the positions should include lost ones"
    assert called_lost, f"{name}: the test should call some lost position lost"


def test_every_card_gone_from_the_talon_shifts_the_later_ones():
    """Draw three with a redeal to come: the fifth card of the talon ends a group of the next pass once two
    cards before it have left. Here the first four leave in the first closure, before the fifth can go
    home; it can once a reserve card has been to the cell, so that closure must count them as gone."""
    clubs_1, clubs_2, clubs_5 = 1, 2, 5
    diamonds_5, diamonds_7, hearts_5, spades_5, spades_6 = 18, 20, 31, 44, 45
    talon = (diamonds_7, clubs_1, clubs_2, spades_6, diamonds_5, spades_5)
    pile = (clubs_5, hearts_5)
    home = ALL_CARDS
    for card in (*talon, *pile):
        home &= ~(1 << card)
    free = on_top_untouched(len(talon), 0, 3, True)
    reach = Reach(ReservePiles([pile]), talon, free, 3, True, -1, True, home)
    assert reach.all_home(Waits((0, 1, 2, 3), 0, False))
    # Without the cell, the club under the heart never comes out, nor the diamond and spade that wait for it.
    assert not Reach(ReservePiles([pile]), talon, free, 3, True, -1, False, home).all_home(
        Waits((0, 1, 2, 3), 0, False)
    )
