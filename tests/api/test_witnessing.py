"""The log's side of C2SP tlog-witness, against the project's witness served in this process: a checkpoint is
published once every listed witness has cosigned it; a witness that holds the checkpoint already cosigns it again,
one ahead is left alone, one that answers with a cosignature of another key is not believed, and one that was
away is asked again until it cosigns."""

import hashlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from server.config import Settings
from server.runtime.app import create_app
from server.service.records import SignedCheckpoint
from server.transparency.notes import COSIGNATURE_V1, cosign, generate_signer, open_checkpoint, parse_note
from server.witness.http import WitnessServer
from server.witness.ledger import FileLedger
from server.witness.protocol import NEVER_COSIGNED, Witness
from tests.api.helpers import LOG_SIGNER, create
from tests.memory_store import MemoryStore, backup_of

WITNESS = generate_signer("witness.test/in-process", COSIGNATURE_V1)


class Served:
    """An HTTP server on a loopback port, in a thread, until stopped."""

    def __init__(self, server):
        self.server = server
        self.url = f"http://127.0.0.1:{server.server_port}"
        threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def witness(tmp_path):
    protocol = Witness(WITNESS, [LOG_SIGNER.verifier], FileLedger(tmp_path / "state.json"), lambda: 1_800_000_000)
    served = Served(WitnessServer(("127.0.0.1", 0), protocol))
    served.protocol = protocol
    yield served
    served.stop()


def log_app(*witnesses, store=None, interval=0.0):
    settings = Settings(
        rate_limit="",
        log_signing_key=LOG_SIGNER.skey,
        log_interval_seconds=interval,
        log_witnesses=tuple((signer.verifier.vkey, url) for signer, url in witnesses),
    )
    store = store or MemoryStore()
    app = create_app(settings, store)
    app.extensions["osmosis.store"] = store  # the tests' own key: the app hands its store to no one
    return app


def grow(app, games=1):
    client = app.test_client()
    for _ in range(games):
        create(client, variant="osmosis")
    return app.extensions["osmosis.sequencer"].run_once()


def published(app):
    return app.test_client().get("/log/checkpoint").get_data(as_text=True)


def cosigners(note):
    return open_checkpoint(note, LOG_SIGNER.verifier, WITNESS.verifier)[2]


def test_a_checkpoint_is_published_with_the_witness_s_cosignature(witness):
    app = log_app((WITNESS, witness.url))
    first = grow(app)
    assert first is not None and cosigners(published(app)) == [WITNESS.verifier]
    second = grow(app, 3)
    note = published(app)
    assert open_checkpoint(note, LOG_SIGNER.verifier)[0].size == second.size == first.size + 3
    assert cosigners(note) == [WITNESS.verifier]


def sign_only(app, games):
    """A new checkpoint signed but not offered to any witness (as if the log died right after signing it)."""
    client = app.test_client()
    for _ in range(games):
        create(client, variant="osmosis")
    store = app.extensions["osmosis.store"]
    public_log = app.extensions["osmosis.use_cases"].public_log
    public_log._guard.consult_witnesses()  # as the sequencer does first: a log listing witnesses hears one first
    return store.sequence(100, 0.0, public_log._integrate).checkpoint


def test_a_witness_ahead_is_left_alone_and_one_holding_the_checkpoint_cosigns_it_again(witness, caplog):
    app = log_app((WITNESS, witness.url))
    store = app.extensions["osmosis.store"]
    older, newer = sign_only(app, 1), sign_only(app, 2)
    # The witness cosigned the newer one, but its answer never reached the log.
    assert witness.protocol.add_checkpoint(f"old 0\n\n{newer.note}".encode()).status == 200

    app.extensions["osmosis.sequencer"]._witnesses.cosign(older)  # 409 naming a larger size: nothing to do
    assert store.cosigned_size(WITNESS.name) == 0 and "did not cosign" not in caplog.text

    assert app.extensions["osmosis.sequencer"].run_once() is None  # the latest again: 409 at its own size
    assert store.cosigned_size(WITNESS.name) == newer.size
    note = published(app)
    assert cosigners(note) == [WITNESS.verifier] and open_checkpoint(note, LOG_SIGNER.verifier)[0].size == newer.size


def never_cosigned(handler: BaseHTTPRequestHandler) -> None:
    """The witness protocol's answer to GET <origin hash>/checkpoint for a log it never cosigned."""
    body = (NEVER_COSIGNED + "\n").encode()
    handler.send_response(404)
    handler.send_header("Content-Type", "text/plain; charset=utf-8")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class Maintenance(BaseHTTPRequestHandler):
    """A witness's URL answered by a page: every request 200, the page for a body."""

    def do_GET(self):
        body = b"<html><body>Down for maintenance</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args):
        pass


def test_a_witness_answering_a_maintenance_page_is_not_heard_the_log_signs_nothing_and_readyz_says_why():
    page = Served(ThreadingHTTPServer(("127.0.0.1", 0), Maintenance))
    try:
        app = log_app((WITNESS, page.url))
        signed = grow(app)
        status = app.test_client().get("/readyz").get_json()["log"]
    finally:
        page.stop()

    assert signed is None and app.extensions["osmosis.store"].latest_checkpoint() is None
    assert WITNESS.name in status and "not a checkpoint of this log" in status, status


class Liar(BaseHTTPRequestHandler):
    """A witness that answers every add-checkpoint with a cosignature made by another key of its name."""

    impostor = generate_signer(WITNESS.name, COSIGNATURE_V1)

    def do_GET(self):
        # What it cosigned last of the log: nothing (a log listing a witness hears this first, then signs).
        never_cosigned(self)

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        text = parse_note(body.split("\n\n", 1)[1]).text
        line = cosign(text, self.impostor, 1_800_000_000).line.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(line)))
        self.end_headers()
        self.wfile.write(line)

    def log_message(self, *args):
        pass


def test_a_cosignature_of_another_key_is_not_believed(caplog):
    liar = Served(ThreadingHTTPServer(("127.0.0.1", 0), Liar))
    try:
        app = log_app((WITNESS, liar.url))
        signed = grow(app)
        assert signed is not None
        store = app.extensions["osmosis.store"]
        assert store.cosigned_size(WITNESS.name) == 0
        assert "carries no cosignature of its key" in caplog.text
        assert cosigners(published(app)) == []  # the log's first checkpoint, served while none is cosigned
    finally:
        liar.stop()


def test_a_witness_that_was_away_is_asked_again_without_new_entries(tmp_path):
    protocol = Witness(WITNESS, [LOG_SIGNER.verifier], FileLedger(tmp_path / "state.json"), lambda: 1_800_000_000)
    first = Served(WitnessServer(("127.0.0.1", 0), protocol))
    port = first.server.server_port
    app = log_app((WITNESS, first.url))
    grow(app)
    cosigned = published(app)
    first.stop()
    grow(app, 2)
    assert published(app) == cosigned, "published without the witness's cosignature"
    again = Served(WitnessServer(("127.0.0.1", port), protocol))
    try:
        assert app.extensions["osmosis.sequencer"].run_once() is None  # nothing new to sign
        note = published(app)
        assert note != cosigned and cosigners(note) == [WITNESS.verifier]
        size_of = lambda text: open_checkpoint(text, LOG_SIGNER.verifier)[0].size  # noqa: E731
        assert size_of(note) == size_of(cosigned) + 2
    finally:
        again.stop()


def size_served(app):
    return open_checkpoint(published(app), LOG_SIGNER.verifier)[0].size


def test_the_checkpoint_served_never_goes_back_whatever_witnesses_each_instance_lists(witness):
    """Two instances of one log, one listing a witness and one none, and an instance restarted with the witness
    listed again: each serves the largest checkpoint any of them published, never an older one."""
    store = MemoryStore()
    listing, unlisting = log_app((WITNESS, witness.url), store=store), log_app(store=store)
    served = []
    for round_ in range(4):
        grow(unlisting if round_ % 2 else listing, 2)
        served += [size_served(unlisting), size_served(listing)]
    assert served == sorted(served) and served[-1] == store.latest_checkpoint().size

    relisted = log_app((WITNESS, "http://127.0.0.1:9"), store=store)  # its witness is away now
    grow(unlisting, 3)
    before = size_served(relisted)
    grow(relisted, 1)
    assert size_served(relisted) >= before == size_served(unlisting)


class Trickler(BaseHTTPRequestHandler):
    """A witness that answers each add-checkpoint a byte every half second, for as long as it is listened to."""

    def do_GET(self):
        # What it cosigned last of the log: nothing (a log listing a witness hears this first, then signs).
        never_cosigned(self)

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        try:
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for _ in range(120):
                self.wfile.write(b"X")
                self.wfile.flush()
                time.sleep(0.5)
        except OSError:
            pass

    def log_message(self, *args):
        pass


def test_a_witness_that_trickles_its_answer_costs_its_cosignature_never_the_log(monkeypatch, caplog):
    from server.runtime import witnessing

    monkeypatch.setattr(witnessing, "WITNESS_SECONDS", 1.0)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Trickler)
    server.daemon_threads = True
    trickler = Served(server)
    app = log_app((WITNESS, trickler.url), interval=0.1)
    public_log, sequencer = app.extensions["osmosis.use_cases"].public_log, app.extensions["osmosis.sequencer"]
    sequencer.start()
    try:
        client = app.test_client()
        for games in range(1, 6):
            create(client, variant="osmosis")
            deadline = time.monotonic() + 3
            while (public_log.latest_signed() or SignedCheckpoint(0, b"", "")).size < games:
                assert time.monotonic() < deadline, "the log stopped signing while a witness trickled"
                time.sleep(0.02)
        time.sleep(1.5)
        assert "within 1 seconds" in caplog.text, "the trickling call was never cut off"
        assert app.extensions["osmosis.store"].cosigned_size(WITNESS.name) == 0
    finally:
        sequencer.stop()
        trickler.stop()


def test_a_log_restored_behind_a_witness_signs_nothing_serves_what_it_cosigned_and_a_fork_is_refused(witness):
    """A database restored from before the checkpoint a witness last cosigned, with the log's own record lost too:
    the witness's word stops the log (nothing signed, the checkpoint it cosigned still served); and a log without
    that guard, signing over other entries, is refused by the witness, its publication held at what was cosigned."""
    store = MemoryStore()
    grow(log_app((WITNESS, witness.url), store=store), 2)
    backup = backup_of(store)
    cosigned = grow(log_app((WITNESS, witness.url), store=store), 2)
    served = published(log_app((WITNESS, witness.url), store=store))
    assert witness.protocol.checkpoint(_origin_hash()).body.startswith(cosigned.note.split("\n\n")[0])

    restored = log_app((WITNESS, witness.url), store=backup)
    assert grow(restored, 3) is None, "a checkpoint was signed behind the witness"
    assert backup.latest_checkpoint().size < cosigned.size and backup.has_pending_entries()
    assert published(restored) == served, "the checkpoint served went back"
    readiness = restored.test_client().get("/readyz").get_json()
    assert f"behind the checkpoint witness {WITNESS.name} cosigned, of size {cosigned.size}" in readiness["log"]

    unguarded = log_app(store=backup)  # no witness listed, so none consulted: this log signs a fork
    fork = grow(unguarded, 1)
    assert fork.size > cosigned.size
    forked = log_app((WITNESS, witness.url), store=backup)
    forked.extensions["osmosis.sequencer"]._witnesses.cosign(fork)
    assert witness.protocol.checkpoint(_origin_hash()).body.startswith(cosigned.note.split("\n\n")[0])
    assert backup.cosigned_size(WITNESS.name) < cosigned.size, "the witness cosigned the fork"


def _origin_hash():
    return hashlib.sha256(LOG_SIGNER.name.encode()).hexdigest()


def test_only_the_witness_s_own_never_cosigned_answer_counts_as_never_cosigned(monkeypatch):
    """A 404 from a mistyped URL or a proxy's page is no answer of a witness: the guard keeps asking."""
    from server.runtime import witnessing

    reader = witnessing.WitnessCheckpointReader("guard.example/log", [(WITNESS.verifier, "http://witness.invalid")])
    answers = {
        "never": (404, "text/plain", NEVER_COSIGNED + "\n"),
        "mistyped": (404, "text/html", "<html>404 Not Found</html>"),
        "wrong route": (404, "text/plain", "the witness serves GET /<origin hash>/checkpoint\n"),
    }
    for name, answer in answers.items():
        monkeypatch.setattr(witnessing, "_request", lambda *args, answer=answer: answer)
        if name == "never":
            assert reader.latest_cosigned(WITNESS.verifier.name) is None
        else:
            with pytest.raises(ValueError, match="404"):
                reader.latest_cosigned(WITNESS.verifier.name)
