"""The barrier that confirms replication, proven by stalling what it waits for: a PostgreSQL of the test's own whose
commits wait for a synchronous standby that never comes (as a primary under Patroni's strict synchronous mode does
once its standbys are gone). What was committed on the primary but never confirmed (a kept reply, a checkpoint)
must not leave the server as settled: the barrier waits, its wait is cut short at the store's hold limit, and the
client gets 503, never the kept 200 of a write a failover could still lose."""

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from server.config import Settings
from server.runtime.app import create_app
from server.service.errors import ReplicationUnconfirmed
from server.store import PostgresStore, embedded, migrate, open_pool

pytestmark = pytest.mark.drill

HOLD_LIMIT = 1.0
NO_STANDBY = "a_standby_that_never_comes"


@pytest.fixture(scope="module")
def primary_alone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A migrated database on a server of its own, whose commits wait for a standby once `standby(url, False)`."""
    data_dir = Path(tmp_path_factory.mktemp("primary-alone"))
    url = embedded.start(data_dir)
    try:
        migrate.upgrade(url)
        yield url
    finally:
        embedded.stop(data_dir)


@pytest.fixture(scope="module")
def log_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data directory of the apps on `primary_alone`: one deployment's, as its database is. An app with a
    directory of its own would keep the log's record in a place other than the one the first app claimed in the
    database, and its log would rightly refuse to sign."""
    return Path(tmp_path_factory.mktemp("log-home"))


def standby(url: str, waited_for: bool) -> None:
    """Commits wait for the named synchronous standby (none ever connects), or for nothing."""
    with psycopg.connect(url, autocommit=True, options="-c synchronous_commit=local") as conn:
        names = NO_STANDBY if waited_for else ""
        conn.execute(psycopg.sql.SQL("ALTER SYSTEM SET synchronous_standby_names = {}").format(names))
        conn.execute("SELECT pg_reload_conf()")


@pytest.fixture
def waiting_for_a_standby(primary_alone: str) -> Iterator[str]:
    standby(primary_alone, True)
    try:
        yield primary_alone
    finally:
        standby(primary_alone, False)


@contextlib.contextmanager
def store_on(url: str) -> Iterator[PostgresStore]:
    """The store as the server opens it, its use of a connection bounded at HOLD_LIMIT."""
    pool = open_pool(url, min_size=1, max_size=2, timeout=5, statement_timeout_ms=500)
    try:
        yield PostgresStore(pool, migrate.head_revision(), hold_limit=HOLD_LIMIT)
    finally:
        pool.close()


def test_the_barrier_waits_for_the_standby_and_says_it_could_not_confirm(waiting_for_a_standby):
    with store_on(waiting_for_a_standby) as store, pytest.raises(ReplicationUnconfirmed):
        store._confirm_replicated()


def test_a_checkpoint_no_standby_has_is_not_served(waiting_for_a_standby):
    with psycopg.connect(waiting_for_a_standby, autocommit=True, options="-c synchronous_commit=local") as conn:
        conn.execute("INSERT INTO log_checkpoints (size, root, note) VALUES (1, %s, 'a note')", (bytes(32),))
        try:
            with store_on(waiting_for_a_standby) as store, pytest.raises(ReplicationUnconfirmed):
                store.latest_checkpoint()
        finally:
            conn.execute("TRUNCATE log_checkpoints CASCADE")


def test_a_retry_of_an_action_no_standby_confirmed_is_503_until_one_has_it(primary_alone, log_home):
    settings = Settings(
        database_url=primary_alone,
        data_dir=log_home,  # the log's key and record of this database's, not the run's (which other databases share)
        rate_limit="",
        pool_min_size=1,
        pool_max_size=4,
        statement_timeout_ms=int(HOLD_LIMIT * 1000 / 2),
    )
    app = create_app(settings)
    client = app.test_client()
    try:
        game = client.post("/games", json={"variant": "osmosis"}).get_json()
        headers = {"Authorization": f"Bearer {game['player_token']}", "Idempotency-Key": "draw-while-alone"}
        standby(primary_alone, True)
        try:
            first = client.post(f"/games/{game['id']}/draw", headers=headers)
            retries = [client.post(f"/games/{game['id']}/draw", headers=headers) for _ in range(2)]
        finally:
            standby(primary_alone, False)
        settled = client.post(f"/games/{game['id']}/draw", headers=headers)
        after = client.get(f"/games/{game['id']}").get_json()
    finally:
        for name in ("osmosis.sequencer", "osmosis.upkeep", "osmosis.referee", "osmosis.hub"):
            app.extensions[name].stop()
        app.extensions["osmosis.pool"].close()

    assert first.status_code == 503, first.get_data(as_text=True)
    for retry in retries:
        # The reply was kept on the primary with the action: served as 200, it would be a promise no standby holds.
        assert retry.status_code == 503, retry.get_data(as_text=True)
        assert retry.headers["Retry-After"]
    assert settled.status_code == 200, settled.get_data(as_text=True)
    assert settled.get_json()["game"]["version"] == 2
    assert after["version"] == 2, "the retries drew again"


def test_readiness_while_no_standby_confirms_answers_and_says_writes_wait(primary_alone, log_home):
    """The barrier guards what leaves the server as settled, never a look at the server's standing: /readyz stays
    200 and says why writes answer 503 (found by the no-standby cluster drill once the barrier waited)."""
    app = create_app(
        Settings(
            database_url=primary_alone,
            data_dir=log_home,
            rate_limit="",
            statement_timeout_ms=500,
            log_interval_seconds=0.1,
        )
    )
    client = app.test_client()
    try:
        client.post("/games", json={"variant": "peek"})
        deadline = time.monotonic() + 20
        while client.get("/log/checkpoint").status_code != 200:
            assert time.monotonic() < deadline, "the log signed no checkpoint"
            time.sleep(0.1)
        standby(primary_alone, True)
        try:
            client.post("/games", json={"variant": "peek"})  # committed on the primary, its checkpoint unconfirmed
            time.sleep(1)
            started = time.monotonic()
            readiness = client.get("/readyz")
            took = time.monotonic() - started
        finally:
            standby(primary_alone, False)
    finally:
        for name in ("osmosis.sequencer", "osmosis.upkeep", "osmosis.referee", "osmosis.hub"):
            app.extensions[name].stop()
        app.extensions["osmosis.pool"].close()

    assert readiness.status_code == 200, readiness.get_json()
    assert readiness.get_json()["writes"].startswith("waiting for a synchronous standby"), readiness.get_json()
    assert took < 2, f"/readyz took {took:.1f} s"
