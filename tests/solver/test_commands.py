"""`osmosis solve` and `osmosis win-rates` from the outside, as a user runs them."""

import json

import pytest

from server.cli.main import main
from server.rules import PRESETS, apply, deal_number_seed, parse_action
from server.solver import SOLVER_VERSION
from server.solver.winnable import WINNABLE_BUDGET, candidate_opening


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_solve_prints_a_witness_the_engine_replays(capsys):
    status, out, _ = run(capsys, "solve", "--deal-number", "3", "--json")
    answer = json.loads(out)
    assert status == 0
    assert (answer["verdict"], answer["solver"], answer["deal"]) == ("winnable", SOLVER_VERSION, {"deal_number": 3})
    state = candidate_opening(PRESETS["osmosis"], deal_number_seed(3), "", 0)
    for text in answer["witness_text"]:
        state = apply(state, parse_action(text))
    assert state.status == "won"
    assert len(answer["witness"]) == len(answer["witness_text"])


def test_solve_in_words_and_with_custom_rules(capsys):
    status, out, _ = run(capsys, "solve", "--deal-number", "0", "--budget", "100")
    assert status == 0 and "verdict     unwinnable" in out and "searched    1 positions of 100" in out
    status, out, _ = run(capsys, "solve", "--deal-number", "5", "--rules", '{"draw": 1, "free_cells": 1}', "--json")
    assert json.loads(out)["rules"]["free_cells"] == 1 and json.loads(out)["variant"] is None


def test_solve_the_winnable_deal_of_seeds(capsys):
    seed = "ab" * 32
    status, out, _ = run(capsys, "solve", "--server-seed", seed, "--client-seed", "me", "--winnable", "--json")
    answer = json.loads(out)
    assert status == 0 and answer["verdict"] == "winnable"
    assert answer["deal"]["winnable"]["solver"] == SOLVER_VERSION
    assert answer["deal"]["winnable"]["budget"] == WINNABLE_BUDGET


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--deal-number", "1", "--budget", "0"], "a budget is from 1"),
        (["--deal-number", "1", "--rules", "{"], "not JSON"),
        (["--deal-number", "1", "--rules", '{"draw": 2}'], "draw must be 1 or 3"),
        (["--deal-number", "1", "--rules", "[1]"], "JSON object"),
    ],
)
def test_solve_refuses_bad_arguments_in_words(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        main(["solve", *argv])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_solve_refuses_a_bad_seed_without_a_traceback(capsys):
    status, _, err = run(capsys, "solve", "--server-seed", "zz")
    assert status == 2 and "64 hexadecimal digits" in err


def test_win_rates_prints_a_table_with_intervals_and_the_claims(capsys):
    status, out, _ = run(
        capsys,
        "win-rates",
        "--variant",
        "osmosis-draw-one",
        "--variant",
        "osmosis-strict-waste",
        "--deals",
        "30",
        "--budget",
        "5000",
    )
    assert status == 0
    lines = out.splitlines()
    draw_one = next(line for line in lines if line.startswith("| osmosis-draw-one | 30 |"))
    assert draw_one.count("%") >= 6 and "(" in draw_one
    assert any(line.startswith("| Medium (32%) |") for line in lines)
    assert any(line.startswith("| 13% |") and "| osmosis-strict-waste |" in line for line in lines)
