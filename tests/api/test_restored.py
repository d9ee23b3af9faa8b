"""What a client sees of a database restored from a backup older than the public log: a game the log saw created
and the database lacks is 410 Gone naming its entry (404 stays for games never made), and /readyz says whether the
log signs."""

from uuid import UUID, uuid4

from server.config import Settings
from server.log.public_entries import GAME_CREATED
from server.runtime.app import create_app
from tests.api.helpers import LOG_SIGNER, create
from tests.memory_store import MemoryStore


def test_a_game_the_log_saw_created_and_the_database_lacks_is_gone_naming_its_entry():
    store = MemoryStore()
    app = create_app(Settings(rate_limit="", log_signing_key=LOG_SIGNER.skey, log_interval_seconds=0.0), store)
    client = app.test_client()
    game, headers = create(client, variant="osmosis")
    app.extensions["osmosis.sequencer"].run_once()
    entry = next(index for index, kind in store.leaves_of([UUID(game["id"])]) if kind == GAME_CREATED)
    del store._games[UUID(game["id"])]  # the restore's loss

    for method, path in (("get", ""), ("get", "/events"), ("get", "/replay"), ("post", "/draw")):
        answered = getattr(client, method)(f"/games/{game['id']}{path}", headers=headers)
        assert answered.status_code == 410, path
        body = answered.get_json()
        assert body["code"] == "game-gone" and body["log_entry"] == entry
        assert f"entry {entry} records its creation" in body["detail"]
    assert client.get(f"/games/{uuid4()}").get_json()["code"] == "game-not-found"
    assert client.get("/readyz").get_json()["log"] == "ok"
