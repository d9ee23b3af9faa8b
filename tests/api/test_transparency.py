"""The public log over HTTP: a game's entries and proofs, the checkpoint and key, tiles, bundles and consistency
proofs, as a client that trusts only the pinned key checks them; and every malformed path a 4xx problem."""

import base64
import json

import psycopg
import pytest

from server.config import Settings
from server.log import public_entries
from server.runtime.app import create_app
from server.transparency.merkle import leaf_hash, tree_hash, verify_consistency, verify_inclusion
from server.transparency.notes import open_checkpoint, parse_verifier
from server.transparency.tiles import bundle_entries, tile_subtrees
from tests.api.helpers import LOG_SIGNER, create
from tests.memory_store import MemoryStore

SIGNER = LOG_SIGNER


@pytest.fixture(scope="module")
def log_app(store):
    app = create_app(Settings(rate_limit="", log_signing_key=SIGNER.skey, log_interval_seconds=0.0), store)
    yield app
    app.extensions["osmosis.hub"].stop()


@pytest.fixture
def log_client(log_app):
    return log_app.test_client()


def sequence(app):
    sequencer = app.extensions["osmosis.sequencer"]
    while sequencer.run_once() is not None:
        pass


def b64(text):
    return base64.b64decode(text)


def pinned_key(client):
    response = client.get("/log/key")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    return parse_verifier(response.get_data(as_text=True))


def test_a_games_entries_are_proven_in_the_signed_checkpoint(log_app, log_client):
    game, token = create(log_client, variant="osmosis")
    assert log_client.post(f"/games/{game['id']}/resign", headers=token).status_code == 200
    over = log_client.get(f"/games/{game['id']}").get_json()
    sequence(log_app)

    body = log_client.get(f"/games/{game['id']}/transparency").get_json()
    checkpoint, _, _ = open_checkpoint(body["checkpoint"], pinned_key(log_client))
    assert (checkpoint.size, checkpoint.root) == (body["tree_size"], b64(body["root_hash"]))
    assert body["pending"] == []
    assert [leaf["kind"] for leaf in body["leaves"]] == ["game_created", "game_ended"]
    for leaf in body["leaves"]:
        entry = leaf["entry"].encode()
        assert b64(leaf["leaf_hash"]) == leaf_hash(entry)
        verify_inclusion(
            leaf["index"], checkpoint.size, leaf_hash(entry), [b64(h) for h in leaf["inclusion_proof"]], checkpoint.root
        )
    created, ended = (public_entries.parse_entry(leaf["entry"].encode()) for leaf in body["leaves"])
    assert created["game_id"] == game["id"] and created["commitment"] == game["commitment"]
    assert created["deal"] == game["deal"] and created["rules"] == game["rules"]
    assert ended["head_hash"] == over["head_hash"] and ended["events"] == over["version"]
    assert ended["status"] == "resigned" and ended["server_seed"] == over["deal"]["server_seed"]


def test_a_sealed_deal_is_logged_when_sealed_and_named_with_its_game(log_app, log_client):
    sealed = log_client.post("/deals").get_json()
    sequence(log_app)
    game, _ = create(log_client, variant="osmosis", sealed_deal_id=sealed["id"], client_seed="mine")
    body = log_client.get(f"/games/{game['id']}/transparency").get_json()
    assert [leaf["kind"] for leaf in body["leaves"]] == ["deal_sealed"] and body["pending"] == ["game_created"]
    assert json.loads(body["leaves"][0]["entry"]) == {
        "kind": "deal_sealed",
        "sealed_deal_id": sealed["id"],
        "commitment": sealed["commitment"],
    }
    sequence(log_app)
    body = log_client.get(f"/games/{game['id']}/transparency").get_json()
    assert [leaf["kind"] for leaf in body["leaves"]] == ["deal_sealed", "game_created"] and body["pending"] == []


def test_the_tree_rebuilt_from_tiles_and_bundles_is_the_checkpoints(log_app, log_client):
    for _ in range(3):
        create(log_client, variant="osmosis")
    sequence(log_app)
    response = log_client.get("/log/checkpoint")
    assert response.status_code == 200 and response.headers["Content-Type"] == "text/plain; charset=utf-8"
    checkpoint, _, _ = open_checkpoint(response.get_data(as_text=True), pinned_key(log_client))
    size = checkpoint.size
    tiles = {}

    def read(level, index):
        width = (size >> (8 * level)) - 256 * index
        path = f"/log/tile/{level}/{index:03d}" + (f".p/{width}" if width < 256 else "")
        if (level, index) not in tiles:
            tile = log_client.get(path)
            assert tile.status_code == 200, path
            assert tile.headers["Cache-Control"] == (
                "public, max-age=31536000, immutable" if width >= 256 else "public, max-age=5"
            )
            tiles[(level, index)] = tile.get_data()
        return tiles[(level, index)]

    assert tree_hash(size, tile_subtrees(read)) == checkpoint.root
    last_bundle = (size - 1) // 256
    width = size - 256 * last_bundle
    bundle = log_client.get(f"/log/tile/entries/{last_bundle:03d}" + (f".p/{width}" if width < 256 else ""))
    entries = bundle_entries(bundle.get_data())
    assert [leaf_hash(e) for e in entries] == [read(0, last_bundle)[i * 32 : (i + 1) * 32] for i in range(width)]
    assert all(public_entries.parse_entry(e) for e in entries)


def test_consistency_proofs_between_any_two_sizes(log_app, log_client):
    create(log_client, variant="osmosis")
    sequence(log_app)
    first = open_checkpoint(log_client.get("/log/checkpoint").get_data(as_text=True), SIGNER.verifier)[0]
    create(log_client, variant="osmosis")
    create(log_client, variant="osmosis")
    sequence(log_app)
    second = open_checkpoint(log_client.get("/log/checkpoint").get_data(as_text=True), SIGNER.verifier)[0]
    body = log_client.get(f"/log/consistency?from={first.size}&to={second.size}").get_json()
    assert (body["from"], body["to"]) == (first.size, second.size)
    verify_consistency(first.size, second.size, first.root, second.root, [b64(h) for h in body["proof"]])


@pytest.mark.parametrize("query", ["from=2&to=1", "from=1&to=999999999999"])
def test_a_consistency_proof_the_log_cannot_give_is_404(log_app, log_client, query):
    create(log_client, variant="osmosis")
    sequence(log_app)
    response = log_client.get(f"/log/consistency?{query}")
    assert response.status_code == 404 and response.get_json()["code"] == "not-in-log"


@pytest.mark.parametrize(
    "query",
    ["", "from=1", "from=0&to=1", "from=x&to=2", "from=1&to=-3", "from=1.5&to=2", "from=1&to=99999999999999999999999"],
)
def test_a_malformed_consistency_query_is_422(log_client, query):
    response = log_client.get(f"/log/consistency?{query}")
    assert response.status_code == 422 and response.mimetype == "application/problem+json"


@pytest.mark.parametrize(
    "path",
    [
        "0/1",
        "0/0001",
        "64/000",
        "-1/000",
        "00/000",
        "x/000",
        "0/000.p/0",
        "0/000.p/256",
        "0/000.p/007",
        "entries/000.p/",
        "0/x999/x999/x999/x999/x999/x999/999",
        "0/x001/x234/06\u0667",
        "../../etc/passwd",
        "0/000/",
        "0/" + "x000/" * 2000 + "000",
        "0/x010/x000/x000/x000/x000/x000/000",
        "entries",
        "0/%00",
        "0/000.p/1.p/1",
    ],
)
def test_a_malformed_tile_path_is_a_404_problem(log_client, path):
    response = log_client.get(f"/log/tile/{path}")
    assert response.status_code == 404 and response.mimetype == "application/problem+json", path


def test_a_tile_past_the_tree_or_full_while_partial_is_404(log_app, log_client):
    create(log_client, variant="osmosis")
    sequence(log_app)
    size = open_checkpoint(log_client.get("/log/checkpoint").get_data(as_text=True), SIGNER.verifier)[0].size
    for path in [f"0/x{size // 256 + 1:03d}/000", f"0/{size // 256 + 1:03d}", "7/000", "entries/x100/000"]:
        response = log_client.get(f"/log/tile/{path}")
        assert response.status_code == 404 and response.get_json()["code"] == "not-in-log", path
    if size % 256:
        assert log_client.get(f"/log/tile/0/{size // 256:03d}").status_code == 404
        wider = size % 256 + 1
        if wider < 256:
            assert log_client.get(f"/log/tile/0/{size // 256:03d}.p/{wider}").status_code == 404


def test_before_the_first_checkpoint_the_log_says_so():
    store = MemoryStore()
    app = create_app(Settings(rate_limit="", log_signing_key=SIGNER.skey), store)
    client = app.test_client()
    game, _ = create(client, variant="osmosis")
    for path in ["/log/checkpoint", f"/games/{game['id']}/transparency", "/log/consistency?from=1&to=1"]:
        response = client.get(path)
        assert response.status_code == 404 and response.get_json()["code"] == "log-not-started", path
    assert client.get("/log/tile/0/000.p/1").status_code == 404
    app.extensions["osmosis.sequencer"].run_once()
    assert client.get(f"/games/{game['id']}/transparency").get_json()["leaves"][0]["index"] == 0
    app.extensions["osmosis.hub"].stop()


def test_an_unknown_game_is_404(log_app, log_client):
    create(log_client, variant="osmosis")
    sequence(log_app)
    response = log_client.get("/games/00000000-0000-4000-8000-000000000000/transparency")
    assert response.status_code == 404 and response.get_json()["code"] == "game-not-found"


@pytest.mark.parametrize("table", ["log_leaves", "log_checkpoints"])
def test_the_logs_rows_cannot_be_changed_or_deleted(log_app, log_client, db, table):
    create(log_client, variant="osmosis")
    sequence(log_app)
    with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
        db.execute(f"DELETE FROM {table}")
    with pytest.raises(psycopg.errors.RaiseException, match="only grow"):
        db.execute("UPDATE log_tiles SET hashes = hashes WHERE width = 256 OR true")
