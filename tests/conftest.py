"""Fixtures: a real PostgreSQL for every database test, the embedded one always and DATABASE_URL's too.

Each backend gets a fresh database, migrated to head, for the session; tests create their own games
(random UUIDs), so they never see each other's rows.
"""

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

from server import embedded, migrate
from server.api import create_app
from server.service import GameService
from server.store import PostgresStore, open_pool

PROJECT = Path(__file__).resolve().parents[1]
EMBEDDED_DATA_DIR = PROJECT / "var" / "test"
BACKENDS = ["embedded", *(["external"] if os.environ.get("DATABASE_URL") else [])]


def _with_database(url: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


@pytest.fixture(scope="session")
def embedded_server_url() -> Iterator[str]:
    url = embedded.start(EMBEDDED_DATA_DIR)
    yield url
    embedded.stop(EMBEDDED_DATA_DIR)


@pytest.fixture(scope="session", params=BACKENDS)
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A new database on the backend, migrated to head; dropped after the session."""
    server_url = (
        request.getfixturevalue("embedded_server_url") if request.param == "embedded" else os.environ["DATABASE_URL"]
    )
    name = f"osmosis_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = _with_database(server_url, name)
    migrate.upgrade(url)
    yield url
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


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
    app = create_app(service=GameService(store))
    app.config["TESTING"] = True
    return app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def db(database_url: str) -> Iterator[psycopg.Connection]:
    """A direct connection, for looking at (and, as an attacker would, tampering with) the tables."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        yield conn

