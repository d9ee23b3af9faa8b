"""`osmosis serve` as a user runs it: embedded PostgreSQL, migrations, gunicorn; games survive a restart."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

OSMOSIS = Path(sys.executable).with_name("osmosis")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(url, method="GET", body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(req, timeout=10) as response:
        return json.loads(response.read())


class Server:
    def __init__(self, data_dir, port, wait=True):
        env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
        env["OSMOSIS_DATA_DIR"] = str(data_dir)
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [OSMOSIS, "serve", "--port", str(port), "--workers", "1"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        if not wait:
            return
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if request(self.url + "/readyz")["status"] == "ready":
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        pytest.fail(f"osmosis serve did not become ready:\n{self.process.stdout.read()}")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        output, _ = self.process.communicate(timeout=60)
        return self.process.returncode, output


def test_serve_without_database_url_runs_on_embedded_postgres_and_games_survive_a_restart():
    data_dir = Path("/tmp") / f"osmosis-serve-test-{os.getpid()}"  # short: it holds a Unix socket
    port = free_port()

    server = Server(data_dir, port)
    try:
        game = request(server.url + "/games", "POST", {"variant": "osmosis-draw-one", "deal_number": 3})
        token = {"Authorization": f"Bearer {game['player_token']}"}
        drawn = request(f"{server.url}/games/{game['id']}/draw", "POST", {}, token)["game"]
    finally:
        code, output = server.stop()
    assert code == 0, output
    assert "embedded PostgreSQL" in output
    # A start says what an operator needs (issue 63 saw alembic's 28 "setup plugin" lines at info on every start).
    assert "setup plugin" not in output, output
    assert not (data_dir / "postgres" / "postmaster.pid").exists(), "the embedded server was left running"

    server = Server(data_dir, port)
    try:
        again = request(f"{server.url}/games/{game['id']}")
        after = request(f"{server.url}/games/{game['id']}/draw", "POST", {}, token)["game"]
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)

    assert again == drawn
    assert after["version"] == drawn["version"] + 1


def test_a_second_serve_on_the_same_data_directory_refuses_to_start_and_leaves_the_first_serving():
    data_dir = Path("/tmp") / f"osmosis-serve-twice-{os.getpid()}"
    first = Server(data_dir, free_port())
    try:
        second = Server(data_dir, free_port(), wait=False)
        output, _ = second.process.communicate(timeout=60)
        time.sleep(1)  # had the second stopped the database, the first would now be failing

        assert second.process.returncode != 0
        assert "in use" in output and str(data_dir.resolve()) in output, output
        assert request(first.url + "/readyz")["status"] == "ready"
        game = request(first.url + "/games", "POST", {"deal_number": 1})
        assert game["version"] == 1
    finally:
        code, output = first.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    assert code == 0, output


def test_migrate_and_serve_give_up_on_a_host_that_accepts_and_never_answers(tmp_path):
    """Issue 50: libpq waits for ever on such a host unless the URL names connect_timeout; a bound is the default."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    env = {
        **{key: value for key, value in os.environ.items() if key != "PGCONNECT_TIMEOUT"},
        "DATABASE_URL": f"postgresql://osmosis@127.0.0.1:{silent.getsockname()[1]}/osmosis",
        "OSMOSIS_DATA_DIR": str(tmp_path),
    }
    try:
        for command in (["migrate"], ["serve", "--port", str(free_port())]):
            started = time.monotonic()
            done = subprocess.run([OSMOSIS, *command], env=env, capture_output=True, text=True, timeout=120)
            assert done.returncode == 2, done.stdout + done.stderr
            assert "the database cannot be reached to migrate it: connection timeout expired" in done.stderr
            assert "Traceback" not in done.stderr
            assert time.monotonic() - started < 30
    finally:
        silent.close()
