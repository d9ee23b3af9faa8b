"""PostgreSQL for the tests that need one: the embedded server always, DATABASE_URL's too when set.

One embedded server serves the whole run, in a data directory of the run's own (never the project's var/): the
process that runs the session starts it (xdist's controller, before its workers, or a plain pytest when a test
first asks) and stops it at the end; a worker finds its URL in the environment and never stops it.

On each server one database is migrated once per run, under an advisory lock whoever asks first, and kept as a
template; every database a test asks for is a copy of it (CREATE DATABASE ... TEMPLATE), as Django's test runner
clones its test database for each worker. Each worker has its own database per backend for the session; tests
create their own games (random UUIDs), so they never see each other's rows. Loaded as a plugin by the root
conftest.py, except in `make check`'s runs, which need no database.
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
from tests import lanes, run

BACKENDS = ["embedded", *(["external"] if os.environ.get("DATABASE_URL") else [])]
EMBEDDED_URL = "OSMOSIS_TEST_EMBEDDED_URL"
"""The environment's name for the run's embedded server, set by the process that started it."""
TEMPLATE_LOCK = 0x05_0515  # pg_advisory_lock's key: the template is made once per server, whoever asks first


def _with_database(url: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


def _embedded_data_dir() -> Path:
    return Path(run.directory()) / "embedded"


def start_embedded_server() -> str:
    """The run's embedded server, started by the process that will stop it (`stop_embedded_server`)."""
    url = embedded.start(_embedded_data_dir())
    os.environ[EMBEDDED_URL] = url
    return url


def stop_embedded_server() -> None:
    if os.environ.pop(EMBEDDED_URL, None) is not None:
        embedded.stop(_embedded_data_dir())
    drop_templates()


@pytest.fixture(scope="session")
def embedded_server_url() -> Iterator[str]:
    if lanes.times_its_work():
        # The drills' own server, at their priority: the other lanes' queries on the run's do not slow theirs.
        data_dir = Path(run.directory()) / f"embedded-{run.worker_id()}"
        yield embedded.start(data_dir)
        embedded.stop(data_dir)
    elif url := os.environ.get(EMBEDDED_URL):
        yield url
    else:
        assert not run.is_worker(), "xdist's controller starts the run's embedded server before its workers"
        yield start_embedded_server()


def pytest_configure(config: pytest.Config) -> None:
    if run.is_controller(config):
        start_embedded_server()  # before the workers start, which find it in the environment
        lanes.lower_the_priority_of_postgres(_embedded_data_dir() / "postgres")


def pytest_unconfigure(config: pytest.Config) -> None:
    if not run.is_worker():
        stop_embedded_server()


def template_name() -> str:
    return f"osmosis_template_{run.identity()}"


_TEMPLATES: set[str] = set()
"""The servers this process has seen the run's template on."""


def _ensure_template(server_url: str) -> str:
    """The run's migrated template on `server_url`, made by whichever process asks first."""
    name = template_name()
    if server_url in _TEMPLATES:
        return name
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (TEMPLATE_LOCK,))
        try:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
                migrate.upgrade(_with_database(server_url, name))
                # No connection to it may stay open: CREATE DATABASE ... TEMPLATE refuses a source in use.
                conn.execute(
                    sql.SQL("ALTER DATABASE {} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false").format(
                        sql.Identifier(name)
                    )
                )
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (TEMPLATE_LOCK,))
    _TEMPLATES.add(server_url)
    with open(Path(run.directory()) / "templates", "a") as servers:
        servers.write(server_url + "\n")
    return name


def drop_templates() -> None:
    """The run's templates dropped from every server they were made on (the embedded one goes with its folder)."""
    try:
        servers = set((Path(run.directory()) / "templates").read_text().split())
    except FileNotFoundError:
        return
    for server_url in servers - {os.environ.get(EMBEDDED_URL)}:
        try:
            with psycopg.connect(server_url, autocommit=True, connect_timeout=5) as conn:
                template = sql.Identifier(template_name())
                conn.execute(sql.SQL("ALTER DATABASE {} WITH IS_TEMPLATE false").format(template))
                conn.execute(sql.SQL("DROP DATABASE {}").format(template))
        except psycopg.OperationalError:
            pass  # the embedded server, already stopped, or a server gone: its data goes with it


def empty_database(server_url: str) -> str:
    name = f"osmosis_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return _with_database(server_url, name)


def migrated_database(server_url: str) -> str:
    """A new database at the migrations' head on `server_url`: a copy of the run's template."""
    template = _ensure_template(server_url)
    name = f"osmosis_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name), sql.Identifier(template)))
    return _with_database(server_url, name)


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
