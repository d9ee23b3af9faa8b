"""The winnable-deal rule of docs/rules.md, checked against the test vectors written there."""

import re
from pathlib import Path

import pytest

from server.rules import PRESETS, deal_number_seed, shuffled_deck
from server.solver import SOLVER_VERSION, SOLVERS, Verdict, solve
from server.solver.winnable import (
    MAX_CANDIDATES,
    WINNABLE_BUDGET,
    NoWinnableDeal,
    candidate_client_seed,
    candidate_opening,
    check_winnable,
    first_winnable,
    rederivation_cost,
)

RULES_DOC = Path(__file__).parents[2] / "docs" / "rules.md"
VECTOR = re.compile(
    r"^\| (deal number (\d+)|server seed `(\w\w)` x 32, client seed `(\w+)`) \| ([\w-]+) \| "
    r"(osmosis-solver/\d) \| (\d+) \| ([2-9TJQKA][CDHS](?: [2-9TJQKA][CDHS]){7}) \|$"
)


def documented_vectors():
    rows = [VECTOR.match(line) for line in RULES_DOC.read_text().splitlines()]
    vectors = []
    for row in filter(None, rows):
        if row.group(2) is not None:
            seeds = (deal_number_seed(int(row.group(2))), "")
        else:
            seeds = (bytes.fromhex(row.group(3) * 32), row.group(4))
        vectors.append((seeds, row.group(5), row.group(6), int(row.group(7)), row.group(8).split()))
    return vectors


@pytest.mark.slow
def test_the_documented_vectors_are_there_and_hold():
    vectors = documented_vectors()
    assert len(vectors) >= 9 and {solver for _, _, solver, _, _ in vectors} == set(SOLVERS)
    for (server_seed, client_seed), variant, solver, candidate, deck in vectors:
        chosen = first_winnable(PRESETS[variant], server_seed, client_seed, solver)
        assert (chosen.candidate, chosen.record["solver"]) == (candidate, solver), (variant, client_seed)
        assert check_winnable(PRESETS[variant], server_seed, client_seed, chosen.record)[0] is None
        dealt = shuffled_deck(server_seed, candidate_client_seed(client_seed, candidate))
        assert [str(card) for card in dealt[:8]] == deck


def test_each_earlier_candidate_is_unproven_and_the_chosen_one_wins():
    rules = PRESETS["osmosis"]
    seed = deal_number_seed(0)
    chosen = first_winnable(rules, seed, "")
    assert chosen.candidate > 0
    for candidate in range(chosen.candidate):
        assert solve(candidate_opening(rules, seed, "", candidate), WINNABLE_BUDGET).verdict is not Verdict.WINNABLE
    assert chosen.solution.verdict is Verdict.WINNABLE
    assert chosen.record == {"candidate": chosen.candidate, "solver": SOLVER_VERSION, "budget": WINNABLE_BUDGET}
    assert check_winnable(rules, seed, "", chosen.record) == (
        None,
        sum(
            solve(candidate_opening(rules, seed, "", candidate), WINNABLE_BUDGET).nodes
            for candidate in range(chosen.candidate + 1)
        ),
    )


def test_candidate_seeds_never_collide_with_a_client_seed():
    assert candidate_client_seed("x", 0) == "x"
    assert candidate_client_seed("x", 12) == "x\x0012"
    assert "\x00" not in candidate_client_seed("x", 0)


@pytest.mark.parametrize(
    ("record", "words"),
    [
        ({"candidate": 0, "solver": SOLVER_VERSION, "budget": WINNABLE_BUDGET}, "candidate 0 is not proven winnable"),
        ({"candidate": 9, "solver": SOLVER_VERSION, "budget": WINNABLE_BUDGET}, "first candidate proven winnable is"),
        ({"candidate": 6, "solver": "osmosis-solver/0", "budget": WINNABLE_BUDGET}, "this verifier has"),
        (
            {"candidate": 6, "solver": "osmosis-solver/1", "budget": WINNABLE_BUDGET},
            "candidate 6 is not proven winnable",
        ),
        (
            {"candidate": 7, "solver": "osmosis-solver/2", "budget": WINNABLE_BUDGET},
            "first candidate proven winnable is 6",
        ),
        ({"candidate": 6, "solver": SOLVER_VERSION, "budget": 1}, "the rule is"),
        ({"candidate": True, "solver": SOLVER_VERSION, "budget": WINNABLE_BUDGET}, "whole number"),
        ({"candidate": MAX_CANDIDATES, "solver": SOLVER_VERSION, "budget": WINNABLE_BUDGET}, "whole number"),
        ({"candidate": 7}, "exactly candidate, solver and budget"),
    ],
)
def test_a_wrong_record_is_refused_in_words(record, words):
    wrong, searched = check_winnable(PRESETS["osmosis"], deal_number_seed(0), "", record)

    assert words in wrong
    assert searched <= rederivation_cost(record)


def test_a_check_never_searches_beyond_the_candidate_it_is_given():
    record = {"candidate": 3, "solver": SOLVER_VERSION, "budget": WINNABLE_BUDGET}

    _, searched = check_winnable(PRESETS["bridesmaids"], deal_number_seed(5), "", record)

    assert rederivation_cost(record) == 4 * WINNABLE_BUDGET
    assert 0 < searched <= 4 * WINNABLE_BUDGET


def test_rules_with_no_provable_candidate_are_refused(monkeypatch):
    monkeypatch.setattr("server.solver.winnable.MAX_CANDIDATES", 2)
    with pytest.raises(NoWinnableDeal, match="none of the first 2 deals"):
        first_winnable(PRESETS["osmosis"], deal_number_seed(0), "")
