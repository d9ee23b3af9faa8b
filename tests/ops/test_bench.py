"""The benchmark scripts keep working: each runs with tiny counts against the tests' PostgreSQL and
prints every figure it promises. Their figures are not checked here: speed is measured on demand, on a
quiet machine, never in a test."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from server.cli.win_rates import read_per_deal

PROJECT = Path(__file__).resolve().parents[2]


def run_bench(script: str, *args: str, database_url: str | None = None) -> str:
    # As a benchmark is run on demand: without the test run's OSMOSIS_DATA_DIR, so that the run-wide guard
    # (tests/conftest.py) sees whatever a benchmark would leave in the project's var/.
    env = {key: value for key, value in os.environ.items() if key != "OSMOSIS_DATA_DIR"}
    if database_url:
        env["DATABASE_URL"] = database_url
    result = subprocess.run(
        [sys.executable, str(PROJECT / "bench" / script), *args],
        env=env,
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_the_load_benchmark_reports_every_phase_and_ratio(embedded_server_url):
    printed = run_bench(
        "load.py", "--clients", "2", "--seconds", "0.3", "--rounds", "1", database_url=embedded_server_url
    )

    for phase in (
        "ceiling: INSERT + COMMIT",
        "game: random actions",
        "ceiling: SELECT by key",
        "game: read a new game",
        "game: read a 300-event game",
        "game: state at seq 300",
    ):
        assert phase in printed
    for ratio in (
        "actions / INSERT ceiling",
        "state reads / SELECT ceiling",
        "300-event read / new read",
        "state at 300 / current read",
        "action p99 / p50",
    ):
        assert ratio in printed
    assert printed.count("CPU ms a request: ") == 6


def test_the_app_benchmark_reports_each_layer(embedded_server_url):
    printed = run_bench("app_cpu.py", "--requests", "5", "--rounds", "1", database_url=embedded_server_url)

    for phase in (
        "ceiling: INSERT + COMMIT",
        "game: action, whole app",
        "game: action, service only",
        "game: action, HTTP layer only",
        "game: action, halves in turn",
        "game: draw, HTTP layer only",
        "ceiling: SELECT by key",
        "game: read",
    ):
        assert phase in printed
    whole = next(line for line in printed.splitlines() if line.startswith("game: action, whole app"))
    assert "requests" in whole and "others" in whole, "the CPU of the requests' thread apart from the process's own"
    for ratio in ("whole app / INSERT + COMMIT", "whole app / halves alone", "whole app / halves in turn"):
        line = next(line for line in printed.splitlines() if line.startswith(ratio))
        median, spread = line.removeprefix(ratio).split(maxsplit=1)
        assert float(median) > 0 and spread.startswith("(") and " to " in spread, line


def test_compare_runs_each_revision_s_own_benchmark_in_turns_and_tables_them_side_by_side(embedded_server_url):
    printed = run_bench(
        "compare.py",
        "--runs",
        "2",
        "HEAD",
        ".",
        "--",
        "--requests",
        "5",
        "--rounds",
        "1",
        database_url=embedded_server_url,
    )

    assert [line for line in printed.splitlines() if line.startswith("# run")] == [
        "# run 1 of HEAD",
        "# run 1 of .",
        "# run 2 of HEAD",
        "# run 2 of .",
    ]
    table = printed[printed.index("| figure | HEAD | . | . / HEAD |") :].splitlines()
    whole = next(row for row in table if row.startswith("| game: action, whole app |"))
    assert whole.count("(**") == 2 and whole.count(",") >= 2, "each revision's two runs and their median"
    assert any(row.startswith("| game: action, whole app [requests] |") for row in table)


def test_the_idle_server_benchmark_counts_the_transactions_of_a_server_nobody_calls(embedded_server_url):
    printed = run_bench("idle_server.py", "--seconds", "1", "--settle", "1", database_url=embedded_server_url)

    assert "idle server, transactions" in printed


def test_the_bundle_benchmark_times_a_rewrite_and_new_rows_for_each_width(embedded_server_url):
    printed = run_bench("bundle_writes.py", "--repeat", "3", database_url=embedded_server_url)

    assert [line.split()[3] for line in printed.splitlines()] == ["32", "128", "224"]
    assert all("rewritten" in line and "new rows" in line for line in printed.splitlines())


def test_the_rate_limit_benchmark_reports_a_request_off_counted_and_exempt():
    printed = run_bench("rate_limit.py", "--requests", "5", "--rounds", "1")

    for phase in ("rate limiting off", "counted (203.0.113.7)", "this machine's own (127.0.0.1)"):
        assert phase in printed


def test_the_statement_benchmark_times_both_statements_and_the_ceiling(embedded_server_url):
    printed = run_bench("statements.py", "--games", "2", "--actions", "3", database_url=embedded_server_url)

    for step in ("read game + secret", "guarded write, committed", "whole action", "ceiling: INSERT + COMMIT"):
        assert step in printed


def test_the_engine_benchmark_covers_every_preset():
    from server.rules import PRESETS

    printed = run_bench("engine.py", "--games", "3")

    assert all(name in printed for name in PRESETS)


def test_the_live_benchmark_reports_delivery_throughput_health_and_memory(embedded_server_url):
    printed = run_bench(
        "live.py",
        "--followers",
        "20",
        "--games",
        "5",
        "--slow-clients",
        "5",
        "--actors",
        "2",
        "--seconds",
        "1",
        "--rounds",
        "1",
        database_url=embedded_server_url,
    )

    for figure in (
        "actions alone",
        "actions with followers",
        "actions with slow clients",
        "delivery, answer to follower",
        "/healthz p99 followers",
        "/healthz p99 slow clients",
        "server memory per follower",
        "slow clients cut off after",
    ):
        assert figure in printed
    assert "n=0" not in printed.split("delivery, answer to follower")[1].splitlines()[0]


def test_the_solver_benchmark_reports_each_preset():
    printed = run_bench("solver.py", "--deals", "3", "--budget", "2000")
    for name in ("osmosis", "osmosis-draw-one", "bridesmaids", "peek-till-dawn"):
        line = next(line for line in printed.splitlines() if line.startswith(f"{name} "))
        assert line.count("%") == 4, line
    assert "budget 2,000 positions" in printed


def test_the_hint_benchmark_reports_each_preset():
    printed = run_bench("hints.py", "--deals", "1", "--variant", "peek", "--variant", "osmosis-draw-one")
    for name in ("peek", "osmosis-draw-one"):
        line = next(line for line in printed.splitlines() if line.startswith(f"{name} "))
        assert line.count("%") == 1 and len(line.split()) == 7, line
    assert "budget 100,000 positions per hint" in printed


def test_the_solver_time_benchmark_reports_the_victim_the_attacker_and_the_uploads(embedded_server_url):
    printed = run_bench(
        "solver_time.py",
        "--flood",
        "4",
        "--samples",
        "1",
        "--uploaders",
        "2",
        "--workers",
        "2",
        database_url=embedded_server_url,
    )

    for figure in (
        "victim's hint, idle",
        "in flight by one",
        "attacker's answers",
        "/healthz during",
        "costly upload answered in",
        "the same upload checked offline",
    ):
        assert figure in printed


def test_the_public_log_benchmark_reports_cost_delay_integration_serving_and_proofs(embedded_server_url):
    printed = run_bench(
        "public_log.py",
        "--clients",
        "2",
        "--seconds",
        "0.3",
        "--rounds",
        "1",
        "--entries",
        "600",
        "--baseline",
        "HEAD",
        database_url=embedded_server_url,
    )

    for figure in (
        "play, log off (baseline)",
        "play, log on",
        "log on / log off",
        "creation to signed checkpoint",
        "a game's proofs",
        "integration of 600 entries",
        "level-0 tiles",
        "entry bundles",
        "checkpoint",
        "inclusion proof, 20 random leaves",
        "consistency proof",
    ):
        assert figure in printed, figure


def test_the_gym_benchmark_reports_every_preset():
    from server.rules import PRESETS

    printed = run_bench("gym_env.py", "--steps", "300", "--rounds", "1")

    assert all(f"{name} " in printed and "steps/s" in printed for name in PRESETS)


def test_the_hint_player_reads_bound_and_greedy_from_the_published_deals_and_takes_up_its_record(tmp_path):
    """Run from elsewhere than the project: the published per-deal results are found beside the script."""
    record = tmp_path / "games.jsonl"
    command = [
        sys.executable,
        str(PROJECT / "bench" / "hint_player.py"),
        "--deals",
        "4",
        "--variant",
        "peek",
        "--record",
        str(record),
    ]
    first = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert first.returncode == 0, first.stderr[-3000:]
    published = {
        player: results
        for (name, player), results in read_per_deal((PROJECT / "docs" / "win-rates-per-deal.txt").read_text()).items()
        if name == "peek"
    }
    row = next(line for line in first.stdout.splitlines() if line.startswith("| peek |"))
    cells = [cell.strip() for cell in row.split("|")]
    assert cells[4].startswith(f"{published['greedy'][:4].count('1') / 4:.1%}")
    assert cells[5].startswith(f"{published['solver'][:4].count('W') / 4:.1%}")
    assert len(record.read_text().splitlines()) == 4

    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 0 and "0 games to play" in again.stderr
    assert next(line for line in again.stdout.splitlines() if line.startswith("| peek |")) == row


def test_the_calls_benchmark_counts_about_the_same_calls_every_run_for_each_kind_of_request():
    runs = [run_bench("calls_per_request.py", "--requests", "20") for _ in range(2)]

    counts = [
        {line[:24].strip(): float(line[24:]) for line in printed.splitlines()[1:] if line.strip()} for printed in runs
    ]
    assert set(counts[0]) == {"read a game", "action (draw)", "create a game"}
    for kind, count in counts[0].items():  # the hub's timing may take a branch more or less: a call or so a request
        assert abs(counts[1][kind] - count) <= count * 0.005, (kind, count, counts[1][kind])
    # A draw takes the actions' short path, past Flask's dispatch, which a read goes through: it may cost fewer calls
    # than a read; a creation, which deals, hashes and writes a whole game through Flask, costs the most.
    assert 0 < max(counts[0]["read a game"], counts[0]["action (draw)"]) < counts[0]["create a game"]
    assert min(counts[0]["read a game"], counts[0]["action (draw)"]) > 0


def test_the_replication_benchmark_reports_both_sides_and_their_ratios():
    printed = run_bench("replication.py", "--clients", "2", "--seconds", "0.3", "--rounds", "1")

    for phase in (
        "actions, commit waits for the standby (sync)",
        "actions, local commit (local)",
        "history reads, primary only",
        "history reads, READ_DATABASE_URL on the standbys",
    ):
        assert phase in printed
    for ratio in ("sync / local actions a second", "replica / primary history reads a second"):
        assert ratio in printed
    assert printed.count("the primary's PostgreSQL, CPU ms a request: ") == 4


def test_the_primary_ceiling_benchmark_reports_throughput_and_what_saturates(embedded_server_url):
    printed = run_bench("primary_ceiling.py", "--processes", "2", "--seconds", "3", database_url=embedded_server_url)

    for figure in (
        "actions a second: ",
        "PostgreSQL CPU, cores busy: ",
        "clients CPU, cores busy (at most): ",
        "PostgreSQL CPU ms an action: ",
        "cores of its own, actions a second: ",
    ):
        assert figure in printed


def test_the_durability_benchmark_reports_each_setting_and_its_ratios():
    printed = run_bench("durability.py", "--clients", "2", "--seconds", "0.3", "--rounds", "1")

    for phase in ("actions, neither", "actions, LOG_TILES_DIR", "actions, LOG_TILES_DIR and OSMOSIS_WAL_ARCHIVE"):
        assert phase in printed
    for ratio in ("tiles / plain actions a second", "archived / plain actions a second", "archived - plain action p50"):
        assert ratio in printed


def test_a_benchmark_has_a_data_directory_of_its_own_and_fails_if_it_leaves_a_log_in_var(tmp_path):
    (tmp_path / "bench").mkdir()
    shutil.copy(PROJECT / "bench" / "run_data.py", tmp_path / "bench" / "run_data.py")
    script = tmp_path / "bench" / "writes.py"
    script.write_text(
        "import os, sys\n"
        "from pathlib import Path\n"
        "import run_data\n"
        "print(os.environ['OSMOSIS_DATA_DIR'])\n"
        "if sys.argv[1:] == ['into-var']:\n"
        "    Path(run_data.PROJECT_DATA).mkdir(exist_ok=True)\n"
        "    (Path(run_data.PROJECT_DATA) / 'log-signing-key').write_text('a key')\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "OSMOSIS_DATA_DIR"}
    clean = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert clean.returncode == 0, clean.stderr
    own = Path(clean.stdout.strip())
    assert own.name.startswith("osmosis-bench-data-") and not own.exists(), "its directory is removed after"

    dirty = subprocess.run(
        [sys.executable, str(script), "into-var"], env=env, capture_output=True, text=True, timeout=60
    )
    assert dirty.returncode == 1
    assert f"wrote a log's files into the project's var/: {tmp_path / 'var' / 'log-signing-key'}" in dirty.stderr


def test_the_competition_benchmark_reports_the_start_the_close_and_the_reads(embedded_server_url):
    printed = run_bench(
        "competition.py",
        *(
            "--entrants",
            "4",
            "--clients",
            "2",
            "--limit",
            "5",
            "--lead",
            "3",
            "--reads",
            "3",
            "--large",
            "20",
            "--fresh",
            "1",
        ),
        database_url=embedded_server_url,
    )

    for figure in (
        "entries: 4 in",
        "first actions answered after the start (s)  p50",
        "within 1 s",
        "standings, 4 entrants, running (ms)",
        "the close of 4 games (s)",
        "results, 4 entrants (ms)",
        "standings, 20 entrants, read afresh (ms)",
        "standings, 20 entrants, readers sharing a reading (ms)",
        "results, 20 entrants, read afresh (ms)",
        "results, 20 entrants, readers sharing a reading (ms)",
    ):
        assert figure in printed, printed
