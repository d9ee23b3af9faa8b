"""Plans: which suit each foundation takes, and the plans a position can still be won under.

A plan is the suits of F1..F4. Under a plan every card waits for others: a card of Fk (k > 1) for the
card of its rank on F(k-1) (the osmosis rule), under the `base_rank` start rule every card of a
foundation for that foundation's base-rank card, and a reserve card for the card above it in its pile.
If these waits go round in a circle, none of the cards in the circle can ever reach its foundation,
however the stock falls: the plan is dead. The stock and the waste add no wait to this test (any card
there could come up), so a dead plan is dead in fact; a live one may still be lost.

Only a free cell lets a reserve card out from under another, so with a cell no plan is called dead here.
"""

from __future__ import annotations

from itertools import pairwise, permutations

from ..rules import GameState, StartRule

Plan = tuple[int, int, int, int]
"""The suit index (0 clubs .. 3 spades) of F1, F2, F3, F4."""


def plans_of(state: GameState) -> list[Plan]:
    """Every plan that agrees with the foundations already started, in suit order."""
    started = tuple(foundation[0].index // 13 for foundation in state.foundations if foundation)
    unused = [suit for suit in range(4) if suit not in started]
    return [(*started, *rest) for rest in permutations(unused)]  # type: ignore[misc]


def viable_plans(state: GameState) -> list[Plan]:
    """The plans under which `state` is not dead (see the module's text)."""
    plans = plans_of(state)
    if state.rules.free_cells:
        return plans
    return [plan for plan in plans if not _waits_in_a_circle(state, plan)]


def _waits_in_a_circle(state: GameState, plan: Plan) -> bool:
    foundation_of = {suit: k for k, suit in enumerate(plan)}
    base_rank = state.foundations[0][0].index % 13
    home = {card.index for foundation in state.foundations for card in foundation}
    waiting = [card for card in range(52) if card not in home]
    successors: dict[int, list[int]] = {card: [] for card in waiting}
    waits: dict[int, int] = dict.fromkeys(waiting, 0)

    def wait(first: int, then: int) -> None:
        if first in successors and then in successors:
            successors[first].append(then)
            waits[then] += 1

    for pile in state.reserves:
        for below, above in pairwise(pile):
            wait(above.index, below.index)
    base_rule = state.rules.start_rule is StartRule.BASE_RANK
    for card in waiting:
        suit, rank = divmod(card, 13)
        k = foundation_of[suit]
        if k > 0:
            wait(plan[k - 1] * 13 + rank, card)
        if base_rule and rank != base_rank:
            wait(suit * 13 + base_rank, card)
    ready = [card for card in waiting if waits[card] == 0]
    freed = 0
    while ready:
        card = ready.pop()
        freed += 1
        for then in successors[card]:
            waits[then] -= 1
            if waits[then] == 0:
                ready.append(then)
    return freed < len(waiting)
