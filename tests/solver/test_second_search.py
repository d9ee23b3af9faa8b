"""osmosis-solver/2 against a brute force and against osmosis-solver/1: never a wrong loss, never a new verdict
where /1 decided, the same answer in every process."""

import dataclasses
import json
import random
import subprocess
import sys

import pytest

from server.rules import PRESETS, numbered_opening
from server.solver import FIRST_SOLVER, SOLVER_VERSION, SOLVERS, Verdict, solve
from server.solver.search import Searcher

from .test_solver import ALL_RULES, brute_force, endgames, rearranged, replay


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


@pytest.mark.parametrize("name", ALL_RULES)
def test_the_second_search_decides_what_the_first_did_the_same_way(name):
    rules = ALL_RULES[name]
    decided = {solver: 0 for solver in SOLVERS}
    for number in range(150):
        state = numbered_opening(rules, number)
        first, second = solve(state, 3_000, FIRST_SOLVER), solve(state, 3_000, SOLVER_VERSION)
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
    undecided = [n for n in range(60) if solve(numbered_opening(rules, n), 20_000, FIRST_SOLVER).verdict
                 is Verdict.UNKNOWN]
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
        "print(json.dumps([solve(numbered_opening(PRESETS[n], d), 20_000).to_dict() for n, d in deals]))\n")
    for hash_seed in ("0", "12345"):
        elsewhere = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True,
                                   env={"PYTHONHASHSEED": hash_seed, "PATH": ""})
        assert json.loads(elsewhere.stdout) == here


def test_an_unknown_solver_is_refused():
    with pytest.raises(ValueError, match="osmosis-solver/1, osmosis-solver/2"):
        solve(numbered_opening(PRESETS["osmosis"], 0), 10, "osmosis-solver/3")
