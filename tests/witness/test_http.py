"""`osmosis keygen` and `osmosis witness` as their users run them: a real process over HTTP/1.1, with careless and
hostile clients (no length, an oversized body, a client that stops mid-body, connections left open)."""

import http.client
import os
import socket
import stat
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from server.cli.main import main
from server.transparency.notes import COSIGNATURE_V1, ED25519, open_checkpoint, parse_signer, parse_verifier
from server.witness import http as witness_http
from server.witness.ledger import FileLedger
from server.witness.protocol import Witness
from tests.witness.helpers import LOG, NOW, WITNESS, Log, WitnessProcess


def test_keygen_writes_the_private_key_alone_and_prints_the_verifier_key(tmp_path, capsys):
    assert main(["keygen", "witness.example/w9", "--witness", "--out", str(tmp_path / "w9.key")]) == 0
    signer = parse_signer((tmp_path / "w9.key").read_text())
    assert signer.kind == COSIGNATURE_V1 and signer.name == "witness.example/w9"
    assert stat.S_IMODE(os.stat(tmp_path / "w9.key").st_mode) == 0o600
    assert capsys.readouterr().out == signer.verifier.vkey + "\n"
    assert main(["keygen", "osmosis.example/log", "--out", str(tmp_path / "log.key")]) == 0
    assert parse_signer((tmp_path / "log.key").read_text()).kind == ED25519


def test_keygen_never_overwrites_a_key(tmp_path, capsys):
    key = tmp_path / "kept.key"
    key.write_text("precious\n")
    assert main(["keygen", "witness.example/w9", "--out", str(key)]) == 2
    assert key.read_text() == "precious\n" and "cannot make" in capsys.readouterr().err
    assert main(["keygen", "has space", "--out", str(tmp_path / "other.key")]) == 2


@pytest.fixture
def witness(tmp_path):
    process = WitnessProcess(tmp_path)
    yield process
    if process.process.poll() is None:
        process.process.kill()
        process.process.wait()


def post(connection, body, path="/add-checkpoint"):
    connection.request("POST", path, body=body)
    response = connection.getresponse()
    return response.status, response.getheader("Content-Type"), response.read().decode()


def test_the_witness_cosigns_over_http_with_keep_alive_and_serves_what_it_cosigned(witness):
    log, connection = Log(), witness.connection()
    status, media_type, cosignature = post(connection, log.request(0, 5))
    assert (status, media_type) == (200, "text/plain; charset=utf-8")
    assert open_checkpoint(log.checkpoint(5) + cosignature, LOG.verifier, WITNESS.verifier)[2] == [WITNESS.verifier]
    assert post(connection, log.request(0, 9)) == (409, "text/x.tlog.size", "5\n")
    assert post(connection, log.request(5, 9))[0] == 200
    origin_hash = __import__("hashlib").sha256(LOG.name.encode()).hexdigest()
    connection.request("GET", f"/{origin_hash}/checkpoint")
    served = connection.getresponse().read().decode()
    assert open_checkpoint(served, LOG.verifier, WITNESS.verifier)[0].size == 9


def test_wrong_routes_methods_and_lengths_are_clear_4xx(witness):
    connection = witness.connection()
    assert post(connection, b"old 0\n\n", path="/add-checkpoint/x")[0] == 404
    connection.request("PUT", "/add-checkpoint", body=b"x")
    response = connection.getresponse()
    assert (response.status, response.getheader("Allow")) == (405, "GET, POST")
    response.read()
    connection.request("GET", "/nothing/here/at/all")
    assert connection.getresponse().status == 404
    raw = socket.create_connection(("127.0.0.1", witness.port), timeout=10)
    raw.sendall(
        b"POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nold 0\r\n0\r\n\r\n"
    )
    assert raw.recv(200).startswith(b"HTTP/1.1 411")
    raw.close()
    big = witness.connection()
    big.putrequest("POST", "/add-checkpoint")
    big.putheader("Content-Length", str(10**9))
    big.endheaders()
    response = big.getresponse()
    assert response.status == 413 and response.getheader("Connection") == "close"


def test_a_client_that_stops_mid_body_holds_no_one_else_up(witness):
    stalled = socket.create_connection(("127.0.0.1", witness.port), timeout=10)
    stalled.sendall(b"POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nContent-Length: 5000\r\n\r\nold 0\n")
    asked = time.monotonic()
    assert post(witness.connection(), Log().request(0, 3))[0] == 200
    assert time.monotonic() - asked < 5
    stalled.close()


def test_a_restarted_witness_remembers_what_it_cosigned(witness, tmp_path):
    log = Log()
    assert post(witness.connection(), log.request(0, 6))[0] == 200
    assert witness.stop() == 0
    again = WitnessProcess(tmp_path)
    try:
        assert post(again.connection(), log.request(0, 8)) == (409, "text/x.tlog.size", "6\n")
    finally:
        assert again.stop() == 0


def test_bad_arguments_stop_the_witness_before_it_listens(tmp_path):
    (tmp_path / "log.key").write_text(LOG.skey)
    cases = [
        ["--key", str(tmp_path / "log.key"), "--log", LOG.verifier.vkey],  # a log's key, not a cosignature key
        ["--key", WITNESS.skey, "--log", "not a key"],
        ["--key", str(tmp_path / "missing.key"), "--log", LOG.verifier.vkey],
        ["--key", WITNESS.skey, "--log", LOG.verifier.vkey, "--listen", "nowhere"],
    ]
    for arguments in cases:
        assert main(["witness", *arguments, "--state", str(tmp_path / "s.json")]) == 2, arguments
    assert not (tmp_path / "s.json").exists()


class Served:
    """A WitnessServer in a thread of this process (its limits patched by the test), until the block ends."""

    def __init__(self, tmp_path):
        witness = Witness(WITNESS, [LOG.verifier], FileLedger(tmp_path / "s.json"), lambda: NOW)
        self.server = witness_http.WitnessServer(("127.0.0.1", 0), witness)
        self.port = self.server.server_port

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)


def test_at_the_cap_a_new_connection_takes_the_place_of_the_one_idle_longest(tmp_path, monkeypatch):
    monkeypatch.setattr(witness_http, "MAX_CONNECTIONS", 3)
    with Served(tmp_path) as served:
        idle = [socket.create_connection(("127.0.0.1", served.port), timeout=5) for _ in range(3)]
        time.sleep(0.2)
        assert post(served.connection(), Log().request(0, 2))[0] == 200
        assert idle[0].recv(100) == b"", "the connection idle longest gave its place"
        idle[1].sendall(b"GET /x/checkpoint HTTP/1.1\r\nHost: w\r\n\r\n")
        assert idle[1].recv(100).startswith(b"HTTP/1.1 404")


def drip(port, stop):
    """A client that sends a request's headers a byte at a time, every 0.2 s, for as long as it is let."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    request = b"POST /add-checkpoint HTTP/1.1\r\nHost: w\r\n" + b"X-Padding: " + b"x" * 10_000
    try:
        for byte in request:
            if stop.is_set():
                break
            sock.sendall(bytes([byte]))
            time.sleep(0.2)
    except OSError:
        return True  # cut off
    finally:
        sock.close()
    return False


@pytest.mark.slow
def test_clients_dripping_their_headers_are_cut_at_the_request_s_deadline_and_honest_ones_are_served(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(witness_http, "REQUEST_SECONDS", 2.0)
    stop = threading.Event()
    with Served(tmp_path) as served, ThreadPoolExecutor(80) as pool:
        try:
            drippers = [pool.submit(drip, served.port, stop) for _ in range(80)]
            time.sleep(0.5)
            log, waits = Log(), []
            for n in range(1, 21):
                asked = time.monotonic()
                assert post(served.connection(), log.request(n - 1, n))[0] == 200
                waits.append(time.monotonic() - asked)
            time.sleep(2.5)
        finally:
            stop.set()
        cut = [dripper.result(timeout=30) for dripper in drippers]
    assert max(waits) < 1.0, waits
    assert all(cut), "a client dripping its headers was let go on past the request's deadline"


def test_a_hundred_idle_connections_do_not_delay_the_first_answer(tmp_path):
    with Served(tmp_path) as served:
        idle = [socket.create_connection(("127.0.0.1", served.port), timeout=5) for _ in range(100)]
        asked = time.monotonic()
        assert post(served.connection(), Log().request(0, 3))[0] == 200
        assert time.monotonic() - asked < 1.0
        for connection in idle:
            connection.close()


def test_the_verifier_key_it_prints_is_the_one_its_cosignatures_verify_with(witness):
    printed = parse_verifier(WITNESS.verifier.vkey)
    cosignature = post(witness.connection(), Log().request(0, 4))[2]
    assert open_checkpoint(Log().checkpoint(4) + cosignature, LOG.verifier, printed)[2] == [printed]
