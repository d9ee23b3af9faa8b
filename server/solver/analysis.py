"""A finished game's analysis: was its deal winnable, and where was it lost (docs/solver.md).

Winnability only ever falls during a game: a position reachable from an unwinnable one is unwinnable
too. So the positions of a lost game are winnable up to some action and unwinnable after it, and a
binary search over the actions finds that action with a few solves, each within the same budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..rules import Action, GameState, Move, Resign, Status, action_to_dict
from . import SOLVER_VERSION, Solution, Verdict, solve

ANALYSIS_BUDGET = 50_000
"""Positions each solve of an analysis may search; an analysis solves at most 2 + log2(actions) times."""


@dataclass(frozen=True, slots=True)
class Step:
    """A position of the game: after the action recorded at event `seq` (None: the opening, at event 1)."""

    seq: int
    action: Action | None
    state: GameState


def analyse(steps: Sequence[Step], budget: int = ANALYSIS_BUDGET) -> dict[str, Any]:
    """The analysis of a finished game from its positions, the opening first and the final one last."""
    final = steps[-1].state
    if final.status is Status.WON:
        played = tuple(step.action for step in steps[1:] if step.action is not None)
        deal = Solution(Verdict.WINNABLE, played, 0, budget)
        return _answer(
            budget,
            final,
            deal,
            None,
            None,
            True,
            "the deal was winnable, and the game won it: the witness is the game's own actions",
        )
    deal = solve(steps[0].state, budget)
    if deal.verdict is not Verdict.WINNABLE:
        summary = (
            "the deal could not be won: every position was searched"
            if deal.verdict is Verdict.UNWINNABLE
            else f"undecided: the search of the deal ran out of its {budget:,} positions"
        )
        return _answer(budget, final, deal, None, None, deal.verdict is Verdict.UNWINNABLE, summary)
    low, low_solution, high = 0, deal, len(steps) - 1
    exact = True
    while high - low > 1:
        middle = (low + high) // 2
        solution = solve(steps[middle].state, budget)
        if solution.verdict is Verdict.WINNABLE:
            low, low_solution = middle, solution
        elif solution.verdict is Verdict.UNWINNABLE:
            high = middle
        else:
            exact = False
            break
    last = steps[low]
    if exact:
        lost_by = steps[high]
        summary = f"winnable until event {last.seq}; {_named(lost_by.action)} at event {lost_by.seq} lost it"
        return _answer(budget, final, deal, (last, low_solution), lost_by, True, summary)
    summary = (
        f"winnable until event {last.seq} at least; where it was lost is undecided within "
        f"{budget:,} positions per search"
    )
    return _answer(budget, final, deal, (last, low_solution), None, False, summary)


def _named(action: Action | None) -> str:
    if isinstance(action, Resign):
        return "the resignation"
    return f"the move {action}" if isinstance(action, Move) else f"the {action}"


def _answer(
    budget: int,
    final: GameState,
    deal: Solution,
    last_winnable: tuple[Step, Solution] | None,
    lost_by: Step | None,
    exact: bool,
    summary: str,
) -> dict[str, Any]:
    return {
        "solver": SOLVER_VERSION,
        "budget": budget,
        "status": final.status.value,
        "deal": _solution(deal),
        "last_winnable": None
        if last_winnable is None
        else {"seq": last_winnable[0].seq, **_solution(last_winnable[1])},
        "lost_by": None
        if lost_by is None or lost_by.action is None
        else {"seq": lost_by.seq, "action": action_to_dict(lost_by.action)},
        "exact": exact,
        "summary": summary,
    }


def _solution(solution: Solution) -> dict[str, Any]:
    return {
        "verdict": solution.verdict.value,
        "witness": [action_to_dict(action) for action in solution.witness],
        "nodes": solution.nodes,
    }
