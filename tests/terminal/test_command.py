"""`osmosis play`'s arguments: a wrong one is refused before anything starts, with a clear word and exit 2."""

import socket
import subprocess
import sys
from pathlib import Path

import pytest

OSMOSIS = Path(sys.executable).parent / "osmosis"


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--resume", "42"], "--resume takes a game's id (a UUID), not '42'"),
        (["--replay", "../etc"], "--replay takes a game's id (a UUID)"),
        (["--follow", ""], "--follow takes a game's id (a UUID), not ''"),
        (["--deal-number", "-1"], "--deal-number runs from 0 to 9007199254740991"),
        (["--server", "ftp://example"], "--server is an http:// or https:// base URL"),
        (
            ["--replay", "00000000-0000-4000-8000-000000000000", "--follow", "00000000-0000-4000-8000-000000000000"],
            "not allowed with argument",
        ),
        (["--variant", "klondike"], "invalid choice: 'klondike'"),
        (["--name", "alice"], "--name signs you up for the daily deal: it goes with --daily"),
        (["--daily", "--deal-number", "3"], "--daily is today's deal, the same for everyone"),
        (["--daily", "--resume"], "not allowed with argument"),
    ],
)
def test_wrong_arguments_are_refused_before_anything_starts(arguments, said, tmp_path):
    done = subprocess.run(
        [OSMOSIS, "play", *arguments],
        capture_output=True,
        text=True,
        timeout=30,
        env={"OSMOSIS_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2
    assert said in done.stderr
    assert not (tmp_path / "play-server.log").exists()


def test_a_server_that_is_not_there_is_named(tmp_path):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    done = subprocess.run(
        [OSMOSIS, "play", "--server", f"http://127.0.0.1:{port}"],
        capture_output=True,
        text=True,
        timeout=30,
        env={"XDG_STATE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 1
    assert f"http://127.0.0.1:{port} is not a ready Osmosis server: cannot reach" in done.stderr


@pytest.mark.parametrize("planted", ["fifo", "directory", "lock-link"])
def test_saved_games_that_cannot_be_ours_are_named_before_anything_starts(planted, tmp_path):
    import os

    state = tmp_path / "state" / "osmosis"
    state.mkdir(parents=True)
    if planted == "fifo":
        os.mkfifo(state / "games.json")
    elif planted == "directory":
        (state / "games.json").mkdir()
    else:
        (state / "games.lock").symlink_to(tmp_path / "target")
    done = subprocess.run(
        [OSMOSIS, "play", "--server", "http://127.0.0.1:9"],
        capture_output=True,
        text=True,
        timeout=30,
        env={"XDG_STATE_HOME": str(tmp_path / "state"), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 1
    assert "move it away" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "target").exists()
