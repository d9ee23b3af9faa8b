"""The witness's add-checkpoint as C2SP tlog-witness specifies it: each status code for its reason, a cosignature
only after a consistency check, a record that racing requests (threads, or witnesses sharing the file) never roll
back, and the monitoring read."""

import base64
import hashlib
import json
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest

from server.transparency.merkle import EMPTY_ROOT
from server.transparency.notes import (
    Checkpoint,
    NoteError,
    cosignature_time,
    generate_signer,
    open_checkpoint,
    parse_signature_line,
    sign_note,
)
from server.witness.ledger import FileLedger, LedgerError
from server.witness.protocol import MAX_REQUEST_BYTES, SIZE_MEDIA_TYPE, Witness
from tests.witness.helpers import LOG, NOW, WITNESS, Log


@pytest.fixture
def state(tmp_path):
    return tmp_path / "witness-state.json"


@pytest.fixture
def witness(state):
    return Witness(WITNESS, [LOG.verifier], FileLedger(state), lambda: NOW)


def test_the_first_checkpoint_is_cosigned_with_a_timestamp_and_remembered(witness, state):
    log = Log()
    answer = witness.add_checkpoint(log.request(0, 5))
    assert answer.status == 200
    cosignature = parse_signature_line(answer.body)
    assert (cosignature.name, cosignature_time(cosignature)) == (WITNESS.name, NOW)
    checkpoint, _, cosigners = open_checkpoint(log.checkpoint(5) + answer.body, LOG.verifier, WITNESS.verifier)
    assert (checkpoint.size, cosigners) == (5, [WITNESS.verifier])
    assert json.loads(state.read_text())["logs"][LOG.name]["size"] == 5
    assert FileLedger(state).latest(LOG.name).root == log.root(5)


def test_a_consistent_successor_is_cosigned_from_the_size_last_cosigned(witness):
    log = Log()
    assert witness.add_checkpoint(log.request(0, 5)).status == 200
    for old, new in [(5, 13), (13, 13), (13, 32), (32, 40)]:
        assert witness.add_checkpoint(log.request(old, new)).status == 200, (old, new)


def test_an_old_size_other_than_the_last_cosigned_is_a_conflict_naming_it(witness):
    log = Log()
    witness.add_checkpoint(log.request(0, 8))
    for old in (0, 5, 9):
        answer = witness.add_checkpoint(log.request(old, 20))
        assert (answer.status, answer.content_type, answer.body) == (409, SIZE_MEDIA_TYPE, "8\n")


def test_an_inconsistent_checkpoint_is_refused_and_logged_as_evidence(witness, caplog):
    honest, forked = Log(), Log(seed=b"fork ")
    witness.add_checkpoint(honest.request(0, 8))
    fork = forked.checkpoint(20)
    with caplog.at_level(logging.WARNING, logger="server.witness.protocol"):
        answer = witness.add_checkpoint(forked.request(8, 20, proof=honest.proof(8, 20), note=fork))
    assert answer.status == 422 and "not consistent with the checkpoint of size 8" in answer.body
    assert fork in caplog.text
    assert witness.add_checkpoint(honest.request(8, 20)).status == 200, "the refusal changed nothing"


@pytest.mark.parametrize(
    "case", ["same size, another root", "a proof from the empty tree", "a truncated proof", "size 0 with another root"]
)
def test_what_the_spec_answers_with_422(witness, case):
    log = Log()
    if case in ("same size, another root", "a truncated proof"):
        assert witness.add_checkpoint(log.request(0, 8)).status == 200
    body = {
        "same size, another root": lambda: log.request(8, 8, note=log.checkpoint(8, root=log.root(9))),
        "a proof from the empty tree": lambda: Log().request(0, 8, proof=log.proof(4, 8)),
        "a truncated proof": lambda: log.request(8, 21, proof=log.proof(8, 21)[:-1]),
        "size 0 with another root": lambda: log.request(0, 0, note=log.checkpoint(0, root=log.root(1))),
    }[case]()
    assert witness.add_checkpoint(body).status == 422


def test_the_empty_tree_and_a_repeat_of_the_same_checkpoint_are_cosigned(witness):
    log = Log()
    assert witness.add_checkpoint(log.request(0, 0, note=log.checkpoint(0, root=EMPTY_ROOT))).status == 200
    assert witness.add_checkpoint(log.request(0, 6)).status == 200
    assert witness.add_checkpoint(log.request(6, 6)).status == 200


def test_an_unknown_origin_is_404_and_a_signature_it_cannot_trust_403(witness):
    log = Log()
    stranger = Log(signer=generate_signer("log.example/another"))
    assert witness.add_checkpoint(stranger.request(0, 3)).status == 404
    impostor = Log(signer=generate_signer(LOG.name))
    assert witness.add_checkpoint(impostor.request(0, 3)).status == 403
    genuine = log.checkpoint(3)
    forged = genuine.replace("\n3\n", "\n4\n", 1)
    answer = witness.add_checkpoint(log.request(0, 4, note=forged))
    assert answer.status == 403 and "does not verify" in answer.body


def test_an_old_size_past_the_checkpoint_is_400(witness):
    assert witness.add_checkpoint(Log().request(9, 5, proof=[])).status == 400


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"old 0\n",
        b"old 0",
        b"new 0\n\n",
        b"old 01\n\n",
        b"old -1\n\n",
        b"old 0 \n\n",
        b"old 1e3\n\n",
        b"old 3\nnot base64!\n\n",
        b"old 3\n" + base64.b64encode(b"short") + b"\n\n",
        b"old 3\n" + (base64.b64encode(bytes(32)) + b"\n") * 64 + b"\n",
        b"old 0\n\n\xff\xfe",
        b"old 0\n\nlog.example/osmosis\n1\n" + base64.b64encode(bytes(32)) + b"\n",
        b"old 0\n\nlog.example/osmosis\n1\n" + base64.b64encode(bytes(32)) + b"\n\n",
    ],
)
def test_malformed_requests_are_400_and_change_nothing(witness, state, body):
    answer = witness.add_checkpoint(body)
    assert answer.status == 400, answer.body
    assert answer.body.endswith("\n") and not state.exists()


def test_a_checkpoint_the_log_signed_but_malformed_is_400(witness):
    note = sign_note(f"{LOG.name}\n007\n{base64.b64encode(bytes(32)).decode()}\n", LOG)
    assert witness.add_checkpoint(b"old 0\n\n" + note.encode()).status == 400


def test_an_oversized_request_is_413(witness):
    assert witness.add_checkpoint(b"old 0\n\n" + b"x" * MAX_REQUEST_BYTES).status == 413


def test_racing_requests_never_roll_the_record_back(state):
    """Sixteen submissions from size 4, to sizes 5 to 20, at once, through two witnesses sharing the state file
    (their locks are not shared; only the file's is): exactly one is cosigned and the record is its size."""
    log = Log()
    first = Witness(WITNESS, [LOG.verifier], FileLedger(state), lambda: NOW)
    second = Witness(WITNESS, [LOG.verifier], FileLedger(state), lambda: NOW)
    assert first.add_checkpoint(log.request(0, 4)).status == 200
    requests = [(first if size % 2 else second, log.request(4, size)) for size in range(5, 21)]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda pair: pair[0].add_checkpoint(pair[1]), requests))
    winners = [size for size, answer in zip(range(5, 21), answers, strict=True) if answer.status == 200]
    assert len(winners) == 1 and sorted(a.status for a in answers) == [200] + [409] * 15
    assert FileLedger(state).latest(LOG.name).size == winners[0]
    assert {a.body for a in answers if a.status == 409} == {f"{winners[0]}\n"}


def test_the_monitoring_read_serves_the_latest_cosigned_checkpoint(witness):
    log = Log()
    origin_hash = hashlib.sha256(LOG.name.encode()).hexdigest()
    assert witness.checkpoint(origin_hash).status == 404
    cosignature = witness.add_checkpoint(log.request(0, 7)).body
    served = witness.checkpoint(origin_hash)
    assert served.status == 200 and served.body == log.checkpoint(7) + cosignature
    checkpoint, _, cosigners = open_checkpoint(served.body, LOG.verifier, WITNESS.verifier)
    assert checkpoint.size == 7 and cosigners == [WITNESS.verifier]
    for other in (hashlib.sha256(b"log.example/another").hexdigest(), origin_hash.upper(), "../checkpoint", ""):
        assert witness.checkpoint(other).status == 404


def test_the_witness_keeps_only_the_signatures_it_verified(witness):
    log, stranger = Log(), generate_signer("someone.example/else")
    note = sign_note(Checkpoint(LOG.name, 3, log.root(3)).text, LOG, stranger)
    cosignature = witness.add_checkpoint(log.request(0, 3, note=note)).body
    assert witness.checkpoint(hashlib.sha256(LOG.name.encode()).hexdigest()).body == log.checkpoint(3) + cosignature


def test_a_witness_signs_only_with_a_cosignature_key(state):
    with pytest.raises(NoteError, match="type 0x04"):
        Witness(LOG, [LOG.verifier], FileLedger(state), lambda: NOW)


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        '{"format": "something else", "logs": {}}',
        '{"format": "osmosis-witness-state/1", "logs": {"a": {"size": "x"}}}',
    ],
)
def test_a_state_file_that_is_not_a_witness_s_stops_it_at_start(state, content):
    state.write_text(content)
    with pytest.raises(LedgerError):
        FileLedger(state)
