"""`osmosis play` end to end, as a player runs it: in tmux on an 80x24 terminal, the keys sent with send-keys,
the screen read with capture-pane. The command starts its own server (the embedded PostgreSQL in a fresh data
directory), plays, keeps the game's token, takes the game up again in a second run, and stops its server."""

import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

OSMOSIS = Path(sys.executable).parent / "osmosis"
SCREENSHOTS = Path(__file__).parents[2] / "build" / "screenshots"


class Terminal:
    """A tmux server of the test's own (its own socket), one 80x24 window running a command."""

    def __init__(self, command, env):
        if shutil.which("tmux") is None:
            pytest.fail("tmux is not installed: scripts/install-system-packages installs it")
        self.socket = f"osmosis-test-{uuid.uuid4().hex[:8]}"
        self.env = env
        self.tmux("new-session", "-d", "-s", "table", "-x", "80", "-y", "24", f"{command}; echo EXIT=$?; sleep 60")

    def tmux(self, *args):
        return subprocess.run(
            ["tmux", "-u", "-L", self.socket, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "table")

    def keys(self, *keys):
        for key in keys:
            self.tmux("send-keys", "-t", "table", key)
            time.sleep(0.1)

    def wait_for(self, text, timeout=90):
        deadline = time.monotonic() + timeout
        while text not in " ".join(self.screen().split()):
            if time.monotonic() > deadline:
                raise AssertionError(f"the terminal never showed {text!r}:\n{self.screen()}")
            time.sleep(0.2)
        return self.screen()

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], env=self.env, capture_output=True)


def a_player_s_environment(tmp_path):
    """A player's shell: no DATABASE_URL (the embedded database), data and saved games of the test's own, UTF-8."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL" and not key.startswith("TMUX")}
    return env | {
        "OSMOSIS_DATA_DIR": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }


def test_a_player_plays_leaves_and_resumes_in_a_real_terminal(tmp_path):
    env = a_player_s_environment(tmp_path)
    first = Terminal(f"{OSMOSIS} play --deal-number 11", env)
    try:
        first.wait_for("osmosis | deal 11 | base 2")
        first.wait_for("R1 ░░ ░░ ░░ 1 9♦")  # the table is drawn after its header
        opened = first.wait_for("1 9D from R1 to F1")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (SCREENSHOTS / "terminal-table.txt").write_text(opened)
        lines = opened.splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        assert "R1  ░░   ░░   ░░   1 9♦" in opened and "1 9D from R1 to F1" in opened
        first.keys("2")
        first.wait_for("2/52 home")
        first.keys("u")
        first.wait_for("Took back: 2S from")
        first.wait_for("1/52 home")
        first.keys("2")
        first.wait_for("2/52 home")
        first.keys("m", "9", "H", "Enter")
        first.wait_for("9H is not in play")
        first.keys("q")
        left = first.wait_for("EXIT=0")
        assert "your games are kept; `osmosis play --resume` takes one up again" in " ".join(left.split())
    finally:
        first.close()
    with open(tmp_path / "data" / "postgres.lock") as lock:  # the table's server, and its PostgreSQL, are stopped
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)

    second = Terminal(f"{OSMOSIS} play --resume --ascii", env)
    try:
        second.wait_for("Your games in progress, newest first")
        second.wait_for("1 osmosis | deal 11 | base 2 | pass 1, unlimited passes | 2/52 home")
        second.keys("1")
        screen = second.wait_for("1 9D from R1 to F1")
        assert screen.isascii() and "R1  ##   ##   ##   1:9D" in screen
        second.keys("r", "y")
        second.wait_for("Resigned.")
        second.wait_for("The solver:")
        second.keys("q")
        second.wait_for("EXIT=0")
    finally:
        second.close()


def test_beside_a_running_make_serve_the_table_plays_on_that_server(tmp_path):
    """`make serve` holds the embedded PostgreSQL of its data directory: `osmosis play` there plays on that server
    rather than fail to start one of its own, and leaves it running."""
    env = a_player_s_environment(tmp_path)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    served = subprocess.Popen(
        [OSMOSIS, "serve", "--port", str(port), "--workers", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    table = None
    try:
        for line in served.stdout:
            if "serving on" in line:
                break
        table = Terminal(f"{OSMOSIS} play --deal-number 11", env)
        table.wait_for("osmosis | deal 11 | base 2")
        table.keys("2")
        table.wait_for("2/52 home")
        table.keys("q")
        left = table.wait_for("EXIT=0")  # what was said before the table, and after it
        assert f"osmosis play: playing on the server running beside, http://127.0.0.1:{port}" in " ".join(left.split())
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/games?limit=1", timeout=10) as response:
            latest = json.load(response)["games"][0]
        assert (latest["deal"].get("deal_number"), latest["score"]) == (11, 2)  # on the server beside, still up
    finally:
        if table is not None:
            table.close()
        os.killpg(served.pid, signal.SIGTERM)
        served.wait(timeout=60)
    assert not (tmp_path / "data" / "serving").exists(), "the server's address is removed when it stops"


def test_make_play_takes_the_server_to_play_on():
    dry = subprocess.run(
        ["make", "-n", "play", "SERVER=http://127.0.0.1:8000"],
        cwd=Path(__file__).parents[2],
        capture_output=True,
        text=True,
    )
    assert dry.returncode == 0 and "osmosis play --server http://127.0.0.1:8000" in dry.stdout, dry.stdout + dry.stderr
