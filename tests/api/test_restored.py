"""What a client sees of a database restored from a backup older than the public log: a game the log saw created
and the database lacks is 410 Gone naming its entry (404 stays for games never made), and /readyz says whether the
log signs."""

from uuid import UUID, uuid4

import pytest

from server.config import Settings
from server.log.events import ReplayError
from server.log.public_entries import GAME_CREATED
from server.log.replay import verify, verify_in_log
from server.runtime.app import create_app
from tests.api.helpers import LOG_SIGNER, create
from tests.memory_store import MemoryStore, backup_of


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


def test_while_the_log_signs_nothing_an_export_is_whole_without_its_proofs_and_a_served_size_is_behind(tmp_path):
    settings = Settings(
        rate_limit="", log_signing_key=LOG_SIGNER.skey, log_interval_seconds=0.0, log_tiles_dir=tmp_path / "tiles"
    )
    store = MemoryStore()
    app = create_app(settings, store)
    client = app.test_client()
    game, headers = create(client, variant="osmosis")
    assert client.post(f"/games/{game['id']}/resign", headers=headers).status_code == 200
    app.extensions["osmosis.sequencer"].run_once()
    restored = backup_of(store)
    create(client, variant="peek")
    app.extensions["osmosis.sequencer"].run_once()
    served = store.published_checkpoint().size

    app = create_app(settings, restored)  # the server again, on the database restored behind its log
    client = app.test_client()
    app.extensions["osmosis.sequencer"].run_once()
    assert "is behind" in client.get("/readyz").get_json()["log"]

    export = client.get(f"/games/{game['id']}/replay")
    assert export.status_code == 200, export.get_data(as_text=True)
    document = export.get_json()
    assert "transparency" not in document and "recovered" in document["transparency_unavailable"]
    assert verify(document).valid and verify(document).complete
    with pytest.raises(ReplayError, match="could not give them then"):
        verify_in_log(document, LOG_SIGNER.verifier)
    assert client.post("/replays/verification", json=document).get_json()["valid"] is True

    assert client.get("/log/checkpoint").get_data(as_text=True).splitlines()[1] == str(served)
    behind = client.get(f"/log/consistency?from=1&to={served}")
    assert behind.status_code == 503 and behind.get_json()["code"] == "log-behind", behind.get_json()
