"""The public log with real processes: two app instances sequencing one log, a sequencer killed mid-batch,
PostgreSQL restarted under load, and a witness that goes away and comes back. After each, every game and sealed
deal is in the log exactly once, every checkpoint is a prefix of one tree, and `osmosis audit` (with the state it
kept from before the fault) finds nothing wrong."""

import itertools
import json
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psycopg

from server.config import Settings
from server.runtime.app import create_app
from server.service.public_log.log import PublicLog
from server.store import embedded, migrate
from server.store.connections import open_pool
from server.store.postgres import PostgresStore
from server.store.public_log import SEQUENCER_LOCK_KEY
from server.transparency.merkle import subtrees_of, tree_hash
from server.transparency.notes import COSIGNATURE_V1, generate_signer, open_checkpoint
from tests.api.helpers import create
from tests.apps import free_port
from tests.databases import drop_database, migrated_database
from tests.processes import PROJECT, ClientThreads, call, start_gunicorn, stop, wait_until_sequenced
from tests.waiting import until
from tests.witness.helpers import OSMOSIS, WitnessProcess

KEY = generate_signer("osmosis.test/ops-log")
INTERVAL_MS = 200


def signing_gunicorn(url, port, **env):
    """gunicorn whose log signs with KEY every INTERVAL_MS (or as `env` says)."""
    return start_gunicorn(url, port, **{"LOG_SIGNING_KEY": KEY.skey, "LOG_INTERVAL_MS": str(INTERVAL_MS), **env})


class Players(ClientThreads):
    """Client threads making games (some from sealed deals) on any of the instances and resigning most of them."""

    def __init__(self, bases: list[str], threads: int = 4) -> None:
        super().__init__(threads)
        self.bases = bases
        self.created: list[str] = []

    def _client(self, index: int) -> None:
        rng = random.Random(index)
        while not self.stop.is_set():
            base = rng.choice(self.bases)
            try:
                body: dict = {"variant": "osmosis"}
                if rng.random() < 0.3:
                    status, deal, _ = call("POST", f"{base}/deals", {})
                    if status != 201:
                        continue
                    body.update(sealed_deal_id=deal["id"], client_seed=f"player {index}")
                status, game, _ = call("POST", f"{base}/games", body)
                if status != 201:
                    continue
                with self.lock:
                    self.created.append(game["id"])
                if rng.random() < 0.8:
                    call("POST", f"{base}/games/{game['id']}/resign", {}, game["player_token"])
            except OSError:  # the server or its database is away: the test reads the log, not these answers
                time.sleep(0.05)


def assert_the_log_is_whole(url: str) -> list:
    """Each game, sealed deal and daily deal logged exactly once (an end only for a game that ended), leaves
    numbered without a gap, and every signed checkpoint the root of a prefix of those leaves: one tree, never
    rewritten."""
    with psycopg.connect(url) as conn:
        leaves = conn.execute("SELECT index, subject, kind, leaf_hash FROM log_leaves ORDER BY index").fetchall()
        # A daily game is logged when its day closes (with its seeds): not before.
        games = conn.execute("SELECT id, status FROM games WHERE daily IS NULL OR deal ? 'server_seed'").fetchall()
        sealed = conn.execute("SELECT id FROM sealed_deals").fetchall()
        daily = conn.execute("SELECT id FROM daily_deals").fetchall()
        checkpoints = conn.execute("SELECT size, root, note, signed_at FROM log_checkpoints ORDER BY size").fetchall()
    assert [leaf[0] for leaf in leaves] == list(range(len(leaves)))
    expected = Counter({(game_id, "game_created"): 1 for game_id, _ in games})
    expected.update({(game_id, "game_ended"): 1 for game_id, status in games if status != "playing"})
    expected.update({(deal_id, "deal_sealed"): 1 for (deal_id,) in sealed})
    expected.update({(deal_id, "daily_deal_opened"): 1 for (deal_id,) in daily})
    assert Counter((subject, kind) for _, subject, kind, _ in leaves) == expected
    subtree = subtrees_of([bytes(leaf[3]) for leaf in leaves])
    for size, root, note, _ in checkpoints:
        assert tree_hash(size, subtree) == bytes(root), f"checkpoint {size} is not a prefix of the tree"
        assert open_checkpoint(note, KEY.verifier)[0].root == bytes(root)
    return checkpoints


def audit(base: str, state: Path, *witness_keys: str) -> dict:
    keys = [a for key in witness_keys for a in ("--witness-key", key)]
    done = subprocess.run(
        [str(OSMOSIS), "audit", base, "--log-key", KEY.verifier.vkey, "--state", str(state), *keys, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(done.stdout)
    assert (done.returncode == 0) == report["ok"], done.stderr
    return report


def test_two_instances_sequence_one_log_with_each_entry_once(embedded_server_url, tmp_path):
    url = migrated_database(embedded_server_url)
    ports = [free_port(), free_port()]
    servers = [signing_gunicorn(url, port) for port in ports]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        with Players(bases) as players:
            time.sleep(5)
        assert len(players.created) > 20
        wait_until_sequenced(url)
        checkpoints = assert_the_log_is_whole(url)
        assert len(checkpoints) > 5
        # Four sequencers (two instances of two workers) signed one after another, an interval apart.
        gaps = [(b[3] - a[3]).total_seconds() for a, b in itertools.pairwise(checkpoints)]
        assert min(gaps) >= INTERVAL_MS / 1000, gaps
        for base in bases:
            report = audit(base, tmp_path / "monitor.json")
            assert report["ok"], report["problems"]
    finally:
        for server in servers:
            stop(server)
        drop_database(embedded_server_url, url)


def test_two_instances_keeping_their_records_apart_never_both_sign(embedded_server_url, tmp_path):
    """Issue 50's attack, with real processes: one database and key, each instance its own data directory (its own
    record of what it signed). After a restore the one whose record is behind would sign over what the other
    published; so only the instance whose record's place the log claimed signs, and the other says why."""
    url = migrated_database(embedded_server_url)
    ports = [free_port(), free_port()]
    servers = [
        signing_gunicorn(
            url,
            port,
            OSMOSIS_DATA_DIR=str(tmp_path / name),
            LOG_TILES_DIR=str(tmp_path / name / "tiles"),
        )
        for port, name in zip(ports, ("first", "second"), strict=True)
    ]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        with Players(bases):
            time.sleep(5)
        wait_until_sequenced(url)
        assert_the_log_is_whole(url)
        deadline = time.monotonic() + 20
        while True:
            # "its record ... is kept at place ..." sorts before "ok"
            logs = sorted(call("GET", f"{base}/readyz")[1]["log"] for base in bases)
            told = logs[1] == "ok" and "every instance must share one LOG_TILES_DIR" in logs[0]
            if told or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert told, logs
        signed = [
            path.parent.name
            for path in tmp_path.glob("*/log-checkpoints-*.json")
            if json.loads(path.read_text()).get("signed")
        ]
        assert len(signed) == 1, f"both instances signed: {signed}"
    finally:
        for server in servers:
            stop(server)
        drop_database(embedded_server_url, url)


STALLING_SEQUENCER = """
import sys, time
from server.service.public_log.log import PublicLog
from server.store import migrate
from server.store.connections import open_pool
from server.store.postgres import PostgresStore
from server.store.public_log import SEQUENCER_LOCK_KEY
from server.transparency.notes import parse_signer

store = PostgresStore(open_pool(sys.argv[1], 1, 2, 10, 10000), migrate.head_revision())
public_log = PublicLog(store, store, parse_signer(sys.argv[2]), spacing=0)
integrate = public_log._integrate

def integrate_then_stall(*args):
    growth = integrate(*args)
    print("integrated", growth.checkpoint.size, flush=True)
    time.sleep(60)  # the tiles, leaves and signed checkpoint are written; the transaction is not yet committed
    return growth

public_log._integrate = integrate_then_stall
public_log.sequence()
"""


def sequencer_lock_held(url: str) -> bool:
    key = SEQUENCER_LOCK_KEY & 0xFFFFFFFF, SEQUENCER_LOCK_KEY >> 32
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = %s AND classid = %s",
            key,
        ).fetchone()
    return bool(row and row[0])


def test_a_sequencer_killed_mid_batch_loses_nothing_and_integrates_nothing_twice(embedded_server_url):
    url = migrated_database(embedded_server_url)
    pool = open_pool(url, 1, 4, 10, 10000)
    store = PostgresStore(pool, migrate.head_revision())
    app = create_app(Settings(rate_limit=""), store)  # no key: it never sequences
    client = app.test_client()
    public_log = PublicLog(store, store, KEY, spacing=0)

    def play(games: int) -> None:
        for number in range(games):
            game, token = create(client, variant="osmosis")
            if number % 3:
                assert client.post(f"/games/{game['id']}/resign", headers=token).status_code == 200

    try:
        play(12)
        assert public_log.sequence() is not None
        before = assert_the_log_is_whole(url)[-1]
        play(12)
        with psycopg.connect(url) as conn:
            pending = conn.execute("SELECT count(*) FROM log_pending").fetchone()[0]
        assert pending == 12 + 8
        for _ in range(3):
            stalled = subprocess.Popen(
                [sys.executable, "-c", STALLING_SEQUENCER, url, KEY.skey],
                cwd=PROJECT,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert stalled.stdout.readline() == f"integrated {before[0] + pending}\n"
            stalled.send_signal(signal.SIGKILL)
            stalled.wait()
            # The killed process's backend ends when PostgreSQL sees its socket close, not when the process is gone:
            # until then it holds the sequencer's lock (seen under the parallel run's load: the next turn found it).
            until(lambda: not sequencer_lock_held(url), seconds=30)
            with psycopg.connect(url) as conn:
                assert conn.execute("SELECT count(*) FROM log_pending").fetchone()[0] == pending
                assert conn.execute("SELECT max(size) FROM log_checkpoints").fetchone()[0] == before[0]
        signed = public_log.sequence()
        assert signed is not None and signed.size == before[0] + pending
        assert public_log.sequence() is None
        assert_the_log_is_whole(url)
    finally:
        app.extensions["osmosis.hub"].stop()
        pool.close()
        drop_database(embedded_server_url, url)


def test_postgres_restarted_under_load_leaves_one_consistent_log(own_postgres, tmp_path):
    data_dir, url = own_postgres
    port = free_port()
    server = signing_gunicorn(
        url,
        port,
        POOL_TIMEOUT_MS="1000",
        STATEMENT_TIMEOUT_MS="2000",
    )
    base = f"http://127.0.0.1:{port}"
    state = tmp_path / "monitor.json"
    try:
        with Players([base]):
            time.sleep(2)
            first = audit(base, state)
            assert first["ok"], first["problems"]
            embedded.stop(data_dir)
            time.sleep(2)
            embedded.start(data_dir)
            time.sleep(3)
        wait_until_sequenced(url)
        assert_the_log_is_whole(url)
        second = audit(base, state)
        assert second["ok"], second["problems"]
        assert second["checkpoint_size"] > first["checkpoint_size"] and second["new_entries"] > 0
    finally:
        stop(server)


def test_a_witness_that_goes_away_holds_publication_back_until_it_cosigns_again(embedded_server_url, tmp_path):
    url = migrated_database(embedded_server_url)
    witness_signer = generate_signer("witness.test/ops", COSIGNATURE_V1)
    witness = WitnessProcess(tmp_path, logs=(KEY.verifier.vkey,), signer=witness_signer)
    port = free_port()
    server = signing_gunicorn(
        url,
        port,
        LOG_WITNESSES=f"{witness_signer.verifier.vkey} {witness.url}",
    )
    base = f"http://127.0.0.1:{port}"
    try:
        with Players([base], threads=2):
            time.sleep(2)
        wait_until_sequenced(url)
        report = audit(base, tmp_path / "monitor.json", witness_signer.verifier.vkey)
        assert report["ok"], report["problems"]
        stranger = generate_signer("witness.test/stranger", COSIGNATURE_V1)
        refused = audit(base, tmp_path / "other-monitor.json", stranger.verifier.vkey)
        assert not refused["ok"] and "no cosignature of witness witness.test/stranger" in refused["problems"][0]

        assert witness.stop() == 0
        published = call_text(f"{base}/log/checkpoint")
        with Players([base], threads=2):
            time.sleep(2)
        wait_until_sequenced(url)
        time.sleep(1)
        assert call_text(f"{base}/log/checkpoint") == published, "published without the witness's cosignature"

        # The same witness again: its address, its state file.
        witness = WitnessProcess(tmp_path, logs=(KEY.verifier.vkey,), signer=witness_signer, port=witness.port)
        deadline = time.monotonic() + 20
        while call_text(f"{base}/log/checkpoint") == published:  # no new entries: the log offers it again
            assert time.monotonic() < deadline, "the checkpoint the witness missed was never cosigned"
            time.sleep(0.2)
        with psycopg.connect(url) as conn:
            latest = conn.execute("SELECT max(size) FROM log_checkpoints").fetchone()[0]
        checkpoint, _, cosigners = open_checkpoint(
            call_text(f"{base}/log/checkpoint"), KEY.verifier, witness_signer.verifier
        )
        assert checkpoint.size == latest and cosigners == [witness_signer.verifier]
        report = audit(base, tmp_path / "monitor.json", witness_signer.verifier.vkey)
        assert report["ok"], report["problems"]
    finally:
        stop(server)
        witness.process.kill()
        drop_database(embedded_server_url, url)


def call_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


def test_a_worker_stops_its_sequencer_before_closing_its_pool(embedded_server_url):
    """At shutdown the sequencer (awake every 5 ms here) finishes its turn before the pool closes under it."""
    url = migrated_database(embedded_server_url)
    port = free_port()
    server = signing_gunicorn(url, port, LOG_INTERVAL_MS="10")
    try:
        for _ in range(5):
            assert call("POST", f"http://127.0.0.1:{port}/games", {"variant": "osmosis"})[0] == 201
        time.sleep(0.5)
    finally:
        stop(server)
        drop_database(embedded_server_url, url)
    server.log.seek(0)
    log = server.log.read()
    assert "sequencing failed" not in log and "PoolClosed" not in log, log[-3000:]


class NoWitness(BaseHTTPRequestHandler):
    """Three URLs of witnesses that say nothing a witness would: a maintenance page (200 to everything), a mistyped
    path (a plain 404), and a made-up checkpoint of a million entries under a junk signature."""

    def do_GET(self):
        if self.path.startswith("/maintenance/"):
            self._answer(200, "<html><body>Down for maintenance</body></html>", "text/html")
        elif self.path.startswith("/made-up/"):
            self._answer(200, f"{KEY.name}\n1000000\n{'A' * 43}=\n\n— {KEY.name} {'B' * 86}==\n", "text/plain")
        else:
            self._answer(404, "Not Found", "text/plain")

    do_POST = do_GET

    def _answer(self, status, body, content_type):
        encoded = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(encoded)))
        self.end_headers()
        self.wfile.write(encoded)

    def log_message(self, *args):
        pass


def test_witnesses_that_say_nothing_a_witness_would_keep_the_log_from_signing_and_readyz_names_each(
    embedded_server_url,
):
    url = migrated_database(embedded_server_url)
    pages = ThreadingHTTPServer(("127.0.0.1", free_port()), NoWitness)
    threading.Thread(target=pages.serve_forever, daemon=True).start()
    base_of_pages = f"http://127.0.0.1:{pages.server_port}"
    witnesses = {
        name: generate_signer(f"witness.test/{name}", COSIGNATURE_V1) for name in ("maintenance", "mistyped", "made-up")
    }
    port = free_port()
    server = signing_gunicorn(
        url,
        port,
        LOG_WITNESSES=",".join(f"{signer.verifier.vkey} {base_of_pages}/{name}" for name, signer in witnesses.items()),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for number in range(3):
            call("POST", f"{base}/games", {"deal_number": number})
        with psycopg.connect(url, autocommit=True) as conn:
            # Several of the log's turns with entries pending: each time, nothing is signed.
            until(lambda: conn.execute("SELECT count(*) FROM log_pending").fetchone()[0] >= 3, seconds=10)
            time.sleep(10 * INTERVAL_MS / 1000)
            assert conn.execute("SELECT count(*) FROM log_checkpoints").fetchone()[0] == 0
        status, ready, _ = call("GET", f"{base}/readyz")
    finally:
        stop(server)
        pages.shutdown()
        pages.server_close()
        drop_database(embedded_server_url, url)

    # The server still serves (games go on, their entries pending): /readyz says why its log signs nothing.
    assert status == 200 and ready["writes"] == "ok", ready
    said = ready["log"]
    assert "signs nothing" in said, said
    for signer in witnesses.values():
        assert signer.name in said, said
