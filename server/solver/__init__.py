"""The solver: whether a position with every card known can still be won, and how (docs/solver.md).

Pure like the rules engine it uses (no I/O, no clock): the same position and budget give the same
answer on every machine, and the answer names the solver's version, since a later version may decide
more within the same budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..rules import Action, GameState, Status, action_to_dict
from .native import chosen_search

SOLVER_VERSION = "osmosis-solver/2"
"""The search new games, analyses and hints use: /1 and the test of cards that can never come home."""
FIRST_SOLVER = "osmosis-solver/1"
"""The first search, kept so that the deals and hints it chose still verify: it gives the same answers."""
SOLVERS = (FIRST_SOLVER, SOLVER_VERSION)
DEFAULT_BUDGET = 300_000
"""Positions searched by default: two to three seconds of one core at most with the compiled search (the
positions of osmosis-ablage cost most), three to five times that with the pure modules."""
MAX_BUDGET = 100_000_000
_SEARCH, _ENGINE = chosen_search()


def search_engine() -> str:
    """Which search runs (native.py): the compiled copy or the pure modules, with the same answers."""
    return _ENGINE


def use_compiled_search(compiled: bool) -> str:
    """Run the compiled copy of the search if there is one (True) or the pure modules (False), for benchmarks
    and tests that compare the two; returns the sentence saying which runs."""
    global _SEARCH, _ENGINE
    _SEARCH, _ENGINE = chosen_search(compiled)
    return _ENGINE


class Verdict(StrEnum):
    WINNABLE = "winnable"
    """A win was found: the witness plays it."""
    UNWINNABLE = "unwinnable"
    """Every position reachable was searched and none is won."""
    UNKNOWN = "unknown"
    """The budget ran out before either was shown."""


@dataclass(frozen=True, slots=True)
class Solution:
    verdict: Verdict
    witness: tuple[Action, ...]
    """The actions from the position to a win, which the rules engine replays; empty unless winnable."""
    nodes: int
    """Positions searched."""
    budget: int
    solver: str = SOLVER_VERSION

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict.value,
            "witness": [action_to_dict(action) for action in self.witness],
            "nodes": self.nodes,
            "budget": self.budget,
            "solver": self.solver,
        }


def solve(state: GameState, budget: int = DEFAULT_BUDGET, solver: str = SOLVER_VERSION) -> Solution:
    """Whether `state` (every card known) can be won, searching at most `budget` positions with `solver`.

    A finished game is winnable only if it was won (with nothing left to do); a resignation is judged
    on the position the player gave up, so call this with the position before it.
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
        raise ValueError(f"the budget is a whole number of positions from 1 to {MAX_BUDGET}, not {budget!r}")
    if solver not in SOLVERS:
        raise ValueError(f"the solver is one of {', '.join(SOLVERS)}, not {solver!r}")
    if state.outcome is not None:
        verdict = Verdict.WINNABLE if state.status is Status.WON else Verdict.UNWINNABLE
        return Solution(verdict, (), 0, budget, solver)
    found = _SEARCH.search(state, budget, solver != FIRST_SOLVER)
    if found.won is None:
        return Solution(Verdict.UNKNOWN, (), found.nodes, budget, solver)
    return Solution(Verdict.WINNABLE if found.won else Verdict.UNWINNABLE, found.witness, found.nodes, budget, solver)


__all__ = [
    "DEFAULT_BUDGET",
    "FIRST_SOLVER",
    "MAX_BUDGET",
    "SOLVERS",
    "SOLVER_VERSION",
    "Solution",
    "Verdict",
    "search_engine",
    "solve",
    "use_compiled_search",
]
