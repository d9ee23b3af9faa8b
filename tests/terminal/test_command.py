"""`osmosis play`'s arguments: a wrong one is refused before anything starts, with a clear word and exit 2."""

import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from server.cli.play_commands import SERVING_FILE, _server_beside
from server.config import Settings

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


class NotOsmosis(BaseHTTPRequestHandler):
    """Something else on the port a `serving` file names: a 503 page to every request."""

    def do_GET(self):
        body = b"<html>Service Unavailable</html>"
        self.send_response(503)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.mark.parametrize(
    "serving",
    ["garbage", "a directory", "nothing listening", "a page", "a foreign URL"],
)
def test_a_serving_file_that_names_no_server_ready_here_is_passed_over(tmp_path, serving):
    """What `osmosis serve` leaves in the data directory may be stale (a server killed), damaged or not its own: the
    table then starts a server of its own rather than fail, whatever the file holds."""
    place = tmp_path / SERVING_FILE
    page = ThreadingHTTPServer(("127.0.0.1", 0), NotOsmosis)
    threading.Thread(target=page.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    try:
        if serving == "a directory":
            place.mkdir()
        else:
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                free = sock.getsockname()[1]
            place.write_bytes(
                {
                    "garbage": b"\x00\xff not a URL \n\n",
                    "nothing listening": f"http://127.0.0.1:{free}".encode(),
                    "a page": f"http://127.0.0.1:{page.server_port}".encode(),
                    "a foreign URL": b"ftp://example.org/pub",
                }[serving]
            )
        assert _server_beside(Settings(data_dir=tmp_path)) is None
    finally:
        page.shutdown()
        page.server_close()
