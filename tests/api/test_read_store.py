"""The seam for a second database (create_app's read_store): the reads that only answer clients go to it, whatever
decides a write reads the store it writes to, and the server is ready only when both stores are."""

import pytest

from server.config import Settings
from server.runtime.app import create_app
from tests.api.helpers import create
from tests.memory_store import MemoryStore


class RecordingStore:
    """A store that notes which of its methods were called."""

    def __init__(self, store, readiness=None):
        self._store = store
        self._readiness = readiness
        self.calls = []

    def readiness(self):
        return self._readiness

    def __getattr__(self, name):
        found = getattr(self._store, name)
        if not callable(found):
            return found

        def recorded(*args, **kwargs):
            self.calls.append(name)
            return found(*args, **kwargs)

        return recorded


@pytest.fixture
def stores():
    store = MemoryStore()
    return RecordingStore(store), RecordingStore(store)


@pytest.fixture
def client(stores):
    written, read = stores
    app = create_app(Settings(rate_limit=""), written, read)
    yield app.test_client()
    app.extensions["osmosis.hub"].stop()


def test_creating_and_acting_read_nothing_from_the_read_store(client, stores):
    written, read = stores
    game, token = create(client, variant="osmosis", deal_number=1)
    client.post(f"/games/{game['id']}/draw", headers=token)
    client.post(f"/games/{game['id']}/draw", headers=token, json={"expected_version": 2})

    assert read.calls == []
    assert "write" in written.calls


def test_the_reads_that_answer_clients_go_to_the_read_store(client, stores):
    written, read = stores
    game, token = create(client, variant="osmosis", deal_number=1)
    client.post(f"/games/{game['id']}/resign", headers=token)
    written.calls.clear()

    for path in ("", "/events", "/states/1", "/replay", "/verification"):
        assert client.get(f"/games/{game['id']}{path}").status_code == 200, path
    assert client.get("/games").status_code == 200

    assert {"load_document", "load_events", "load_time_travel", "load_game", "list_games"} <= set(read.calls)
    assert not {"load_document", "load_events", "load_time_travel", "load_game", "list_games"} & set(written.calls)


def test_a_read_store_that_is_not_ready_makes_the_server_not_ready():
    store = MemoryStore()
    app = create_app(Settings(rate_limit=""), store, RecordingStore(store, readiness="the replica is behind"))
    try:
        response = app.test_client().get("/readyz")
    finally:
        app.extensions["osmosis.hub"].stop()

    assert response.status_code == 503
    assert "the replica is behind" in response.get_data(as_text=True)
