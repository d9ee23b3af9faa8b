"""Every port's contract, run against every implementation: the in-memory one the use cases' unit tests use,
and PostgreSQL (the embedded server, and DATABASE_URL's when set), as the eventsourcing project runs one
recorder test case against every backend. A test here that one implementation fails is a drift to fix there.

The stores live for the session, as the database does: each test makes games of its own (random ids) and
looks only at them.
"""

import os
from collections.abc import Iterator

import pytest

from server.store import PostgresStore, migrate, open_pool
from tests.databases import BACKENDS, drop_database, migrated_database
from tests.memory_store import MemoryStore


@pytest.fixture(scope="session", params=["memory", *BACKENDS])
def port_store(request: pytest.FixtureRequest) -> Iterator[object]:
    if request.param == "memory":
        yield MemoryStore()
        return
    server_url = (
        request.getfixturevalue("embedded_server_url") if request.param == "embedded" else os.environ["DATABASE_URL"]
    )
    url = migrated_database(server_url)
    pool = open_pool(url, min_size=1, max_size=4, timeout=5, statement_timeout_ms=5000)
    pool.wait()
    yield PostgresStore(pool, migrate.head_revision())
    pool.close()
    drop_database(server_url, url)
