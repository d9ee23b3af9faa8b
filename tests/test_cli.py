import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import main as cli_main
from server.cli.main import main
from server.service.players.stats import wilson_interval

VECTORS = json.loads((Path(__file__).parent / "data" / "deal-vectors.json").read_text())


@pytest.mark.parametrize("vector", [v for v in VECTORS if "deal_number" in v], ids=lambda v: str(v["deal_number"]))
def test_deal_by_number_prints_the_vectors_layout_as_json(vector, capsys):
    assert main(["deal", "--deal-number", str(vector["deal_number"]), "--json"]) == 0

    assert json.loads(capsys.readouterr().out) == vector["layout"]


def test_deal_by_seeds_prints_the_vectors_layout_as_json(capsys):
    vector = next(v for v in VECTORS if "deal_number" not in v)

    main(["deal", "--server-seed", vector["server_seed"], "--client-seed", vector["client_seed"], "--json"])

    assert json.loads(capsys.readouterr().out) == vector["layout"]


def test_deal_without_json_draws_the_layout_with_face_down_cards_marked(capsys):
    main(["deal", "--deal-number", "0"])

    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("R1  [2D] [JD] [KC]  8S")
    assert lines[0].rstrip().endswith("F1  6H")
    assert lines[-1].startswith("stock (35, first dealt first): AS 5H TH")


def test_deal_of_bridesmaids_has_no_reserves(capsys):
    main(["deal", "--deal-number", "0", "--variant", "bridesmaids", "--json"])

    deal = json.loads(capsys.readouterr().out)
    assert deal["reserves"] == [] and deal["base"] == "2D" and len(deal["stock"]) == 51


def test_a_bad_server_seed_is_a_clear_error_with_exit_status_2(capsys):
    assert main(["deal", "--server-seed", "abc", "--json"]) == 2

    assert "server seed is written as 64 hexadecimal digits" in capsys.readouterr().err


def test_simulate_json_lists_the_deals_won(capsys):
    main(["simulate", "--variant", "osmosis-draw-one", "--first-deal", "0", "--games", "40", "--json"])

    result = json.loads(capsys.readouterr().out)
    assert result["variant"] == "osmosis-draw-one" and result["games"] == 40
    assert result["wins"] == len(result["won_deals"]) > 0
    assert all(0 <= n < 40 for n in result["won_deals"])


def test_simulate_is_reproducible_and_the_deal_range_is_respected(capsys):
    main(["simulate", "--variant", "peek", "--first-deal", "100", "--games", "30", "--policy", "random", "--json"])
    first = json.loads(capsys.readouterr().out)
    main(["simulate", "--variant", "peek", "--first-deal", "100", "--games", "30", "--policy", "random", "--json"])

    assert json.loads(capsys.readouterr().out) == first
    assert all(100 <= n < 130 for n in first["won_deals"])


def test_simulate_prints_the_win_rate_with_a_confidence_interval(capsys):
    main(["simulate", "--variant", "osmosis", "--games", "20"])

    out = capsys.readouterr().out
    assert "games       20" in out
    assert "95% CI" in out and "games per second" in out


def test_the_wilson_interval_brackets_the_rate():
    low, high = wilson_interval(13, 100)

    assert 0.0775 < low < 0.0777 and 0.2097 < high < 0.2099
    assert wilson_interval(0, 10)[0] == 0.0


def test_the_console_script_is_installed():
    osmosis = Path(sys.executable).with_name("osmosis")

    result = subprocess.run([osmosis, "deal", "--deal-number", "4711", "--json"], capture_output=True, text=True)

    assert result.returncode == 0
    assert json.loads(result.stdout) == next(v for v in VECTORS if v.get("deal_number") == 4711)["layout"]


def test_simulate_json_gives_the_win_rate_and_its_95_percent_interval(capsys):
    main(["simulate", "--variant", "osmosis-draw-one", "--first-deal", "0", "--games", "40", "--json"])

    result = json.loads(capsys.readouterr().out)
    low, high = wilson_interval(result["wins"], 40)
    assert result["win_rate"] == result["wins"] / 40
    assert result["interval"] == {"confidence": 0.95, "low": low, "high": high}
    assert result["policy"] == "greedy" and result["first_deal"] == 0


def test_the_help_of_serve_states_the_default_workers_as_they_are():
    osmosis = Path(sys.executable).with_name("osmosis")

    result = subprocess.run([osmosis, "serve", "--help"], capture_output=True, text=True)

    assert "WEB_CONCURRENCY or 4" in " ".join(result.stdout.split())


def subcommands():
    parser = next(action for action in cli_main._parser()._actions if isinstance(action, argparse._SubParsersAction))
    return sorted(parser.choices)


@pytest.mark.parametrize("command", subcommands())
def test_every_command_s_help_reads_as_written(command, capsys):
    """argparse formats help strings but prints descriptions as they are: a `%%` meant as `%` shows doubled."""
    with pytest.raises(SystemExit) as ended:
        main([command, "--help"])

    assert ended.value.code == 0
    assert "%%" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "arguments",
    ["deal --deal-number 0", "deal --deal-number 0 --json", "simulate --games 5 --json", "simulate --games 5"],
)
def test_output_into_a_pipe_closed_early_ends_quietly(arguments):
    osmosis = Path(sys.executable).with_name("osmosis")

    # `true` exits before the command has written anything, as `head` does after its first lines.
    result = subprocess.run(f"'{osmosis}' {arguments} | true", shell=True, capture_output=True, text=True)

    assert result.stderr == ""


def test_the_readme_lists_every_exit_status_of_verify():
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    line = next(line for line in readme.splitlines() if line.startswith("| `osmosis verify"))

    for status in ("0 valid", "1 invalid", "2 unreadable", "3 game not over"):
        assert status in line, line


def test_the_readme_s_command_table_names_every_command_and_each_of_its_options():
    from server.cli.main import _parser

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    table = readme.split("## Command line", 1)[1].split("\n## ", 1)[0]
    commands = next(action for action in _parser()._actions if isinstance(action, argparse._SubParsersAction))
    missing = []
    for name, command in commands.choices.items():
        rows = "\n".join(line for line in table.splitlines() if line.startswith(f"| `osmosis {name}"))
        if not rows:
            missing.append(name)
            continue
        for action in command._actions:
            longest = max(action.option_strings, key=len, default=None)
            if longest is not None and longest != "--help" and longest not in rows:
                missing.append(f"{name} {longest}")
    assert missing == []


def test_the_table_names_the_database_of_its_saved_games_without_a_password_whatever_hosts_the_url_names(tmp_path):
    from server.cli.play_commands import _database_name
    from server.config import Settings

    def named(url):
        return _database_name(Settings(database_url=url, data_dir=tmp_path))

    assert named("postgresql://u:secret@db.example/osmosis") == "database:db.example:5432/osmosis"
    assert named("postgresql://u:secret@db.example:6432/osmosis") == "database:db.example:6432/osmosis"
    several = named("postgresql://u:secret@h1:5432,h2:5433/osmosis?target_session_attrs=read-write")
    assert several == "database:h1:5432,h2:5433/osmosis"
