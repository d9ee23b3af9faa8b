"""The search itself: depth first over the positions of search.py, with a table of the positions seen, in
attempts that restart in other orders (docs/solver.md).

A position seen before is never searched again: it either led nowhere already, or it is on the path being
searched. Nor is a position that one seen dominates (Searcher.dominators): whatever it could do, that one
could. So "unwinnable" is said only after every position reachable was searched or dominated, and
`budget` counts positions, not seconds, so that the same input gives the same verdict on every machine.

Deep searches that start wrong stay wrong for long, so both versions restart. osmosis-solver/1 (`first`)
makes a few short attempts, in the natural order (plays before deals) and then in orders shuffled by a
fixed seed, each twice as long as the one before, for a quarter of the budget, then one last attempt in
the natural order with the rest; each attempt starts from nothing.

osmosis-solver/2 (`second`) keeps what its attempts prove: a position whose every way on has been searched
without a win is lost, and no later attempt searches it again. A position can only be called lost once
the positions it leads back to are settled too (a redeal can come back to a position on the path), so the
attempt finds them as Tarjan's algorithm finds strongly connected components: when the first position of
a component is done, the whole component is lost. With that, a restart costs only what is still open, so
/2 restarts all the way: the natural order first, then shuffled orders, each attempt twice as long as the
one before, until one decides or the budget is spent.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from ..rules import Action, GameState, Place
from .search import ALL_HOME, Position, Searcher

FIRST_ATTEMPT = 10_000
"""Positions the first attempt may search."""


@dataclass(frozen=True, slots=True)
class Search:
    """The outcome of one search: `won` is True (a win was found, `witness` plays it), False (no win exists:
    every position was searched) or None (the budget ran out first)."""

    won: bool | None
    witness: tuple[Action, ...]
    nodes: int


def search(state: GameState, budget: int, second: bool) -> Search:
    """Search `state` with at most `budget` positions: osmosis-solver/2 if `second`, else /1."""
    searcher = Searcher(state, reach=second)
    return _second(searcher, budget) if second else _first(searcher, budget)


def _first(searcher: Searcher, budget: int) -> Search:
    spent = 0
    allowance = FIRST_ATTEMPT
    attempt = 0
    while spent + allowance <= budget // 4:
        found = _attempt(searcher, allowance, random.Random(attempt) if attempt else None, set())
        spent += found.nodes
        if found.won is not None:
            return Search(found.won, found.witness, spent)
        allowance *= 2
        attempt += 1
    found = _attempt(searcher, budget - spent, None, set())
    return Search(found.won, found.witness, spent + found.nodes)


def _second(searcher: Searcher, budget: int) -> Search:
    lost: set[int] = set()
    spent = 0
    allowance = FIRST_ATTEMPT
    attempt = 0
    while True:
        found = _attempt(searcher, min(allowance, budget - spent), random.Random(attempt) if attempt else None, lost)
        spent += found.nodes
        if found.won is not None:
            return Search(found.won, found.witness, spent)
        if spent >= budget:
            return Search(None, (), budget)
        allowance *= 2
        attempt += 1


def _attempt(searcher: Searcher, budget: int, shuffle: random.Random | None, lost: set[int]) -> Search:
    """One attempt, adding to `lost` every position it proves lost (/1 gives each attempt a `lost` of its
    own, and neither skips dominated positions nor tests for cards that can never come home). The positions
    of the attempt not yet settled are numbered in the order they were entered (`entered`), and each one on
    the path knows the earliest of them it leads back to (`back_to`, Tarjan's lowlink)."""
    second = searcher.reach
    root = searcher.start.copy()
    actions: list[Action] = []
    decision = searcher.settle(root, actions)
    if root.home == ALL_HOME:
        return Search(True, tuple(actions), 1)
    root_key = searcher.key(root)
    if root_key in lost:
        return Search(False, (), 0)
    if not searcher.plans or searcher.lost(root) or (second and searcher.hopeless(root)):
        lost.add(root_key)
        return Search(False, (), 1)
    entered = {root_key: 0}
    open_positions = [root_key]
    path_keys = [root_key]
    back_to = [0]
    path: list[list[Action]] = [actions]
    stack = [_ordered(searcher, root, decision, shuffle)]
    nodes = 1
    while stack:
        for child, actions in stack[-1]:
            decision = searcher.settle(child, actions)
            key = searcher.key(child)
            if key in lost:
                continue
            earlier = entered.get(key)
            if earlier is None and second:
                for other in searcher.dominators(key):
                    if other in lost:
                        earlier = -1
                        break
                    number = entered.get(other)
                    if number is not None and (earlier is None or number < earlier):
                        earlier = number
            if earlier is not None:
                if earlier < back_to[-1] and earlier >= 0:
                    back_to[-1] = earlier
                continue
            nodes += 1
            if nodes > budget:
                return Search(None, (), budget)
            if child.home == ALL_HOME:
                path.append(actions)
                return Search(True, tuple(action for step in path for action in step), nodes)
            if searcher.lost(child) or (second and searcher.worth_a_look(actions) and searcher.hopeless(child)):
                lost.add(key)
                continue
            entered[key] = len(entered)
            open_positions.append(key)
            path_keys.append(key)
            back_to.append(entered[key])
            path.append(actions)
            stack.append(_ordered(searcher, child, decision, shuffle))
            break
        else:
            stack.pop()
            path.pop()
            key = path_keys.pop()
            reached = back_to.pop()
            if reached == entered[key]:
                # The first position of its component: it and every position entered after it are lost.
                while True:
                    settled = open_positions.pop()
                    lost.add(settled)
                    if settled == key:
                        break
            elif reached < back_to[-1]:
                back_to[-1] = reached
    return Search(False, (), nodes)


def _ordered(
    searcher: Searcher, position: Position, decision: tuple[Place, int] | None, shuffle: random.Random | None
) -> Iterator[tuple[Position, list[Action]]]:
    if shuffle is None:
        return searcher.children(position, decision)
    children = list(searcher.children(position, decision))
    shuffle.shuffle(children)
    return iter(children)
