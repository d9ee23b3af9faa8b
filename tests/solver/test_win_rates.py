"""`osmosis win-rates` as a long run: every deal decided in the end, results kept as they come, a run cut off
taken up where it stopped."""

import json
import random
from pathlib import Path

import pytest

from server.cli import win_rates
from server.cli.main import main
from server.cli.win_rates import VERDICT_LETTERS, read_per_deal
from server.rules import PRESETS, Deal, deal_number_seed
from server.solver import DEFAULT_BUDGET, Solution, Verdict, solve
from server.solver.players import play_greedy, play_random
from server.solver.winnable import candidate_opening


def run(capsys, *argv):
    status = main(["win-rates", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def lines_of(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_deals_left_unknown_are_searched_again_with_more_positions_until_decided(capsys, tmp_path):
    record = tmp_path / "record.jsonl"
    status, out, _ = run(
        capsys,
        "--variant",
        "osmosis-ablage",
        "--deals",
        "12",
        "--budget",
        "10",
        "--max-budget",
        "100000",
        "--record",
        str(record),
    )
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith("| osmosis-ablage | 12 |"))
    assert row.endswith("| 0 |") and "Deals no search has decided" not in out
    results = lines_of(record)
    budgets = {result["budget"] for result in results}
    assert {10, 100, 1000} <= budgets <= {10, 100, 1000, 10_000, 100_000}
    final = {}
    for result in results:
        final[result["deal"]] = result
    assert sorted(final) == list(range(12))
    assert all(result["verdict"] != "unknown" for result in final.values())
    # The players are played once per deal, and their results carried into the later searches.
    first = {result["deal"]: result for result in results if result["budget"] == 10}
    assert all(
        (result["random"], result["greedy"]) == (first[deal]["random"], first[deal]["greedy"])
        for deal, result in final.items()
    )


def test_a_deal_that_resists_every_budget_is_listed_with_the_bounds_it_leaves(capsys):
    status, out, _ = run(capsys, "--variant", "osmosis-ablage", "--deals", "6", "--budget", "2", "--max-budget", "2")
    assert status == 0
    assert "Deals no search has decided (open problems):" in out
    listed = [line for line in out.splitlines() if line.startswith("| osmosis-ablage | ") and line.endswith("| 2 |")]
    assert listed
    row = next(line for line in out.splitlines() if line.startswith("| osmosis-ablage | 6 |"))
    assert " to " in row.split("|")[5]  # bounds, not a single rate


def test_a_run_cut_off_is_taken_up_where_it_stopped(capsys, tmp_path):
    record = tmp_path / "record.jsonl"
    run(capsys, "--variant", "osmosis", "--deals", "5", "--record", str(record))
    before = lines_of(record)
    # Cut off while writing its last line: that deal is solved again, the others are not.
    text = record.read_text().splitlines()
    record.write_text("\n".join(text[:-1]) + "\n" + text[-1][:17])
    status, out, err = run(capsys, "--variant", "osmosis", "--deals", "8", "--record", str(record))
    assert status == 0 and "the last line is incomplete" in err
    after = lines_of(record)  # every line whole again
    assert len(after) == len(before) - 1 + 1 + 3
    assert sorted(result["deal"] for result in after) == list(range(8))
    assert next(line for line in out.splitlines() if line.startswith("| osmosis | 8 |"))


def test_a_record_that_is_not_one_is_refused_in_words(capsys, tmp_path):
    record = tmp_path / "record.jsonl"
    record.write_text('{"variant": "osmosis"}\n{"variant": "osmosis", "deal": 1}\n')
    with pytest.raises(SystemExit) as refused:
        main(["win-rates", "--variant", "osmosis", "--deals", "2", "--record", str(record)])
    assert "line 1: not a result of win-rates" in str(refused.value)


def test_two_runs_never_write_to_one_record(capsys, tmp_path):
    record = tmp_path / "record.jsonl"
    first = win_rates.Record(record)
    try:
        with pytest.raises(SystemExit) as refused:
            main(["win-rates", "--variant", "osmosis", "--deals", "2", "--record", str(record)])
        assert "another win-rates run is writing to" in str(refused.value)
    finally:
        first.close()
    status, _, _ = run(capsys, "--variant", "osmosis", "--deals", "2", "--record", str(record))
    assert status == 0 and len(lines_of(record)) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--deals", "0"], "--deals is at least 1"),
        (["--jobs", "0"], "--jobs is at least 1"),
        (["--budget", "0"], "a budget is from 1"),
    ],
)
def test_bad_arguments_are_refused_in_words(capsys, argv, message):
    with pytest.raises(SystemExit) as refused:
        main(["win-rates", *argv])
    assert refused.value.code == 2 and message in capsys.readouterr().err


def test_a_max_budget_below_the_budget_is_refused(capsys):
    status, _, err = run(capsys, "--deals", "1", "--budget", "1000", "--max-budget", "10")
    assert status == 2 and "--max-budget is below --budget" in err


def test_a_win_the_engine_does_not_confirm_stops_the_run(monkeypatch):
    def wrong(state, budget):
        return Solution(Verdict.WINNABLE, (Deal(),), 1, budget)

    monkeypatch.setattr(win_rates, "solve", wrong)
    with pytest.raises(AssertionError, match="witness does not win"):
        win_rates.work(win_rates.Task("osmosis", 3, 100, None))


def test_every_deal_s_results_in_one_line_per_preset_and_player(capsys, tmp_path):
    written = tmp_path / "per-deal.txt"
    status, out, _ = run(
        capsys, "--variant", "osmosis", "--variant", "bridesmaids", "--deals", "12", "--per-deal", str(written)
    )
    assert status == 0
    lines = [line for line in written.read_text().splitlines() if not line.startswith("#")]
    assert [line.split()[:2] for line in lines] == [
        [name, player] for name in ("osmosis", "bridesmaids") for player in ("solver", "greedy", "random")
    ]
    table = {(line.split()[0], line.split()[1]): line.split()[2] for line in lines}
    assert read_per_deal(written.read_text()) == table
    for name in ("osmosis", "bridesmaids"):
        verdicts = table[(name, "solver")]
        assert len(verdicts) == 12 and set(verdicts) <= set("WL?")
        row = next(line for line in out.splitlines() if line.startswith(f"| {name} | 12 |"))
        cells = [cell.strip() for cell in row.split("|")]
        assert (cells[6], cells[7], cells[8]) == (
            str(verdicts.count("W")),
            str(verdicts.count("L")),
            str(verdicts.count("?")),
        )
        assert cells[4].startswith(f"{100 * table[(name, 'greedy')].count('1') / 12:.1f}%")


DOCS = Path(__file__).parents[2] / "docs"


def published():
    """docs/win-rates-per-deal.txt as {(preset, player): results}, and the table rows of docs/win-rates.md."""
    results = read_per_deal((DOCS / "win-rates-per-deal.txt").read_text())
    rows = {}
    for line in (DOCS / "win-rates.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if len(cells) == 10 and cells[1] in PRESETS and cells[2] == "10,000":
            rows[cells[1]] = cells
    return results, rows


def test_the_published_table_counts_the_published_deals():
    results, rows = published()
    assert set(rows) == set(PRESETS)
    for name in PRESETS:
        verdicts = results[(name, "solver")]
        assert len(verdicts) == 10_000 and set(verdicts) <= set("WL?")
        cells = rows[name]
        assert [int(cells[i].replace(",", "")) for i in (6, 7, 8)] == [verdicts.count(letter) for letter in "WL?"]
        for player, column in (("random", 3), ("greedy", 4)):
            assert cells[column].startswith(f"{results[(name, player)].count('1') / 100:.1f}%"), (name, player)


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_published_deals_are_the_solver_s_and_the_players(name):
    """A sample of every preset: the first deals, and some drawn at random with a fixed seed."""
    results, _ = published()
    sample = [*range(8), *random.Random(name).sample(range(8, 10_000), 12)]
    for deal in sample:
        state = candidate_opening(PRESETS[name], deal_number_seed(deal), "", 0)
        verdict = solve(state, DEFAULT_BUDGET).verdict
        if verdict is not Verdict.UNKNOWN:
            assert results[(name, "solver")][deal] == VERDICT_LETTERS[verdict], (name, deal)
        assert results[(name, "greedy")][deal] == str(int(play_greedy(state).status == "won")), (name, deal)
        assert results[(name, "random")][deal] == str(int(play_random(state, random.Random(deal)).status == "won"))
