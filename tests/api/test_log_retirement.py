"""A log retired when the entries a restore took are gone for good: its final checkpoint, signed by its key, names
its successor; the new log goes on from the surviving tree under its own key, its first entry naming the retired
log; the retired key signs nothing more; a monitor pinned to it reports the retirement, and a replay exported before
still verifies against it."""

import json

import pytest

from server.cli.main import main as cli_main
from server.config import Settings
from server.log.public_entries import LOG_RETIRED, parse_entry
from server.log.replay import verify_in_log
from server.monitor.audit import MonitorState, audit
from server.runtime.app import create_app
from server.service.public_log.log import KeyMismatch, PublicLog
from server.service.public_log.retirement import RetirementRefused, final_checkpoint_of, retire
from server.transparency.notes import generate_signer, open_checkpoint
from server.transparency.tiles import TILE_WIDTH, bundle_entries
from tests.api.helpers import LOG_SIGNER, create
from tests.memory_store import MemoryStore, backup_of

SUCCESSOR = generate_signer("osmosis.test/api-log/2026-11-27")


def app_on(store, signer):
    settings = Settings(rate_limit="", log_signing_key=signer.skey, log_interval_seconds=0.0)
    return create_app(settings, store)


def play(app, games):
    client = app.test_client()
    for _ in range(games):
        game, token = create(client, variant="osmosis")
        client.post(f"/games/{game['id']}/resign", headers=token)
    while app.extensions["osmosis.sequencer"].run_once() is not None:
        pass
    return game


def fetcher(app):
    client = app.test_client()

    def fetch(path):
        answered = client.get(path)
        if answered.status_code != 200:
            raise OSError(f"{path} answered {answered.status_code}")
        return answered.get_data()

    return fetch


@pytest.fixture
def retired():
    """A log that published more than its restored database holds (and whose tiles are lost too), retired: (the
    store, the app of the new log, the retirement, the monitor's state from before the loss, an export from before,
    the last checkpoint published)."""
    store = MemoryStore()
    old = app_on(store, LOG_SIGNER)
    play(old, 2)
    backup = backup_of(store)
    last_game = play(old, 2)
    state = MonitorState()
    assert audit(fetcher(old), LOG_SIGNER.verifier, [], state).ok
    export = old.test_client().get(f"/games/{last_game['id']}/replay").get_json()
    last = store.published_checkpoint()

    retirement = retire(backup, LOG_SIGNER, SUCCESSOR, last)
    new = app_on(backup, SUCCESSOR)
    first = new.extensions["osmosis.sequencer"].run_once()
    assert first is not None
    return backup, new, retirement, state, export, last


def test_the_final_checkpoint_is_the_last_published_tree_naming_its_successor(retired):
    _, _, retirement, _, _, last = retired
    final = final_checkpoint_of(retirement, LOG_SIGNER.verifier)
    assert (final.size, final.root) == (last.size, last.root)
    assert final.extensions == (f"successor {SUCCESSOR.verifier.vkey}",)


def test_the_new_log_goes_on_from_the_surviving_tree_its_first_entry_naming_the_retired_log(retired):
    store, new, retirement, _, _, last = retired
    checkpoint = open_checkpoint(new.test_client().get("/log/checkpoint").get_data(as_text=True), SUCCESSOR.verifier)[0]
    surviving = max(c.size for c in store._checkpoints if c.note.startswith(LOG_SIGNER.name + "\n"))
    assert surviving < last.size
    assert checkpoint.size == surviving + 1
    entry = parse_entry(bundle_entries(store._bundles[surviving // TILE_WIDTH])[surviving % TILE_WIDTH])
    assert entry["kind"] == LOG_RETIRED
    assert (entry["origin"], entry["verifier_key"]) == (LOG_SIGNER.name, LOG_SIGNER.verifier.vkey)
    assert entry["final_checkpoint"] == retirement.final_checkpoint
    listed = new.test_client().get("/log/retirements").get_json()["retirements"]
    assert [(r["origin"], r["successor_key"]) for r in listed] == [(LOG_SIGNER.name, SUCCESSOR.verifier.vkey)]
    play(new, 2)  # and it goes on
    assert audit(fetcher(new), SUCCESSOR.verifier, [], MonitorState()).ok


def test_the_retired_key_signs_nothing_more_and_a_log_is_retired_once(retired):
    store, _, _, _, _, last = retired
    with pytest.raises(KeyMismatch, match="retired"):
        PublicLog(store, store, LOG_SIGNER, spacing=0).sequence()
    with pytest.raises(RetirementRefused, match="retired already"):
        retire(store, LOG_SIGNER, generate_signer("osmosis.test/another"), last)


def test_a_monitor_pinned_to_the_retired_key_reports_the_retirement(retired):
    _, new, _, state, _, _ = retired
    kept = MonitorState.from_json(state.to_json())
    report = audit(fetcher(new), LOG_SIGNER.verifier, [], kept)
    assert report.ok, report.problems
    assert "retired on" in report.retired and SUCCESSOR.verifier.vkey in report.retired
    assert kept.to_json() == state.to_json(), "the monitor's state moved past the retired log"

    ahead = MonitorState.from_json(json.dumps({**json.loads(state.to_json()), "size": state.size + 5}))
    assert not audit(fetcher(new), LOG_SIGNER.verifier, [], ahead).ok


def test_a_replay_exported_before_still_verifies_against_the_retired_key(retired):
    _, _, _, _, export, _ = retired
    where, unproven = verify_in_log(export, LOG_SIGNER.verifier)
    assert where and not unproven


def test_log_retire_refuses_a_new_key_that_is_not_a_signing_key_before_touching_any_database(
    monkeypatch, tmp_path, capsys
):
    monkeypatch.setenv("OSMOSIS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")  # never reached
    monkeypatch.delenv("LOG_SIGNING_KEY", raising=False)
    foreign = tmp_path / "not-a-key"  # a verifier key, the public half: what a careless operator may hand it
    foreign.write_text("localhost/osmosis-log+2e744a01+AWvEA7rT3Qm17RUwcwoJgOGquOTiycfCP2PKU5WdO095\n")

    assert cli_main(["log", "retire", "--new-key", str(foreign)]) == 2
    assert "--new-key is not a signing key" in capsys.readouterr().err


def test_log_retire_with_log_signing_key_set_asks_for_the_successors_key(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("OSMOSIS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")  # never reached
    monkeypatch.setenv("LOG_SIGNING_KEY", generate_signer("localhost/osmosis-log").skey)

    assert cli_main(["log", "retire"]) == 2
    assert "give it as --new-key" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # no key made for a successor nobody asked for
