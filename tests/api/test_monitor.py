"""`osmosis audit` against a live log: it follows the log run after run, verifies every finished game, and
catches a rewritten entry, a truncated bundle, a forged checkpoint, a missing cosignature and a split view."""

import json

import pytest

from server.config import Settings
from server.monitor.audit import MonitorState, audit
from server.runtime.app import create_app
from server.transparency.notes import COSIGNATURE_V1, Checkpoint, generate_signer, open_checkpoint, sign_note
from tests.api.helpers import LOG_SIGNER, create
from tests.memory_store import MemoryStore


class Server:
    """An app on a log of its own (in memory), fetched as the monitor fetches over HTTP, with ways to lie."""

    def __init__(self):
        self.app = create_app(
            Settings(rate_limit="", log_signing_key=LOG_SIGNER.skey, log_interval_seconds=0.0), MemoryStore()
        )
        self.client = self.app.test_client()
        self.rewrite = {}

    def play(self, games=3):
        for _ in range(games):
            game, token = create(self.client, variant="osmosis")
            self.client.post(f"/games/{game['id']}/resign", headers=token)
        create(self.client, variant="osmosis")  # one still being played
        while self.app.extensions["osmosis.sequencer"].run_once() is not None:
            pass

    def fetch(self, path):
        if path in self.rewrite:
            return self.rewrite[path]
        response = self.client.get(path)
        if response.status_code != 200:
            raise OSError(f"{path} answered {response.status_code}")
        return response.get_data()


@pytest.fixture
def server():
    server = Server()
    yield server
    server.app.extensions["osmosis.hub"].stop()


def test_the_monitor_follows_the_log_run_after_run(server):
    state = MonitorState()
    server.play(3)
    first = audit(server.fetch, LOG_SIGNER.verifier, [], state)
    assert first.ok, first.problems
    assert (first.new_entries, first.games_verified) == (7, 3) and state.size == 7
    server.play(2)
    second = audit(server.fetch, LOG_SIGNER.verifier, [], MonitorState.from_json(state.to_json()))
    assert second.ok, second.problems
    assert (second.checkpoint_size, second.new_entries, second.games_verified) == (12, 5, 2)


def test_a_rewritten_entry_does_not_hash_to_the_root(server):
    server.play(1)
    bundle = server.fetch("/log/tile/entries/000.p/3")
    at = bundle.index(b'"head_hash":"') + len(b'"head_hash":"')
    flipped = b"0" if bundle[at : at + 1] != b"0" else b"1"
    server.rewrite["/log/tile/entries/000.p/3"] = bundle[:at] + flipped + bundle[at + 1 :]
    report = audit(server.fetch, LOG_SIGNER.verifier, [], MonitorState())
    assert not report.ok and "do not hash to the root" in report.problems[0]


def test_a_truncated_bundle_is_named(server):
    server.play(1)
    server.rewrite["/log/tile/entries/000.p/3"] = server.fetch("/log/tile/entries/000.p/3")[:-5]
    report = audit(server.fetch, LOG_SIGNER.verifier, [], MonitorState())
    assert not report.ok and "truncated" in report.problems[0]


def test_a_forged_checkpoint_and_a_wrong_key_are_refused(server):
    server.play(1)
    note = server.fetch("/log/checkpoint").decode()
    server.rewrite["/log/checkpoint"] = note.replace("\n3\n", "\n4\n").encode()
    report = audit(server.fetch, LOG_SIGNER.verifier, [], MonitorState())
    assert not report.ok and "does not verify" in report.problems[0]
    del server.rewrite["/log/checkpoint"]
    impostor = generate_signer(LOG_SIGNER.name)
    report = audit(server.fetch, impostor.verifier, [], MonitorState())
    assert not report.ok and "no signature of a trusted key" in report.problems[0]


def test_a_cosignature_asked_for_must_be_there(server):
    server.play(1)
    witness = generate_signer("witness.test/w1", COSIGNATURE_V1)
    report = audit(server.fetch, LOG_SIGNER.verifier, [witness.verifier], MonitorState())
    assert not report.ok and "no cosignature of witness witness.test/w1" in report.problems[0]


def test_a_split_view_is_reported_with_both_checkpoints(server):
    server.play(1)
    state = MonitorState()
    assert audit(server.fetch, LOG_SIGNER.verifier, [], state).ok
    # The log shows this monitor another tree of the same size, signed with its own key.
    other = sign_note(Checkpoint(LOG_SIGNER.name, state.size, b"\x07" * 32).text, LOG_SIGNER)
    server.rewrite["/log/checkpoint"] = other.encode()
    report = audit(server.fetch, LOG_SIGNER.verifier, [], state)
    assert not report.ok and report.problems[0].startswith("split view")
    assert report.split_view == [state.checkpoint, other]
    for note in report.split_view:
        open_checkpoint(note, LOG_SIGNER.verifier)  # both signed by the log: evidence anyone can check
    # A larger tree that does not extend the one kept.
    grown = sign_note(Checkpoint(LOG_SIGNER.name, state.size + 1, b"\x08" * 32).text, LOG_SIGNER)
    server.rewrite["/log/checkpoint"] = grown.encode()
    report = audit(server.fetch, LOG_SIGNER.verifier, [], state)
    assert not report.ok and report.split_view == [state.checkpoint, grown]


def test_an_older_checkpoint_proven_a_prefix_is_a_stale_view_not_a_split_view(server):
    server.play(1)
    old_note = server.fetch("/log/checkpoint")
    server.play(2)
    state = MonitorState()
    assert audit(server.fetch, LOG_SIGNER.verifier, [], state).ok
    kept = (state.checkpoint, state.size)

    server.rewrite["/log/checkpoint"] = old_note  # a cache, a lagging replica: the log as it was
    report = audit(server.fetch, LOG_SIGNER.verifier, [], state)

    assert report.ok and report.split_view is None, report.problems
    assert report.stale_view is not None and "stale" in report.stale_view
    assert (state.checkpoint, state.size) == kept, "the monitor's state does not go back"


def test_an_older_checkpoint_that_is_no_prefix_is_a_split_view(server):
    server.play(2)
    state = MonitorState()
    assert audit(server.fetch, LOG_SIGNER.verifier, [], state).ok
    other = sign_note(Checkpoint(LOG_SIGNER.name, state.size - 1, b"\x09" * 32).text, LOG_SIGNER)
    server.rewrite["/log/checkpoint"] = other.encode()

    report = audit(server.fetch, LOG_SIGNER.verifier, [], state)

    assert not report.ok and report.problems[0].startswith("split view")
    assert report.split_view == [state.checkpoint, other]


def test_a_game_whose_export_does_not_end_as_logged_fails(server):
    server.play(1)
    game_id = server.client.get("/games?status=resigned").get_json()["games"][0]["id"]
    export = server.client.get(f"/games/{game_id}/replay").get_json()
    export["events"] = export["events"][:-2]
    export["status"], export["head_hash"] = "playing", export["events"][-1]["hash"]
    export["deal"] = {k: v for k, v in export["deal"].items() if k not in ("server_seed", "client_seed")}
    server.rewrite[f"/games/{game_id}/replay"] = json.dumps(export).encode()
    report = audit(server.fetch, LOG_SIGNER.verifier, [], MonitorState())
    assert not report.ok and "does not end as the log says" in report.problems[0]


def test_the_monitor_takes_a_competitions_many_entries_to_its_one_subject():
    from datetime import UTC, datetime
    from uuid import UUID

    from server.log import competition_entries as ce
    from server.monitor.audit import _check_entry

    competition, at = UUID(int=5), datetime(2031, 1, 1, tzinfo=UTC)
    state, ended = MonitorState(), []
    for index, entry in enumerate(
        [
            ce.entered(competition, at, {"name": "ann", "kind": "bot"}),
            ce.entered(competition, at, {"name": "bo", "kind": "bot"}),
            ce.withdrawn(competition, at, {"name": "bo", "kind": "bot"}),
        ]
    ):
        _check_entry(index, entry, state, ended)

    assert ended == [] and str(competition) not in state.games
