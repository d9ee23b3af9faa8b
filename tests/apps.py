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
from tests import run
from tests.answers import Answers, prepare_the_check
from tests.databases import drop_database, migrated_database
from tests.processes import start_gunicorn, stop
from tests.run import free_port

ANSWERED = Answers()
"""Every response an app answered in this run, held to the OpenAPI document (tests/answers.py)."""


def pytest_configure(config):
    """The answers' check compiled before any test runs, whose time it would count: by xdist's controller before
    its workers start (they load what it compiled), else when this process's session starts."""
    if run.is_controller(config):
        prepare_the_check()


def pytest_sessionstart(session):
    prepare_the_check()


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
    port = free_port()
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
