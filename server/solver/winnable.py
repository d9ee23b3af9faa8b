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
from . import SOLVER_VERSION, Solution, Verdict, solve

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
        return {"candidate": self.candidate, "solver": SOLVER_VERSION, "budget": WINNABLE_BUDGET}


class NoWinnableDeal(InvalidInput):
    """No candidate within MAX_CANDIDATES was proven winnable under these rules."""


def candidate_client_seed(client_seed: str, candidate: int) -> str:
    return client_seed if candidate == 0 else f"{client_seed}\x00{candidate}"


def candidate_opening(rules: Rules, server_seed: bytes, client_seed: str, candidate: int) -> GameState:
    return opening(rules, layout(shuffled_deck(server_seed, candidate_client_seed(client_seed, candidate)), rules))


def game_opening(rules: Rules, server_seed: bytes, client_seed: str, deal: Mapping[str, Any]) -> GameState:
    """The opening of a game from its seeds and its `deal` record: its winnable candidate, if it has one."""
    winnable = deal.get("winnable")
    candidate = winnable["candidate"] if isinstance(winnable, Mapping) else 0
    return candidate_opening(rules, server_seed, client_seed, candidate)


def first_winnable(rules: Rules, server_seed: bytes, client_seed: str) -> WinnableDeal:
    for candidate in range(MAX_CANDIDATES):
        state = candidate_opening(rules, server_seed, client_seed, candidate)
        solution = solve(state, WINNABLE_BUDGET)
        if solution.verdict is Verdict.WINNABLE:
            return WinnableDeal(candidate, state, solution)
    raise NoWinnableDeal(
        f"none of the first {MAX_CANDIDATES} deals of these seeds is proven winnable within "
        f"{WINNABLE_BUDGET} positions under these rules: choose other rules, or deal without 'winnable'")


def check_winnable(rules: Rules, server_seed: bytes, client_seed: str, record: Mapping[str, Any]) -> str | None:
    """None when `record` is what first_winnable makes of these seeds; otherwise what is wrong, in words."""
    if set(record) != {"candidate", "solver", "budget"}:
        return "deal.winnable must hold exactly candidate, solver and budget"
    candidate, solver, budget = record["candidate"], record["solver"], record["budget"]
    if solver != SOLVER_VERSION:
        return f"the deal was chosen by solver {solver!r}; this verifier has {SOLVER_VERSION!r}"
    if budget != WINNABLE_BUDGET:
        return f"the deal was chosen with a budget of {budget!r} positions; the rule is {WINNABLE_BUDGET}"
    if isinstance(candidate, bool) or not isinstance(candidate, int) or not 0 <= candidate < MAX_CANDIDATES:
        return f"deal.winnable.candidate must be a whole number from 0 to {MAX_CANDIDATES - 1}"
    try:
        found = first_winnable(rules, server_seed, client_seed).candidate
    except NoWinnableDeal as error:
        return str(error)
    if found != candidate:
        return f"the first candidate proven winnable is {found}, not {candidate}"
    return None
