"""osmosis-solver/2 against osmosis-solver/1: never a new verdict where /1 decided, more decided, the same answer
in every process (its test of cards that can never come home is checked in test_reach.py)."""

import json
import random
import subprocess
import sys

import pytest

from server.rules import PRESETS, numbered_opening
from server.solver import FIRST_SOLVER, MAX_BUDGET, SOLVER_VERSION, SOLVERS, Verdict, solve

from .test_solver import ALL_RULES, brute_force, endgames, rearranged, replay


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_RULES)
def test_the_second_search_decides_what_the_first_did_the_same_way(name):
    rules = ALL_RULES[name]
    decided = {solver: 0 for solver in SOLVERS}
    # 400 deals of each of 13 rule sets: thousands of verdicts compared.
    for number in range(400):
        state = numbered_opening(rules, number)
        first, second = solve(state, 10_000, FIRST_SOLVER), solve(state, 10_000, SOLVER_VERSION)
        assert (first.solver, second.solver) == (FIRST_SOLVER, SOLVER_VERSION)
        if Verdict.UNKNOWN not in (first.verdict, second.verdict):
            assert first.verdict is second.verdict, (name, number)
        for solution in (first, second):
            decided[solution.solver] += solution.verdict is not Verdict.UNKNOWN
            if solution.verdict is Verdict.WINNABLE:
                assert replay(state, solution.witness).status == "won", (name, number, solution.solver)
    assert decided[SOLVER_VERSION] >= decided[FIRST_SOLVER], name


def test_the_second_search_decides_deals_the_first_could_not():
    rules = PRESETS["osmosis"]
    undecided = [
        n for n in range(60) if solve(numbered_opening(rules, n), 20_000, FIRST_SOLVER).verdict is Verdict.UNKNOWN
    ]
    assert undecided, "some osmosis deal should be beyond /1 within 20,000 positions"
    for number in undecided:
        assert solve(numbered_opening(rules, number), 20_000).verdict is not Verdict.UNKNOWN, number


def test_every_process_gives_the_same_answer():
    deals = [("osmosis", 1), ("bridesmaids", 5), ("osmosis-ablage", 2), ("peek-till-dawn", 9)]
    here = [solve(numbered_opening(PRESETS[name], number), 20_000).to_dict() for name, number in deals]
    program = (
        "import json, sys\n"
        "from server.rules import PRESETS, numbered_opening\n"
        "from server.solver import solve\n"
        f"deals = {deals!r}\n"
        "print(json.dumps([solve(numbered_opening(PRESETS[n], d), 20_000).to_dict() for n, d in deals]))\n"
    )
    for hash_seed in ("0", "12345"):
        elsewhere = subprocess.run(
            [sys.executable, "-c", program],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": hash_seed, "PATH": ""},
        )
        assert json.loads(elsewhere.stdout) == here


def test_an_unknown_solver_is_refused():
    with pytest.raises(ValueError, match="osmosis-solver/1, osmosis-solver/2"):
        solve(numbered_opening(PRESETS["osmosis"], 0), 10, "osmosis-solver/3")


CELL_RULES = ("osmosis-ablage", "cell, draw one, two passes", "cell, group waste, unlimited")


@pytest.mark.slow
@pytest.mark.parametrize("name", CELL_RULES)
def test_the_cell_only_when_it_helps_loses_no_win(name):
    """/2 moves a reserve card to the cell only when the card under it can go home at once, and plays the
    waste's top card at once in the last pass: its verdicts against every legal action, on positions with
    more cards left than the general brute-force test, half of them with their cards reshuffled."""
    rules = ALL_RULES[name]
    rng = random.Random(f"cell {name}")
    outcomes = set()
    for state in endgames(rules, 40, 16, rng):
        for position in (state, rearranged(state, rng)):
            if position.outcome is not None:
                continue
            expected = brute_force(position)
            solution = solve(position, MAX_BUDGET)
            assert solution.verdict is (Verdict.WINNABLE if expected else Verdict.UNWINNABLE), (name, position)
            outcomes.add(expected)
    assert outcomes == {True, False}
