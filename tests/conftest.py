"""Fixtures: a real PostgreSQL for every database test, the embedded one always and DATABASE_URL's too.

Each backend gets a fresh database, migrated to head, for the session; tests create their own games
(random UUIDs), so they never see each other's rows.
"""

import contextlib
import os
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from flask import request, request_finished
from psycopg import sql

from server.config import Settings
from server.runtime.app import create_app
from server.store import PostgresStore, embedded, migrate, open_pool
from tests.answers import Answers
from tests.processes import start_gunicorn, stop

PROJECT = Path(__file__).resolve().parents[1]
EMBEDDED_DATA_DIR = PROJECT / "var" / "test"
BACKENDS = ["embedded", *(["external"] if os.environ.get("DATABASE_URL") else [])]

ANSWERED = Answers()
"""Every response an app answered in this run, held to the OpenAPI document (tests/answers.py)."""


@request_finished.connect
def _record_answer(sender, response, **extra):
    if request.url_rule is not None:
        body = None if response.is_streamed or request.method == "HEAD" else response.get_data()
        ANSWERED.record(request.url_rule.rule, request.method, response.status_code, response.mimetype, body,
                        list(request.args))


def pytest_sessionfinish(session, exitstatus):
    if (ANSWERED.undeclared_statuses() or ANSWERED.breaches) and session.exitstatus == 0:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    undeclared = ANSWERED.undeclared_statuses()
    if undeclared:
        terminalreporter.section("statuses the OpenAPI document does not declare")
        for path, method, status in undeclared:
            terminalreporter.write_line(f"{method.upper()} {path} answered {status}")
    if ANSWERED.breaches:
        terminalreporter.section("answers that break the OpenAPI document")
        for breach in ANSWERED.breaches:
            terminalreporter.write_line(breach)


def _with_database(url: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


@pytest.fixture(scope="session")
def embedded_server_url() -> Iterator[str]:
    url = embedded.start(EMBEDDED_DATA_DIR)
    yield url
    embedded.stop(EMBEDDED_DATA_DIR)


def empty_database(server_url: str) -> str:
    name = f"osmosis_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return _with_database(server_url, name)


def migrated_database(server_url: str) -> str:
    url = empty_database(server_url)
    migrate.upgrade(url)
    return url


def drop_database(server_url: str, url: str) -> None:
    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="session", params=BACKENDS)
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A new database on the backend, migrated to head; dropped after the session."""
    server_url = (
        request.getfixturevalue("embedded_server_url") if request.param == "embedded" else os.environ["DATABASE_URL"]
    )
    url = migrated_database(server_url)
    yield url
    drop_database(server_url, url)


@pytest.fixture(scope="session")
def pool(database_url: str):
    pool = open_pool(database_url, min_size=1, max_size=8, timeout=5, statement_timeout_ms=5000)
    pool.wait()
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def store(pool) -> PostgresStore:
    return PostgresStore(pool, migrate.head_revision())


@pytest.fixture(scope="session")
def app(store):
    app = create_app(Settings(rate_limit=""), store)
    app.config["TESTING"] = True
    yield app
    app.extensions["osmosis.hub"].stop()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def db(database_url: str) -> Iterator[psycopg.Connection]:
    """A direct connection, for looking at the tables (and trying what the database refuses)."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        yield conn


@pytest.fixture
def attacker(database_url: str) -> Iterator[psycopg.Connection]:
    """A connection that bypasses the append-only triggers, as someone with database access could."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        yield conn



@pytest.fixture(scope="session")
def redis_url():
    """A redis-server of the test's own, on a free loopback port, keeping nothing on disk."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no"], stdout=subprocess.DEVNULL)
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
