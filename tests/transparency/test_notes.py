"""Signed notes, checkpoints and cosignatures, against the published examples of C2SP and Go's sumdb/note."""

import pytest

from server.transparency.notes import (
    COSIGNATURE_V1,
    Checkpoint,
    NoteError,
    cosign,
    cosignature_time,
    generate_signer,
    open_checkpoint,
    open_note,
    parse_checkpoint,
    parse_note,
    parse_signer,
    parse_verifier,
    sign_note,
)

GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
GO_SIGNED = GO_TEXT + (
    "\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdn"
    "gotpRZb6KE6RyyBwJnAM=\n"
)
C2SP_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
C2SP_NOTE = (
    "This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK"
    "7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n"
)


def test_go_sumdb_notes_known_answer():
    signer = parse_signer(GO_SKEY)
    assert signer.skey == GO_SKEY
    assert signer.verifier.vkey == GO_VKEY
    assert sign_note(GO_TEXT, signer) == GO_SIGNED
    note, signed = open_note(GO_SIGNED, parse_verifier(GO_VKEY))
    assert note.text == GO_TEXT and [v.vkey for v in signed] == [GO_VKEY]


def test_the_c2sp_example_note_verifies_and_an_altered_one_does_not():
    verifier = parse_verifier(C2SP_VKEY)
    assert open_note(C2SP_NOTE, verifier)[0].text == "This is an example message.\n"
    with pytest.raises(NoteError, match="does not verify"):
        open_note(C2SP_NOTE.replace("example message", "exemplary message"), verifier)


def test_unknown_signatures_are_ignored_but_one_trusted_key_is_required():
    mine, other = generate_signer("log.example/a"), generate_signer("log.example/b")
    both = sign_note("hello\n", mine, other)
    assert open_note(both, mine.verifier)[1] == [mine.verifier]
    with pytest.raises(NoteError, match="no signature of a trusted key"):
        open_note(sign_note("hello\n", other), mine.verifier)
    impostor = generate_signer("log.example/a")
    with pytest.raises(NoteError, match="no signature of a trusted key"):
        open_note(sign_note("hello\n", impostor), mine.verifier)


@pytest.mark.parametrize(
    "bad",
    [
        "no blank line\n\u2014 a AAAA\n",
        "text\n\n",
        "text\n\n\u2014 a\n",
        "text\n\n- a AAAAAAA=\n",
        "text\n\n\u2014 a !!!!\n",
        "te\x07xt\n\n\u2014 a AAAAAAAA\n",
        "text\n\n\u2014 a AAAAAAAA",
        "text\n\n\u2014 a b AAAAAAAA\n",
        "text\n\n\u2014 a+b AAAAAAAA\n",
    ],
)
def test_malformed_notes_are_refused(bad):
    with pytest.raises(NoteError):
        parse_note(bad)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "name",
        "name+abcd+AAAA",
        "na me+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T",
    ],
)
def test_malformed_verifier_keys_are_refused(bad):
    with pytest.raises(NoteError):
        parse_verifier(bad)


def test_checkpoints_round_trip_and_refuse_what_the_spec_forbids():
    checkpoint = Checkpoint("example.com/behind-the-sofa", 20852163, bytes(range(32)))
    assert parse_checkpoint(checkpoint.text) == checkpoint
    for bad in [
        "o\n01\nAAAA\n",
        "o\n1\n",
        "o\n1\nAAAA\n",
        "o\n-1\n" + "A" * 43 + "=\n",
        "\n1\n" + "A" * 43 + "=\n",
        "o\n1\n" + "A" * 43 + "=\n\n",
        "o\n1\n" + "A" * 43 + "=",
    ]:
        with pytest.raises(NoteError):
            parse_checkpoint(bad)


def test_a_checkpoint_is_opened_with_the_logs_key_and_its_origin():
    log = generate_signer("osmosis.test/log")
    note = sign_note(Checkpoint("osmosis.test/log", 3, bytes(32)).text, log)
    checkpoint, _, witnessed = open_checkpoint(note, log.verifier)
    assert checkpoint.size == 3 and witnessed == []
    other_origin = sign_note(Checkpoint("osmosis.test/other", 3, bytes(32)).text, log)
    with pytest.raises(NoteError, match="origin"):
        open_checkpoint(other_origin, log.verifier)


def test_cosignatures_verify_with_the_witness_key_and_carry_their_time():
    log, witness = generate_signer("osmosis.test/log"), generate_signer("witness.test/w1", COSIGNATURE_V1)
    text = Checkpoint("osmosis.test/log", 5, bytes(32)).text
    signed = sign_note(text, log)
    cosignature = cosign(text, witness, 1_700_000_000)
    assert cosignature_time(cosignature) == 1_700_000_000
    checkpoint, _, witnessed = open_checkpoint(signed + cosignature.line, log.verifier, witness.verifier)
    assert checkpoint.size == 5 and witnessed == [witness.verifier]
    assert witness.verifier.vkey.startswith("witness.test/w1+")
    assert parse_verifier(witness.verifier.vkey) == witness.verifier
    forged = cosign(Checkpoint("osmosis.test/log", 5, bytes(31) + b"\1").text, witness, 1_700_000_000)
    with pytest.raises(NoteError, match="witness.test/w1 does not verify"):
        open_checkpoint(signed + forged.line, log.verifier, witness.verifier)
    with pytest.raises(NoteError):
        cosign(text, log, 1)
