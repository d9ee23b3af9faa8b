"""Winnable deals that stay provably fair (docs/rules.md, "Winnable deals").

The seeds make not one deal but a sequence of candidates: candidate 0 is the ordinary deal, candidate
i > 0 is dealt by osmosis-deal-v1 from the same server seed and the client seed followed by a NUL byte
and i in decimal (a client seed never holds a NUL, so no two candidates share a seed). The game is the
first candidate the solver, at a fixed version and budget, proves winnable. Anyone with the revealed
seeds re-derives it: every earlier candidate is not proven winnable within that budget, this one is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..rules import GameState, InvalidInput, Rules, layout, opening, shuffled_deck
from . import SOLVER_VERSION, SOLVERS, Solution, Verdict, solve

WINNABLE_BUDGET = 10_000
"""Positions the solver may search per candidate: the same for every game, so that anyone can check."""
MAX_CANDIDATES = 100
"""Candidates tried before giving up; no preset comes near it (docs/performance.md, "The solver")."""


@dataclass(frozen=True, slots=True)
class WinnableDeal:
    candidate: int
    opening: GameState
    solution: Solution

    @property
    def record(self) -> dict[str, Any]:
        """What the game's `deal` records of it, and all a verifier needs besides the seeds."""
        return {"candidate": self.candidate, "solver": self.solution.solver, "budget": WINNABLE_BUDGET}


class NoWinnableDeal(InvalidInput):
    """No candidate within MAX_CANDIDATES was proven winnable under these rules."""


def candidate_client_seed(client_seed: str, candidate: int) -> str:
    return client_seed if candidate == 0 else f"{client_seed}\x00{candidate}"


def candidate_opening(rules: Rules, server_seed: bytes, client_seed: str, candidate: int) -> GameState:
    return opening(rules, layout(shuffled_deck(server_seed, candidate_client_seed(client_seed, candidate)), rules))


def first_winnable(rules: Rules, server_seed: bytes, client_seed: str, solver: str = SOLVER_VERSION) -> WinnableDeal:
    for candidate in range(MAX_CANDIDATES):
        state = candidate_opening(rules, server_seed, client_seed, candidate)
        solution = solve(state, WINNABLE_BUDGET, solver)
        if solution.verdict is Verdict.WINNABLE:
            return WinnableDeal(candidate, state, solution)
    raise NoWinnableDeal(
        f"none of the first {MAX_CANDIDATES} deals of these seeds is proven winnable within "
        f"{WINNABLE_BUDGET} positions under these rules: choose other rules, or deal without 'winnable'"
    )


def rederivation_cost(record: Mapping[str, Any]) -> int:
    """The most positions check_winnable spends on `record`: a solve of every candidate up to its own."""
    candidate = record.get("candidate")
    if isinstance(candidate, bool) or not isinstance(candidate, int) or not 0 <= candidate < MAX_CANDIDATES:
        return 0
    return (candidate + 1) * WINNABLE_BUDGET


def check_winnable(
    rules: Rules, server_seed: bytes, client_seed: str, record: Mapping[str, Any]
) -> tuple[str | None, int]:
    """Whether `record` is what first_winnable makes of these seeds: None, or what is wrong in words; and
    the positions searched to find out (at most rederivation_cost(record))."""
    if set(record) != {"candidate", "solver", "budget"}:
        return "deal.winnable must hold exactly candidate, solver and budget", 0
    candidate, solver, budget = record["candidate"], record["solver"], record["budget"]
    if solver not in SOLVERS:
        return f"the deal was chosen by solver {solver!r}; this verifier has {', '.join(SOLVERS)}", 0
    if budget != WINNABLE_BUDGET:
        return f"the deal was chosen with a budget of {budget!r} positions; the rule is {WINNABLE_BUDGET}", 0
    if isinstance(candidate, bool) or not isinstance(candidate, int) or not 0 <= candidate < MAX_CANDIDATES:
        return f"deal.winnable.candidate must be a whole number from 0 to {MAX_CANDIDATES - 1}", 0
    nodes = 0
    # Only the candidates up to the one claimed: a later one cannot be the first winnable.
    for tried in range(candidate + 1):
        solution = solve(candidate_opening(rules, server_seed, client_seed, tried), WINNABLE_BUDGET, solver)
        nodes += solution.nodes
        if solution.verdict is Verdict.WINNABLE:
            return (
                None if tried == candidate else f"the first candidate proven winnable is {tried}, not {candidate}"
            ), nodes
    return f"candidate {candidate} is not proven winnable within {WINNABLE_BUDGET} positions", nodes
