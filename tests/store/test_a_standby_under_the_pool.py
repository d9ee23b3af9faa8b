"""A connection left on a node that became a standby (after a failover, the old primary comes back as one): its
writes fail with ReadOnlySqlTransaction. The server answers 503 with Retry-After, never a 500, and drops that
connection, so that the pool's next one finds the primary (libpq's `target_session_attrs=read-write` does the
finding on a multi-host URL). Played here on one PostgreSQL whose sessions are made read-only, then writable again."""

import psycopg
import pytest

from server.config import Settings
from server.runtime.app import create_app
from tests.databases import drop_database, migrated_database
from tests.waiting import until


@pytest.fixture
def database(embedded_server_url):
    url = migrated_database(embedded_server_url)
    yield url
    drop_database(embedded_server_url, url)


def sessions_read_only(url: str, read_only: bool) -> None:
    """New sessions of the database read-only (as a standby's are) or not, and every session open now ended, as a
    failover ends them: the pool opens new ones. Ended, not only told to end: pg_terminate_backend returns once it
    has signalled, and a session still on its way out looks alive to the pool (its goodbye not sent yet)."""
    with psycopg.connect(url, autocommit=True, options="-c default_transaction_read_only=off") as conn:
        name = conn.info.dbname
        setting = "SET default_transaction_read_only = on" if read_only else "RESET default_transaction_read_only"
        conn.execute(psycopg.sql.SQL("ALTER DATABASE {} " + setting).format(psycopg.sql.Identifier(name)))
        ended = [
            pid
            for (pid,) in conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (name,)
            ).fetchall()
        ]
        conn.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", (ended,))
        until(
            lambda: (
                not conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", (ended,)).fetchone()[0]
            )
        )


def test_a_write_on_a_read_only_session_is_a_503_and_the_next_session_writes(database):
    app = create_app(Settings(database_url=database, rate_limit="", pool_min_size=1, pool_max_size=2))
    client = app.test_client()
    try:
        assert client.post("/games", json={}).status_code == 201
        sessions_read_only(database, True)
        refused = [client.post("/games", json={}) for _ in range(3)]
        read = client.get("/games")
        sessions_read_only(database, False)
        # Were a read-only session put back in the pool, this would be refused too: it is gone.
        after = [client.post("/games", json={}).status_code for _ in range(3)]
    finally:
        for name in ("osmosis.sequencer", "osmosis.upkeep", "osmosis.referee", "osmosis.hub"):
            app.extensions[name].stop()
        app.extensions["osmosis.pool"].close()

    for response in refused:
        assert response.status_code == 503, response.get_data(as_text=True)
        assert response.get_json()["code"] == "service-unavailable"
        assert response.headers["Retry-After"] == "1"
    assert read.status_code == 200
    assert after == [201, 201, 201]
