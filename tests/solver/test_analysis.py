"""A finished game's analysis, from its positions, without the server."""

from server.rules import PRESETS, Resign, apply, deal_number_seed
from server.solver import Verdict, solve
from server.solver.analysis import Step, analyse
from server.solver.winnable import candidate_opening


def test_a_deal_the_budget_cannot_decide_is_said_to_be_undecided_and_names_no_losing_action():
    rules = PRESETS["osmosis"]
    start = next(
        state
        for state in (candidate_opening(rules, deal_number_seed(n), "", 0) for n in range(50))
        if solve(state, 2).verdict is Verdict.UNKNOWN
    )
    steps = [Step(1, None, start), Step(2, Resign(), apply(start, Resign()))]
    analysis = analyse(steps, budget=2)
    assert (analysis["deal"]["verdict"], analysis["exact"]) == ("unknown", False)
    assert (analysis["last_winnable"], analysis["lost_by"]) == (None, None)
    assert "undecided" in analysis["summary"] and "2 positions" in analysis["summary"]
