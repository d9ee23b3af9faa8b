"""pgBackRest as deployed (deploy/pgbackrest/), drilled on a real PostgreSQL 15 from Debian's packages with the
server playing on it: a full and a differential backup, WAL archived by archive_command, the data directory lost,
then a restore to a point in time (what was acknowledged before it is back, nothing after) and one to the end of
the archive (everything acknowledged back, every game verifies). Both configuration files are read by pgBackRest
itself, which refuses an option it does not know."""

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from server.store import migrate
from tests.apps import free_port
from tests.load import assert_every_game_verifies
from tests.processes import call, start_gunicorn, stop

DEPLOY = Path(__file__).parents[2] / "deploy" / "pgbackrest"
BIN_DIR = Path("/usr/lib/postgresql/15/bin")
STANZA = "osmosis"


def as_postgres(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """A command as Debian's postgres user when this is root (PostgreSQL refuses to run as root)."""
    if os.geteuid() == 0:
        command = ["runuser", "-u", "postgres", "--", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)


def checked(command: list[str]) -> str:
    done = as_postgres(command)
    assert done.returncode == 0, f"{command}: {done.stdout}\n{done.stderr}"
    return done.stdout


class Server:
    """One PostgreSQL with pgBackRest's configuration from deploy/pgbackrest/single-server.conf, in a folder."""

    def __init__(self) -> None:
        if shutil.which("pgbackrest") is None or not (BIN_DIR / "postgres").exists():
            pytest.fail("the backup drill needs pgbackrest and postgresql-15: run scripts/install-system-packages")
        self.folder = Path(tempfile.mkdtemp(prefix="osmosis-pgbackrest-", dir="/tmp"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.config = self.folder / "pgbackrest.conf"
        text = (DEPLOY / "single-server.conf").read_text()
        text = text.replace("/var/lib/pgbackrest", str(self.folder / "repo"))
        text = text.replace("/var/spool/pgbackrest", str(self.folder / "spool"))
        text = text.replace("/var/lib/postgresql/15/main", str(self.data))
        text = text.replace("pg1-port=5432", f"pg1-port={self.port}\npg1-socket-path={self.folder}")
        text = text.replace("[global]", f"[global]\nlog-path={self.folder}/log\nlock-path={self.folder}/lock", 1)
        self.config.write_text(text)
        for name in ("repo", "spool", "log", "lock"):
            (self.folder / name).mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            for path in self.folder.iterdir():
                shutil.chown(path, "postgres", "postgres")

    def pgbackrest(self, *args: str) -> str:
        return checked(["pgbackrest", f"--config={self.config}", f"--stanza={STANZA}", *args])

    def initdb(self) -> None:
        checked([str(BIN_DIR / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "--data-checksums"])
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write(
                f"port = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.folder}'\n"
                "archive_mode = on\n"
                f"archive_command = 'pgbackrest --config={self.config} --stanza={STANZA} archive-push %p'\n"
                "archive_timeout = 1\n"  # the deployed 60 s, shortened for the drill
            )

    def start(self) -> None:
        checked([str(BIN_DIR / "pg_ctl"), "-D", str(self.data), "-w", "-l", str(self.folder / "postgres.log"), "start"])

    def lose(self) -> None:
        """The machine's database lost: PostgreSQL killed mid-flight, its data directory deleted."""
        as_postgres([str(BIN_DIR / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"])
        shutil.rmtree(self.data)

    def restore(self, *options: str) -> None:
        self.pgbackrest(*options, "restore")
        self.start()
        deadline = time.monotonic() + 60
        while True:
            with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
                if not conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
                    return
            assert time.monotonic() < deadline, "the restored server did not leave recovery"
            time.sleep(0.2)

    def url(self, database: str = "osmosis") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def cleanup(self) -> None:
        as_postgres([str(BIN_DIR / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"])
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def server():
    made = Server()
    yield made
    made.cleanup()


def games_in(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {str(row[0]) for row in conn.execute("SELECT id FROM games")}


def play(base: str, games: int) -> list[str]:
    made = []
    for _ in range(games):
        status, game, _ = call("POST", f"{base}/games", {"variant": "osmosis"})
        assert status == 201, game
        drawn = call("POST", f"{base}/games/{game['id']}/draw", {}, game["player_token"])
        assert drawn[0] == 200, drawn
        made.append(game["id"])
    return made


def database_time(url: str) -> str:
    with psycopg.connect(url) as conn:
        return str(conn.execute("SELECT now()").fetchone()[0])


def test_full_and_differential_backups_restore_to_a_point_in_time_and_to_the_archive_s_end(server):
    server.initdb()
    server.start()
    with psycopg.connect(server.url("postgres"), autocommit=True) as conn:
        conn.execute("CREATE DATABASE osmosis")
    migrate.upgrade(server.url())
    server.pgbackrest("stanza-create")
    server.pgbackrest("check")
    none_yet = backup_age(server, hours=26)
    assert none_yet.returncode == 1 and "holds no backup" in none_yet.stderr, none_yet.stderr
    assert "osmosis_backup_repository_ok 0" in (server.folder / "backup.prom").read_text()
    server.pgbackrest("--type=full", "backup")
    fresh = backup_age(server, hours=26)
    assert fresh.returncode == 0 and "the newest backup ended 0.0 hours ago" in fresh.stdout, fresh.stderr
    metrics = (server.folder / "backup.prom").read_text()
    assert "osmosis_backup_repository_ok 1" in metrics and "osmosis_backup_age_seconds " in metrics
    missed = backup_age(server, hours=1 / 3600_000)  # as if the nightly backups had stopped
    assert missed.returncode == 1 and "the scheduled backups are not running" in missed.stderr
    # A repository it cannot read (a configuration gone, a stanza of another server): never "fine", never a crash.
    for config, stanza in ((server.folder / "nowhere.conf", STANZA), (server.config, "another-server")):
        blind = backup_age(server, hours=26, config=config, stanza=stanza)
        assert blind.returncode == 1 and "Traceback" not in blind.stderr, blind.stderr
        assert "cannot tell" in blind.stderr or "holds no backup" in blind.stderr, blind.stderr
        assert "osmosis_backup_repository_ok 0" in (server.folder / "backup.prom").read_text()

    port = free_port()
    gunicorn = start_gunicorn(server.url(), port)
    base = f"http://127.0.0.1:{port}"
    try:
        before = play(base, 4)
        server.pgbackrest("--type=diff", "backup")
        between = play(base, 3)
        time.sleep(1.5)
        target = database_time(server.url())
        time.sleep(1.5)
        after = play(base, 3)
    finally:
        stop(gunicorn)
    server.pgbackrest("check")  # the segment being written is pushed: the archive's end is now
    info = server.pgbackrest("info")
    assert "full backup" in info and "diff backup" in info

    server.lose()
    server.restore("--type=time", f"--target={target}", "--target-action=promote")
    kept = games_in(server.url())
    assert set(before + between) <= kept and not set(after) & kept, "the restore is not at its point in time"

    server.lose()
    server.restore()
    assert set(before + between + after) <= games_in(server.url())
    gunicorn = start_gunicorn(server.url(), port)
    try:
        assert_every_game_verifies(base, server.url())
        assert call("POST", f"{base}/games", {"variant": "osmosis"})[0] == 201
    finally:
        stop(gunicorn)
    server.pgbackrest("verify")


def backup_age(
    server: Server, hours: float, config: Path | None = None, stanza: str = STANZA
) -> subprocess.CompletedProcess:
    """deploy/pgbackrest/backup-age as cron runs it on a node (its check, and its metric for node_exporter)."""
    return as_postgres(
        [
            str(DEPLOY / "backup-age"),
            f"--config={config or server.config}",
            f"--stanza={stanza}",
            f"--max-hours={hours}",
            f"--textfile={server.folder / 'backup.prom'}",
        ]
    )


@pytest.mark.parametrize("name", ["pgbackrest.conf", "single-server.conf"])
def test_each_deployed_configuration_is_read_by_pgbackrest_itself(name, tmp_path):
    if shutil.which("pgbackrest") is None:
        pytest.fail("pgbackrest is missing: run scripts/install-system-packages")
    done = subprocess.run(
        [
            "pgbackrest",
            f"--config={DEPLOY / name}",
            f"--repo1-path={tmp_path}",
            f"--log-path={tmp_path}",
            f"--lock-path={tmp_path}",
            f"--stanza={STANZA}",
            "info",
        ],
        capture_output=True,
        text=True,
    )
    assert "invalid option" not in done.stdout + done.stderr and "unknown option" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
