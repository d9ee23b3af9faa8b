"""`osmosis verify --log-key`: an export's proofs of inclusion in the public log, checked offline against the
pinned key; every forgery named."""

import copy
import json
import uuid

import pytest

from server.cli.main import main
from server.config import Settings
from server.runtime.app import create_app
from server.transparency.notes import generate_signer
from tests.api.helpers import LOG_SIGNER, create, rehash

SIGNER = LOG_SIGNER
OTHER = generate_signer("osmosis.test/verify-log")


def logged_export(store, as_player=False):
    app = create_app(Settings(rate_limit="", log_signing_key=SIGNER.skey, log_interval_seconds=0.0), store)
    client = app.test_client()
    headers = {}
    if as_player:
        made = client.post("/players", json={"name": f"logged{uuid.uuid4().hex[:8]}"}).get_json()
        headers = {"Authorization": f"Bearer {made['token']}"}
    game, token = create(client, headers, variant="osmosis")
    client.post(f"/games/{game['id']}/resign", headers=token)
    while app.extensions["osmosis.sequencer"].run_once() is not None:
        pass
    export = client.get(f"/games/{game['id']}/replay").get_json()
    app.extensions["osmosis.hub"].stop()
    return export


@pytest.fixture(scope="module")
def finished_export(store):
    return logged_export(store)


def test_a_players_logged_export_names_the_player_in_its_entry_and_verifies(tmp_path, capsys, store):
    export = logged_export(store, as_player=True)
    created = json.loads(export["transparency"]["leaves"][0]["entry"])
    assert created["player"] == export["events"][0]["data"]["player"]
    assert verify(tmp_path, capsys, export)[0] == 0

    export["events"][0]["data"]["player"]["name"] = "mallory"
    rehash(export)
    status, out = verify(tmp_path, capsys, export)
    assert status != 0 and "player" in out


def verify(tmp_path, capsys, document, key=SIGNER.verifier.vkey):
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(document))
    status = main(["verify", "--log-key", key, str(path)])
    return status, capsys.readouterr().out


def test_a_logged_export_verifies_with_the_logs_key(tmp_path, capsys, finished_export):
    assert [leaf["kind"] for leaf in finished_export["transparency"]["leaves"]] == ["game_created", "game_ended"]
    status, out = verify(tmp_path, capsys, finished_export)
    assert status == 0, out
    index = finished_export["transparency"]["leaves"][0]["index"]
    size = finished_export["transparency"]["tree_size"]
    assert f"Logged: in the public log at index {index}, checkpoint of size {size}" in out
    key_file = tmp_path / "log.key"
    key_file.write_text(SIGNER.verifier.vkey + "\n")
    assert verify(tmp_path, capsys, finished_export, str(key_file))[0] == 0


def tampered_entry(document):
    leaf = document["transparency"]["leaves"][0]
    leaf["entry"] = leaf["entry"].replace('"commitment":"', '"commitment":"0', 1)


def forged_checkpoint(document):
    section = document["transparency"]
    size = section["tree_size"]
    section["checkpoint"] = section["checkpoint"].replace(f"\n{size}\n", f"\n{size + 1}\n")


def proof_of_another_leaf(document):
    leaves = document["transparency"]["leaves"]
    first, second = leaves[0]["inclusion_proof"], leaves[1]["inclusion_proof"]
    leaves[0]["inclusion_proof"], leaves[1]["inclusion_proof"] = second, first


def truncated_proof(document):
    document["transparency"]["leaves"][1]["inclusion_proof"].pop()


def other_games_end(document):
    document["transparency"]["leaves"][1]["entry"] = document["transparency"]["leaves"][1]["entry"].replace(
        '"head_hash":"', '"head_hash":"f', 1
    )


def no_section(document):
    del document["transparency"]


@pytest.mark.parametrize(
    ("forge", "named"),
    [
        (tampered_entry, "leaf_hash of leaf"),
        (forged_checkpoint, "does not verify"),
        (proof_of_another_leaf, "inclusion proof"),
        (truncated_proof, "shorter than the tree is high"),
        (other_games_end, "leaf_hash"),
        (no_section, "no proofs of inclusion"),
    ],
)
def test_every_forgery_is_invalid_and_named(tmp_path, capsys, finished_export, forge, named):
    document = copy.deepcopy(finished_export)
    forge(document)
    status, out = verify(tmp_path, capsys, document)
    assert status == 1 and named in out, out


def test_another_key_of_the_same_name_is_refused(tmp_path, capsys, finished_export):
    status, out = verify(tmp_path, capsys, finished_export, OTHER.verifier.vkey)
    assert status == 1 and "no signature of a trusted key" in out


def test_an_export_made_before_its_end_was_logged_is_valid_as_far_as_proven(tmp_path, capsys, finished_export):
    document = copy.deepcopy(finished_export)
    document["transparency"]["leaves"] = document["transparency"]["leaves"][:1]
    document["transparency"]["pending"] = ["game_ended"]
    status, out = verify(tmp_path, capsys, document)
    assert status == 3 and "the game's end is not in the log's checkpoint yet" in out


def test_a_malformed_section_is_invalid_without_a_key_too(tmp_path, capsys, finished_export):
    document = copy.deepcopy(finished_export)
    document["transparency"]["leaves"][0]["index"] = "zero"
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(document))
    assert main(["verify", str(path)]) == 1
    assert "transparency section" in capsys.readouterr().out


def test_an_unusable_key_is_a_usage_error(tmp_path, capsys, finished_export):
    assert verify(tmp_path, capsys, finished_export, "not-a-key")[0] == 2
