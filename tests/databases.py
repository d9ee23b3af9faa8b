"""PostgreSQL for the tests that need one: the embedded server always, DATABASE_URL's too when set.

Each backend gets a fresh database, migrated to head, for the session; tests create their own games (random UUIDs),
so they never see each other's rows. Loaded as a plugin by the root conftest.py, except
in `make check`'s runs, which need no database.
"""

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

from server.store import PostgresStore, embedded, migrate, open_pool

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
