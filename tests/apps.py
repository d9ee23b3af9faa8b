"""The app and live servers, for the tests that call the API: built on tests/databases.py's PostgreSQL, every
answer held to the OpenAPI document (tests/answers.py; the root conftest.py fails the run on a breach). Loaded as a
plugin by the root conftest.py, except in `make check`'s runs."""

import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
from flask import request, request_finished

from server.api.action_path import action_answered
from server.config import Settings
from server.runtime.app import create_app
from tests.answers import Answers
from tests.databases import drop_database, migrated_database
from tests.processes import start_gunicorn, stop

ANSWERED = Answers()
"""Every response an app answered in this run, held to the OpenAPI document (tests/answers.py)."""


@request_finished.connect
def _record_answer(sender, response, **extra):
    if request.url_rule is not None:
        body = None if response.is_streamed or request.method == "HEAD" else response.get_data()
        ANSWERED.record(
            request.url_rule.rule, request.method, response.status_code, response.mimetype, body, list(request.args)
        )


@action_answered.connect
def _record_short_answer(sender, route, status, mimetype, body, **extra):
    ANSWERED.record(route, "POST", status, mimetype, body, [])


@pytest.fixture(scope="session")
def app(store):
    app = create_app(Settings(rate_limit=""), store)
    app.config["TESTING"] = True
    yield app
    app.extensions["osmosis.hub"].stop()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def redis_url():
    """A redis-server of the test's own, on a free loopback port, keeping nothing on disk."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                pytest.fail("redis-server did not start")
            time.sleep(0.1)
    yield f"redis://127.0.0.1:{port}/0"
    process.terminate()
    process.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def gunicorn_on_a_new_database(server_url: str, **env: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """gunicorn as deployed, with `env`, on a database of its own (dropped after): its base URL and its process."""
    url = migrated_database(server_url)
    port = free_port()
    process = start_gunicorn(url, port, **env)
    try:
        yield f"http://127.0.0.1:{port}", process
    finally:
        stop(process)
        drop_database(server_url, url)


@pytest.fixture(scope="session")
def live_server(embedded_server_url: str) -> Iterator[str]:
    """gunicorn on a loopback port, as deployed, on its own database on the embedded PostgreSQL."""
    url = migrated_database(embedded_server_url)
    port = free_port()
    process = start_gunicorn(url, port)
    yield f"http://127.0.0.1:{port}"
    stop(process)
    drop_database(embedded_server_url, url)
