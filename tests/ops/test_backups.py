"""Backups and restores with real processes, as an operator runs them: `osmosis serve` on its embedded PostgreSQL,
`osmosis backup` while it plays, the machine's database lost (every process killed, the data directory's database
deleted), `osmosis restore`, and the server again.

- To the WAL archive's end: nothing a client was answered 2xx is lost, every game verifies, and the public log goes
  on from what it published.
- From a base backup alone (older than the log): the log signs nothing and says it is behind, /log/checkpoint never
  goes back, `osmosis audit` with the state it kept holds, `osmosis log recover` brings the entries back from the
  tiles directory, the log resumes consistently, and a game the restore lost answers 410 naming its entry.
- From a base backup, the tiles lost too: recovery cannot help, `osmosis log retire` freezes the log and starts a
  new one under a new key, a monitor pinned to the old key reports the retirement, and an export from before still
  verifies against the old key.
"""

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from server.store import embedded
from server.transparency.merkle import verify_consistency
from server.transparency.notes import parse_checkpoint
from tests.apps import free_port
from tests.load import Checkpoints, Load, assert_every_2xx_is_in_the_log, assert_every_game_verifies, text_of
from tests.processes import call
from tests.waiting import until

OSMOSIS = Path(sys.executable).with_name("osmosis")


class Serve:
    """`osmosis serve` in a session of its own, so that the machine's loss can be played: every process killed."""

    def __init__(self, root: Path, **env: str) -> None:
        self.root = root
        self.data = root / "data"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {
            **{key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "OSMOSIS_WAL_ARCHIVE")},
            "OSMOSIS_DATA_DIR": str(self.data),
            "LOG_TILES_DIR": str(root / "tiles"),
            "LOG_INTERVAL_MS": "100",
            "RATE_LIMIT": "",
            **env,
        }
        self.process: subprocess.Popen | None = None

    def start(self) -> "Serve":
        self.output = open(self.root / "serve.log", "a")  # noqa: SIM115 -- as long as the process
        self.process = subprocess.Popen(
            [OSMOSIS, "serve", "--port", str(self.port), "--workers", "2"],
            env=self.env,
            stdout=self.output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 90
        while call_or_none(f"{self.base}/readyz") != 200:
            if self.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"osmosis serve did not become ready: {self.log()[-3000:]}")
            time.sleep(0.2)
        return self

    def osmosis(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([OSMOSIS, *args], env=self.env, capture_output=True, text=True, timeout=300)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(60)

    def lose_the_machine(self) -> None:
        """Every process of the server killed at once, and its database deleted."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)
        subprocess.run(["pkill", "-9", "-f", str(self.data / "postgres")], check=False)
        deadline = time.monotonic() + 30
        while subprocess.run(["pgrep", "-f", str(self.data / "postgres")], capture_output=True).returncode == 0:
            assert time.monotonic() < deadline, "the embedded PostgreSQL outlived its kill"
            time.sleep(0.1)
        shutil.rmtree(self.data / "postgres")

    def database_url(self) -> str:
        url = embedded.running_url(self.data)
        assert url is not None
        return url

    def log(self) -> str:
        return (self.root / "serve.log").read_text(errors="replace")


def call_or_none(url: str) -> int | None:
    try:
        return call("GET", url, timeout=2)[0]
    except OSError:
        return None


@pytest.fixture
def root():
    path = Path("/tmp") / f"osm-bk-{os.getpid()}-{time.monotonic_ns() % 10**6}"  # short: it holds a socket
    path.mkdir()
    yield path
    subprocess.run(["pkill", "-9", "-f", str(path)], check=False)
    shutil.rmtree(path, ignore_errors=True)


def wait_until_logged(server: Serve, seconds: float = 30) -> str:
    """Until the published checkpoint covers every entry written so far; returns it."""
    deadline = time.monotonic() + seconds
    with psycopg.connect(server.database_url(), autocommit=True) as conn:
        while True:
            pending, published = conn.execute(
                "SELECT (SELECT count(*) FROM log_pending), (SELECT coalesce(max(size), 0) FROM log_published)"
            ).fetchone()
            latest = conn.execute("SELECT coalesce(max(size), 0) FROM log_checkpoints").fetchone()[0]
            if pending == 0 and published == latest:
                return text_of(f"{server.base}/log/checkpoint")[1]
            assert time.monotonic() < deadline, f"{pending} entries pending, published {published} of {latest}"
            time.sleep(0.1)


def audit(server: Serve, key: str, state: Path) -> str:
    """`osmosis audit` of the server with `state`, which must hold (exit 0); what it printed."""
    audited = server.osmosis("audit", server.base, "--log-key", key, "--state", str(state))
    assert audited.returncode == 0, audited.stdout + audited.stderr
    return audited.stdout


def size_of(note: str) -> tuple[int, bytes]:
    checkpoint = parse_checkpoint(note.split("\n\n")[0] + "\n")
    return checkpoint.size, checkpoint.root


def assert_prefix(server: Serve, older: str, newer: str) -> None:
    (old_size, old_root), (new_size, new_root) = size_of(older), size_of(newer)
    if old_size == new_size:
        assert old_root == new_root
        return
    status, body, _ = call("GET", f"{server.base}/log/consistency?from={old_size}&to={new_size}")
    assert status == 200, body
    verify_consistency(old_size, new_size, old_root, new_root, [base64.b64decode(h) for h in body["proof"]])


def test_a_restore_to_the_end_of_the_wal_archive_loses_nothing_acknowledged(root):
    server = Serve(root, OSMOSIS_WAL_ARCHIVE=str(root / "archive")).start()
    with Load(server.base) as load:
        time.sleep(2)
        backup = server.osmosis("backup", str(root / "backup"))
        assert backup.returncode == 0, backup.stderr
        time.sleep(3)
    published = wait_until_logged(server)
    games_before = len({game for game, _, _ in load.landed})
    assert load.landed and not load.errors, load.errors
    server.lose_the_machine()

    restored = server.osmosis("restore", str(root / "backup"))
    assert restored.returncode == 0, restored.stderr
    assert "timeline 2" in restored.stdout
    server.start()
    try:
        url = server.database_url()
        assert_every_2xx_is_in_the_log(url, load)
        assert_every_game_verifies(server.base, url)
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT count(*) FROM games").fetchone()[0] >= games_before
        assert call("GET", f"{server.base}/readyz")[1]["log"] == "ok"
        assert call("POST", f"{server.base}/games", {"variant": "osmosis"})[0] == 201
        assert_prefix(server, published, wait_until_logged(server))
    finally:
        server.stop()


def test_a_log_restored_behind_what_it_published_is_recovered_from_its_tiles_and_never_forks(root):
    server = Serve(root).start()
    state, key = root / "monitor.json", server.osmosis("log-key").stdout.strip()
    try:
        for _ in range(3):
            assert call("POST", f"{server.base}/games", {"variant": "peek"})[0] == 201
        backup = server.osmosis("backup", str(root / "backup"))
        assert backup.returncode == 0, backup.stderr
        lost = [call("POST", f"{server.base}/games", {"variant": "peek"})[1]["id"] for _ in range(4)]
        published = wait_until_logged(server)
        audit(server, key, state)
    finally:
        server.stop()
    shutil.rmtree(server.data / "postgres")
    restored = server.osmosis("restore", str(root / "backup"))
    assert restored.returncode == 0, restored.stderr

    server.start()
    try:
        with Checkpoints(server.base) as served:
            readiness = call("GET", f"{server.base}/readyz")[1]
            assert "is behind the last checkpoint recorded beside its key" in readiness["log"], readiness
            assert f"of size {size_of(published)[0]}" in readiness["log"]
            assert "signs nothing" in server.log() and "behind" in server.log()
            # The gauge is set by the sequencer's turn (runtime/sequencer.py), which may come after /readyz is first
            # asked: it must say 1 by that turn.
            until(lambda: "osmosis_log_signing_refused 1.0" in text_of(f"{server.base}/metrics")[1], seconds=10)
            assert text_of(f"{server.base}/log/checkpoint")[1] == published, "the checkpoint served went back"
            played = call("POST", f"{server.base}/games", {"variant": "peek"})
            assert played[0] == 201, "games go on while the log waits"
            time.sleep(1)
            assert text_of(f"{server.base}/log/checkpoint")[1] == published, "a checkpoint was signed behind"
            audit(server, key, state)

            recovered = server.osmosis("log", "recover")
            assert recovered.returncode == 0, recovered.stderr
            assert f"to {size_of(published)[0]} entries" in recovered.stdout
            newest = wait_until_logged(server)
            assert size_of(newest)[0] == size_of(published)[0] + 1, "the game played since, and nothing else"
            assert call("GET", f"{server.base}/readyz")[1]["log"] == "ok"
        served.assert_consistent()
        assert min(served.seen) >= size_of(published)[0]
        assert_prefix(server, published, newest)
        for game_id in lost:
            status, body, _ = call("GET", f"{server.base}/games/{game_id}")
            assert status == 410 and body["code"] == "game-gone" and isinstance(body["log_entry"], int), body
        audit(server, key, state)
        assert json.loads(state.read_text())
    finally:
        server.stop()


def test_a_log_whose_tiles_were_lost_too_is_retired_and_a_new_one_goes_on(root):
    server = Serve(root).start()
    state, old_key = root / "monitor.json", server.osmosis("log-key").stdout.strip()
    try:
        game = call("POST", f"{server.base}/games", {"variant": "peek"})[1]
        assert call("POST", f"{server.base}/games/{game['id']}/resign", {}, game["player_token"])[0] == 200
        backup = server.osmosis("backup", str(root / "backup"))
        assert backup.returncode == 0, backup.stderr
        for _ in range(3):
            assert call("POST", f"{server.base}/games", {"variant": "peek"})[0] == 201
        published = wait_until_logged(server)
        export = root / "export.json"
        export.write_text(json.dumps(call("GET", f"{server.base}/games/{game['id']}/replay")[1]))
        audit(server, old_key, state)
    finally:
        server.stop()
    shutil.rmtree(server.data / "postgres")
    shutil.rmtree(root / "tiles")
    assert server.osmosis("restore", str(root / "backup")).returncode == 0

    server.start()
    try:
        assert "is behind" in call("GET", f"{server.base}/readyz")[1]["log"]
        recovered = server.osmosis("log", "recover")
        assert recovered.returncode == 1 and "the entries are gone" in recovered.stderr, recovered.stderr
    finally:
        server.stop()
    retired = server.osmosis("log", "retire", "--new-origin", "localhost/osmosis-log/2")
    assert retired.returncode == 0, retired.stderr
    new_key = retired.stdout.strip().splitlines()[2]
    assert new_key.startswith("localhost/osmosis-log/2+") and f"at {size_of(published)[0]} entries" in retired.stdout

    # Run again by mistake: the successor signs, and is not retired in its turn.
    again = server.osmosis("log", "retire")
    assert again.returncode == 1 and "signs: its tree agrees with every checkpoint" in again.stderr, again.stderr
    # Again with the old key: it says the log was retired, not that there is nothing.
    old_skey = next(server.data.glob("log-signing-key.retired-*")).read_text().strip()
    spare = root / "spare-key"
    assert server.osmosis("keygen", "localhost/osmosis-log/3", "--out", str(spare)).returncode == 0
    server.env["LOG_SIGNING_KEY"] = old_skey
    try:
        old = server.osmosis("log", "retire", "--new-key", str(spare))
        assert old.returncode == 1 and "was retired already" in old.stderr and new_key in old.stderr, old.stderr
        server.start()  # a server left on the retired key says so, and hands out no key to pin
        try:
            status, body, _ = call("GET", f"{server.base}/log/key")
            assert status == 503 and body["code"] == "log-behind" and "was retired" in body["detail"], body
            assert "was retired" in call("GET", f"{server.base}/readyz")[1]["log"]
        finally:
            server.stop()
    finally:
        del server.env["LOG_SIGNING_KEY"]

    server.start()
    try:
        assert call("GET", f"{server.base}/readyz")[1]["log"] == "ok"
        assert text_of(f"{server.base}/log/key")[1].strip() == new_key
        status, listed, _ = call("GET", f"{server.base}/log/retirements")
        assert status == 200 and listed["retirements"][0]["verifier_key"] == old_key
        assert call("POST", f"{server.base}/games", {"variant": "peek"})[0] == 201
        wait_until_logged(server)
        old_monitor = audit(server, old_key, state)
        assert old_monitor.startswith("RETIRED: "), old_monitor
        assert new_key in old_monitor
        audit(server, new_key, root / "new.json")
        verified = server.osmosis("verify", "--log-key", old_key, str(export))
        assert verified.returncode == 0, verified.stdout + verified.stderr
    finally:
        server.stop()


def test_careless_commands_get_a_clear_refusal_and_touch_nothing(root):
    server = Serve(root)
    (root / "not-a-backup").mkdir()
    refused = server.osmosis("restore", str(root / "not-a-backup"))
    assert refused.returncode == 2 and "is not a backup `osmosis backup` made" in refused.stderr, refused.stderr
    refused = server.osmosis("restore", str(root / "nowhere"))
    assert refused.returncode == 2 and "is not a backup" in refused.stderr

    (root / "backup").mkdir()
    (root / "backup" / "backup.json").write_text(json.dumps({"format": "osmosis-backup/1"}))
    (server.data / "postgres").mkdir(parents=True)
    (server.data / "postgres" / "PG_VERSION").write_text("18\n")
    refused = server.osmosis("restore", str(root / "backup"))
    assert refused.returncode == 2 and "holds a database: a restore never writes over one" in refused.stderr
    assert (server.data / "postgres" / "PG_VERSION").read_text() == "18\n"
    shutil.rmtree(server.data / "postgres")
    refused = server.osmosis("restore", str(root / "backup"), "--target-time", "2026-11-27 09:00:00+00")
    assert refused.returncode == 2 and "set OSMOSIS_WAL_ARCHIVE" in refused.stderr

    server.env["DATABASE_URL"] = "postgresql://postgres@127.0.0.1:1/none"
    refused = server.osmosis("restore", str(root / "backup"))
    assert refused.returncode == 2 and "rebuilds the embedded PostgreSQL" in refused.stderr
    refused = server.osmosis("backup", str(root / "backup"))
    assert refused.returncode == 2 and "is not empty" in refused.stderr
    refused = server.osmosis("backup", str(root / "new-backup"))
    assert refused.returncode == 2 and "the database cannot be read: connection failed" in refused.stderr
    assert not (root / "new-backup").exists()
    del server.env["DATABASE_URL"]


def test_a_restore_while_the_server_runs_is_refused(root):
    server = Serve(root).start()
    try:
        backup = server.osmosis("backup", str(root / "backup"))
        assert backup.returncode == 0, backup.stderr
        refused = server.osmosis("restore", str(root / "backup"))
        assert refused.returncode == 2 and "holds a database" in refused.stderr, refused.stderr
        (server.data / "postgres").rename(root / "moved")  # moved aside, as told, but the server still runs
        try:
            refused = server.osmosis("restore", str(root / "backup"))
        finally:
            (root / "moved").rename(server.data / "postgres")
        assert refused.returncode == 2 and "is in use by process" in refused.stderr, refused.stderr
        assert call("GET", f"{server.base}/readyz")[0] == 200
    finally:
        server.stop()


def test_a_restore_to_a_point_in_time_keeps_what_came_before_it_and_nothing_after(root):
    server = Serve(root, OSMOSIS_WAL_ARCHIVE=str(root / "archive")).start()
    try:
        backup = server.osmosis("backup", str(root / "backup"))
        assert backup.returncode == 0, backup.stderr
        before = [call("POST", f"{server.base}/games", {"variant": "peek"})[1]["id"] for _ in range(3)]
        time.sleep(1.5)
        with psycopg.connect(server.database_url()) as conn:
            target = str(conn.execute("SELECT now()").fetchone()[0])
        time.sleep(1.5)
        after = [call("POST", f"{server.base}/games", {"variant": "peek"})[1]["id"] for _ in range(3)]
    finally:
        server.stop()
    shutil.rmtree(server.data / "postgres")
    restored = server.osmosis("restore", str(root / "backup"), "--target-time", target)
    assert restored.returncode == 0, restored.stderr

    server.start()
    try:
        assert all(call("GET", f"{server.base}/games/{game}")[0] == 200 for game in before)
        assert all(call("GET", f"{server.base}/games/{game}")[0] in (404, 410) for game in after)
        assert_every_game_verifies(server.base, server.database_url())
    finally:
        server.stop()


def flipped(backup: Path, copy: Path, name: str, at: int | None = None, truncate: bool = False) -> Path:
    """A copy of `backup` with one byte of `base/<name>` flipped (or the file cut in half)."""
    shutil.copytree(backup, copy)
    damaged = copy / "base" / name
    data = bytearray(damaged.read_bytes())
    if truncate:
        del data[len(data) // 2 :]
    else:
        where = len(data) // 2 if at is None else at
        data[where] ^= 0x01
    damaged.write_bytes(bytes(data))
    return copy


def test_a_drill_restores_without_the_log_s_key_and_a_damaged_backup_restores_nothing(root):
    server = Serve(root).start()
    production_key = server.osmosis("log-key").stdout.strip()
    try:
        made = [call("POST", f"{server.base}/games", {"variant": "peek"})[1] for _ in range(2)]
        assert call("POST", f"{server.base}/games/{made[0]['id']}/resign", {}, made[0]["player_token"])[0] == 200
        published = wait_until_logged(server)
        backup = server.osmosis("backup", str(root / "backup"))
        assert backup.returncode == 0, backup.stderr
        assert "2 games, the public log at" in backup.stdout, backup.stdout
        taken = json.loads((root / "backup" / "backup.json").read_text())
        assert taken["games"] == 2 and taken["log_size"] == size_of(published)[0], taken
    finally:
        server.stop()

    # Damaged or incomplete: refused before anything is unpacked, or unpacked aside and taken away again.
    drill = Serve(root / "drill")
    (root / "drill").mkdir()
    for damaged in (
        flipped(root / "backup", root / "flipped", "base.tar.gz"),
        flipped(root / "backup", root / "cut", "pg_wal.tar.gz", truncate=True),
        flipped(root / "backup", root / "wal-flipped", "pg_wal.tar.gz", at=4096),
    ):
        refused = drill.osmosis("restore", str(damaged))
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "nothing was restored" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr
        assert not (drill.data / "postgres").exists() or not any((drill.data / "postgres").iterdir())
        assert not (drill.data / ".postgres.restoring").exists()

    # The drill, as docs/operations.md runs it: another data directory, the key not restored.
    restored = drill.osmosis("restore", str(root / "backup"))
    assert restored.returncode == 0, restored.stderr
    assert "signing key was NOT restored" in restored.stdout, restored.stdout
    assert "restored to the backup's end" in restored.stdout and "no WAL replayed" in restored.stdout
    assert taken["finished_at"] in restored.stdout, "the time said is the backup's, not the restore's"
    assert not (drill.data / "log-signing-key").exists()
    drill.start()
    try:
        # The runbook's checks: `osmosis audit` against the restored server with a fresh state, a few verifications.
        audit(drill, production_key, root / "drill-monitor.json")
        for game in made:
            verdict = call("GET", f"{drill.base}/games/{game['id']}/verification")[1]
            assert verdict["valid"] is True, verdict
        assert text_of(f"{drill.base}/log/key")[0] == 503, "the drill hands out a key to pin"
        assert call("POST", f"{drill.base}/games", {"variant": "peek"})[0] == 201
        time.sleep(1)
        readiness = call("GET", f"{drill.base}/readyz")[1]
        assert readiness["log"] != "ok" and "LOG_SIGNING_KEY" in readiness["log"], readiness
        with psycopg.connect(drill.database_url()) as conn:
            sizes = [row[0] for row in conn.execute("SELECT size FROM log_checkpoints")]
        assert max(sizes) == size_of(published)[0], "the drill signed a checkpoint"
    finally:
        drill.stop()


def test_a_backup_of_a_data_directory_with_no_database_is_refused(root):
    elsewhere = Serve(root / "elsewhere")
    refused = elsewhere.osmosis("backup", str(root / "backup"))
    assert refused.returncode == 2, refused.stdout
    assert f"no database in {elsewhere.data.resolve() / 'postgres'}" in refused.stderr, refused.stderr
    assert not (elsewhere.data / "postgres").exists(), "a new, empty database was made"
    assert not (root / "backup").exists()


def test_a_restore_without_the_archive_is_never_served_with_it(root):
    server = Serve(root, OSMOSIS_WAL_ARCHIVE=str(root / "archive")).start()
    try:
        backup = server.osmosis("backup", str(root / "backup"))
        assert backup.returncode == 0, backup.stderr
        with psycopg.connect(server.database_url(), autocommit=True) as conn:
            for _ in range(2):  # the archive goes on past the backup
                conn.execute("SELECT pg_switch_wal()")
                assert call("POST", f"{server.base}/games", {"variant": "peek"})[0] == 201
    finally:
        server.stop()
    shutil.rmtree(server.data / "postgres")
    without = {key: value for key, value in server.env.items() if key != "OSMOSIS_WAL_ARCHIVE"}
    restored = subprocess.run(
        [OSMOSIS, "restore", str(root / "backup")], env=without, capture_output=True, text=True, timeout=300
    )
    assert restored.returncode == 0, restored.stderr
    assert "no WAL replayed (OSMOSIS_WAL_ARCHIVE is not set)" in restored.stdout, restored.stdout
    served = server.osmosis("serve", "--port", str(server.port))
    assert served.returncode == 2, served.stdout + served.stderr
    assert "goes on past this database" in served.stderr and "nothing was started" in served.stderr, served.stderr
