"""Hints from what the player has seen, and nothing else (docs/solver.md, "Hints").

The cards the player has not seen are the stock's during the first pass and the face-down reserve
cards. A hint never reads them: it first replaces them by a canonical arrangement (the unseen cards in
deck order), so that every deal that looks the same to the player gives the same hint, and takes its
random arrangements from a generator seeded with that canonical position. When nothing is unseen, the
solver answers exactly; otherwise each legal action is judged by how many of the arrangements it wins.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..rules import (
    DECK,
    FOUNDATIONS,
    Action,
    Card,
    Deal,
    GameOver,
    GameState,
    Move,
    Place,
    Redeal,
    action_to_dict,
    apply,
    legal_actions,
    to_text,
)
from . import FIRST_SOLVER, SOLVER_VERSION, Verdict, solve

HINT_BUDGET = 100_000
"""Positions one hint may search over all its solves: under two seconds of one core with the compiled search
(docs/performance.md, "Hints")."""
SAMPLE_BUDGET = 2_000
"""Positions per solve of one arrangement after one action; a solve that runs out counts as unknown."""
MAX_SAMPLES = 64
"""Arrangements judged at most; fewer when the budget cannot pay for another one for every action."""
SOLVE_COST = 25
"""What starting one search costs, counted in positions: setting it up and reading its answer take the time of 7 to
17 positions' search (docs/performance.md, "A game's log without bound"), so a hint judged on 64 arrangements of three
actions, whose 192 searches may each stop after a few positions, costs far more than the positions it records. A
verification's budget counts both (`recomputation_cost`)."""
ROUNDS_WITHOUT_PLAY = 10
"""From this pass on, an estimate of /2 does not judge a redeal after a pass in which nothing was played
(`judged_actions`)."""


EXACT, ESTIMATE = "exact", "estimate"
BASES = (EXACT, ESTIMATE)
"""What a hint rests on (Hint.basis)."""
PASS_LINE = "line-of-the-pass"
EXACT_CHOICES = (PASS_LINE,)
"""How an exact hint chooses among the actions that keep the game winnable (Hint.exact_choice). Without one (the
hints given before it was named): the first action of the winning line a search from the position found. A search
from each position anew could find a line that deals past the card it plays, from one position after another, and
a player taking every hint went round the stock for ever (peek deal 136, pass 3 on). `line-of-the-pass`, with
unlimited passes: until something is played in a pass, every hint of the pass follows one line, the one found from
the position the pass began with, cut of any pass it would go round in vain (it comes back where it was, one pass
on); so each pass plays at least one card, and the game ends. After a play, the line of the position itself, cut
the same way; with limited passes, as before."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """How an action fared over the arrangements: won in `wins`, undecided in `unknown` of them."""

    action: Action
    wins: int
    unknown: int

    def to_dict(self, samples: int) -> dict[str, Any]:
        return {"action": action_to_dict(self.action), "wins": self.wins, "unknown": self.unknown, "samples": samples}


@dataclass(frozen=True, slots=True)
class Hint:
    action: Action | None
    """The action recommended; None only when the position is known and no action is known to win."""
    basis: str
    """"exact": nothing was unseen, and the solver searched the position itself; "estimate": arrangements
    of the unseen cards were judged."""
    verdict: Verdict | None
    """The exact search's verdict; None for an estimate."""
    estimates: tuple[Estimate, ...]
    """For an estimate, every legal action, best first; empty for an exact answer."""
    samples: int
    unseen: int
    """How many cards the player has not seen."""
    nodes: int
    budget: int
    solver: str = SOLVER_VERSION
    exact_choice: str | None = None
    """For an exact hint, how it chose among the winning actions (EXACT_CHOICES); None for an estimate, and for
    the exact hints given before the choice was named."""

    def to_dict(self) -> dict[str, Any]:
        """Whole numbers only: the hint is hashed into the move log, and canonical JSON of a fraction
        would differ between languages."""
        return {
            "action": None if self.action is None else action_to_dict(self.action),
            "basis": self.basis,
            "verdict": None if self.verdict is None else self.verdict.value,
            "estimates": [estimate.to_dict(self.samples) for estimate in self.estimates],
            "samples": self.samples,
            "unseen": self.unseen,
            "nodes": self.nodes,
            "budget": self.budget,
            "solver": self.solver,
            **({} if self.exact_choice is None else {"exact_choice": self.exact_choice}),
        }


def recomputation_cost(recorded: Mapping[str, Any]) -> int:
    """What working out again the hint recorded as `recorded` (Hint.to_dict's shape) costs, in positions: those it
    searched, and SOLVE_COST for each search it started (an exact hint starts two at most)."""
    searches = recorded["samples"] * len(recorded["estimates"]) if recorded["basis"] == ESTIMATE else 2
    return int(recorded["nodes"]) + SOLVE_COST * searches


def hint(
    state: GameState, budget: int = HINT_BUDGET, solver: str = SOLVER_VERSION, exact_choice: str | None = PASS_LINE
) -> Hint:
    """The best action in `state` by what its player has seen, by `solver`'s searches; raises GameOver once
    the game is over. `exact_choice`: how an exact hint chooses (EXACT_CHOICES; None as before it was named)."""
    if state.outcome is not None:
        raise GameOver(f"the game is over ({state.outcome.status}): there is nothing left to hint")
    seen = SeenPosition.of(state)
    if not seen.unseen_cards:
        return _exact(seen.canonical, budget, solver, exact_choice)
    actions = judged_actions(seen.canonical, solver)
    wins, unknown = [0] * len(actions), [0] * len(actions)
    rng = random.Random(seen.fingerprint)
    nodes = samples = 0
    # A whole arrangement at a time, and only while the budget can pay for all its solves: every action
    # is judged on the same arrangements, and the positions searched never exceed the budget.
    while samples < MAX_SAMPLES and nodes + len(actions) * SAMPLE_BUDGET <= budget:
        arrangement = seen.arranged(rng)
        for index, action in enumerate(actions):
            solution = solve(apply(arrangement, action), SAMPLE_BUDGET, solver)
            nodes += solution.nodes
            wins[index] += solution.verdict is Verdict.WINNABLE
            unknown[index] += solution.verdict is Verdict.UNKNOWN
        samples += 1
    estimates = sorted(
        (Estimate(action, wins[i], unknown[i]) for i, action in enumerate(actions)),
        key=_ranking(seen.canonical, solver),
    )
    best = estimates[0].action if estimates else None
    return Hint(best, ESTIMATE, None, tuple(estimates), samples, len(seen.unseen_cards), nodes, budget, solver)


def _exact(state: GameState, budget: int, solver: str, exact_choice: str | None) -> Hint:
    nodes = 0
    if exact_choice == PASS_LINE and state.rules.max_passes is None:
        begun = _as_the_pass_began(state)
        if begun is not None:
            solution = solve(begun, budget, solver)
            nodes = solution.nodes
            if solution.verdict is Verdict.WINNABLE:
                line = _without_vain_passes(begun, solution.witness)
                action = _where_the_line_passes(begun, line, state)
                if action is not None:
                    return Hint(action, EXACT, Verdict.WINNABLE, (), 1, 0, nodes, budget, solver, exact_choice)
            if solution.verdict is Verdict.UNWINNABLE or nodes >= budget:
                # Everything this position can do, the pass's could: lost there is lost here. And a search that
                # used the whole budget leaves none for this position's own.
                verdict = Verdict.UNWINNABLE if solution.verdict is Verdict.UNWINNABLE else Verdict.UNKNOWN
                return Hint(None, EXACT, verdict, (), 1, 0, nodes, budget, solver, exact_choice)
    solution = solve(state, budget - nodes, solver)
    nodes += solution.nodes
    if solution.verdict is not Verdict.WINNABLE:
        return Hint(None, EXACT, solution.verdict, (), 1, 0, nodes, budget, solver, exact_choice)
    line = solution.witness
    if exact_choice == PASS_LINE and state.rules.max_passes is None:
        line = _without_vain_passes(state, line)
    return Hint(line[0], EXACT, Verdict.WINNABLE, (), 1, 0, nodes, budget, solver, exact_choice)


def _as_the_pass_began(state: GameState) -> GameState | None:
    """The position this pass began with, when only deals were made in it since (the waste is the stock's first
    cards, in the order dealt); None when a card was played in it, or nothing was dealt yet."""
    if state.played_this_pass or not state.waste:
        return None
    return replace(state, stock=state.waste + state.stock, waste=(), live_waste=0)


def _where_the_line_passes(start: GameState, line: tuple[Action, ...], state: GameState) -> Action | None:
    """The action `line` takes at `state`, when it gets there from `start` by deals alone; else None."""
    position = start
    for action in line:
        if position == state:
            return action
        if not isinstance(action, Deal):
            return None
        position = apply(position, action)
    return None


def _without_vain_passes(start: GameState, line: tuple[Action, ...]) -> tuple[Action, ...]:
    """`line` from the last time it stands where it started, but for the pass number: with unlimited passes the
    pass number changes nothing, so what follows wins from the start too, without the passes gone round before."""
    here, position, cut = _but_the_pass(start), start, 0
    for index, action in enumerate(line[:-1]):
        position = apply(position, action)
        if position.pass_number != start.pass_number and _but_the_pass(position) == here:
            cut = index + 1
    return line[cut:]


def _but_the_pass(state: GameState) -> GameState:
    return replace(state, pass_number=1)


def judged_actions(state: GameState, solver: str) -> tuple[Action, ...]:
    """The actions an estimate judges: every legal one, but (since /2, with unlimited passes) a redeal after a
    pass in which nothing was played, from pass ROUNDS_WITHOUT_PLAY on, while anything else is legal.

    Judged on arrangements, waiting can look better than every play: in each arrangement the solver would
    play the right card later, so dealing past the cards (and going round again) wins the most
    arrangements, pass after pass; a player taking every hint would go round for ever (osmosis-draw-one deal
    72, waiting to start F2). Going round again can be the right move (osmosis deal 152, pass 4), so it is
    judged in the first passes."""
    actions = legal_actions(state)
    if (
        solver == FIRST_SOLVER
        or state.rules.max_passes is not None
        or state.played_this_pass
        or state.pass_number < ROUNDS_WITHOUT_PLAY
        or len(actions) == 1
    ):
        return actions
    return tuple(action for action in actions if not isinstance(action, Redeal))


def _ranking(state: GameState, solver: str) -> Callable[[Estimate], tuple[int, ...]]:
    """Most wins first, then most undecided. Since /2, a play that never hurts comes before any action with
    as many wins: in every arrangement it does at least as well, and an undecided arrangement after dealing
    past it is no reason to (a player taking every hint of /1 could go round the stock for ever)."""
    if solver == FIRST_SOLVER:
        return lambda estimate: (-estimate.wins, -estimate.unknown)
    return lambda estimate: (-estimate.wins, not never_hurts(state, estimate.action), -estimate.unknown)


def never_hurts(state: GameState, action: Action) -> bool:
    """Whether `action` plays a card that could only help, in every arrangement of the unseen cards: to a
    foundation already started, from a reserve or the cell, or from the waste where no later deal depends on
    it (under draw one, with the stock empty, or in the last pass). The solver makes these plays at once
    (docs/solver.md, "How it searches", 2 and 8)."""
    if not isinstance(action, Move) or action.target is None or action.target is Place.CELL:
        return False
    if not state.foundations[FOUNDATIONS.index(action.target)]:
        return False
    if action.source is not Place.WASTE:
        return True
    max_passes = state.rules.max_passes
    return state.rules.draw == 1 or not state.stock or (max_passes is not None and state.pass_number >= max_passes)


@dataclass(frozen=True, slots=True)
class SeenPosition:
    """A position as its player knows it: `canonical` holds the unseen cards in deck order in the unseen
    places (the stock's from its top, then each reserve pile's face-down cards from the bottom)."""

    canonical: GameState
    unseen_cards: tuple[Card, ...]

    @classmethod
    def of(cls, state: GameState) -> SeenPosition:
        seen = set(state.waste) | {card for foundation in state.foundations for card in foundation}
        seen |= {card for p, pile in enumerate(state.reserves) for card in pile[state.face_down(p) :]}
        if state.cell is not None:
            seen.add(state.cell)
        stock_seen = state.pass_number > 1
        if stock_seen:
            seen |= set(state.stock)
        unseen = tuple(card for card in DECK if card not in seen)
        return cls(_arranged(state, unseen, stock_seen), unseen)

    @property
    def fingerprint(self) -> int:
        """Seeds the arrangements: the same for every deal the player cannot tell apart."""
        return int.from_bytes(hashlib.sha256(to_text(self.canonical).encode()).digest()[:8], "big")

    def arranged(self, rng: random.Random) -> GameState:
        """One arrangement of the unseen cards, each equally likely."""
        cards = list(self.unseen_cards)
        rng.shuffle(cards)
        return _arranged(self.canonical, tuple(cards), self.canonical.pass_number > 1)


def _arranged(state: GameState, unseen: tuple[Card, ...], stock_seen: bool) -> GameState:
    """`state` with `unseen` dealt, in order, into its unseen places."""
    rest = list(unseen)
    stock = state.stock
    if not stock_seen:
        stock, rest = tuple(rest[: len(stock)]), rest[len(stock) :]
    reserves = []
    for p, pile in enumerate(state.reserves):
        hidden = state.face_down(p)
        reserves.append(tuple(rest[:hidden]) + pile[hidden:])
        rest = rest[hidden:]
    return replace(state, stock=stock, reserves=tuple(reserves))
