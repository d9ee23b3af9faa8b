"""Backups of one server's database, and restores of the embedded one: `osmosis backup DIR` and `osmosis restore DIR`.

A backup is a directory: PostgreSQL's base backup as tar files (pg_basebackup, online, with the WAL that makes it
consistent, checked by pg_verifybackup), the public log's signing key when it is kept in the data directory, and
backup.json saying what and when. A restore rebuilds the embedded server's data directory from it and replays the
WAL archive (OSMOSIS_WAL_ARCHIVE) to its end, or to a target time, then stops: `osmosis serve` goes on from there.

What a backup never holds is the log's record of the checkpoints it published (log-checkpoints-<key id>.json):
restored, an old record would let the log sign over entries the backup lacks, a fork. The record stays where it is;
the log compares the restored database with it before it signs again (service/public_log/guard.py).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import tarfile
import tempfile
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import psycopg

from . import embedded
from . import maintenance_sql as sql

FORMAT = "osmosis-backup/1"
MANIFEST = "backup.json"
KEY_FILE = "log-signing-key"
RECOVERY_SETTINGS = ("restore_command", "recovery_target_time", "recovery_target_action", "synchronous_standby_names")
"""What a restore writes into the restored server's configuration for its recovery only, and takes out after."""


class BackupError(RuntimeError):
    """A backup or restore that cannot be made: its message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Restored:
    recovered_to: str | None
    """The time of the last transaction replayed from the WAL archive; None: none was (restored to the backup's end)."""
    timeline: int
    backup: dict[str, object]
    """What the backup says it took (its backup.json)."""
    log_key_restored: bool


def take(server_url: str, target: Path, key_file: Path | None) -> dict[str, object]:
    """An online base backup of the server at `server_url` in `target` (a new or empty directory), refused for a
    database no server ever used (no migrations): a backup of nothing said to be taken is a trap."""
    if target.exists() and any(target.iterdir()):
        raise BackupError(f"{target} is not empty: a backup goes into a directory of its own")
    games, log_size = _what_is_there(server_url)
    target.mkdir(parents=True, exist_ok=True)
    started = datetime.now(UTC)
    _run(
        [
            str(embedded.binary("pg_basebackup")),
            "--dbname",
            server_url,
            "--pgdata",
            str(target / "base"),
            "--format=tar",
            "--gzip",
            "--wal-method=stream",
            "--checkpoint=fast",
            "--no-password",
            "--label",
            f"osmosis {started:%Y-%m-%dT%H:%M:%SZ}",
        ],
        "pg_basebackup",
    )
    _run([str(embedded.binary("pg_verifybackup")), "--no-parse-wal", str(target / "base")], "pg_verifybackup")
    kept_key = key_file is not None and key_file.exists()
    if key_file is not None and kept_key:
        shutil.copy2(key_file, target / KEY_FILE)
        (target / KEY_FILE).chmod(0o600)
    manifest: dict[str, object] = {
        "format": FORMAT,
        "started_at": started.isoformat(timespec="seconds"),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "log_signing_key": kept_key,
        "games": games,
        "log_size": log_size,
    }
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def _what_is_there(server_url: str) -> tuple[int, int]:
    """The games and the public log's size of the database at `server_url`; BackupError if no server migrated it."""
    try:
        with psycopg.connect(server_url, autocommit=True, connect_timeout=10) as conn:
            row = conn.execute(sql.BACKED_UP).fetchone()
    except psycopg.errors.UndefinedTable:
        raise BackupError(
            f"the database at {_where(server_url)} holds no server's games (no migrations were ever applied): is "
            "this the database `osmosis serve` uses? (OSMOSIS_DATA_DIR or DATABASE_URL as the server has them)"
        ) from None
    except psycopg.Error as error:
        raise BackupError(f"the database cannot be read: {error}") from None
    assert row is not None
    return int(row[0]), int(row[1])


def _where(server_url: str) -> str:
    return str(psycopg.conninfo.conninfo_to_dict(server_url).get("host") or "the default socket")


def restore(
    data_dir: Path, backup: Path, archive: Path | None, target_time: str | None, *, with_log_key: bool = False
) -> Restored:
    """The embedded server of `data_dir` rebuilt from `backup`, recovered through `archive` to its end (or to
    `target_time`), and stopped. Its database must be gone: a restore never writes over one. The backup is checked
    whole before anything is unpacked, and unpacked aside: a damaged one restores nothing. The log's signing key comes
    back only `with_log_key` (a drill then could never sign as the log it restored)."""
    manifest = _manifest(backup)
    pgdata = data_dir.resolve() / "postgres"
    if pgdata.exists() and any(pgdata.iterdir()):
        raise BackupError(
            f"{pgdata} holds a database: a restore never writes over one; move it aside first (and stop osmosis serve)"
        )
    if target_time is not None and archive is None:
        raise BackupError("--target-time replays the WAL archive: set OSMOSIS_WAL_ARCHIVE to it")
    key_wanted = with_log_key and not (data_dir / KEY_FILE).exists()
    if key_wanted and not manifest.get("log_signing_key"):
        raise BackupError(f"--with-log-key: {backup} holds no signing key (the server had LOG_SIGNING_KEY set?)")
    _verify(backup / "base", "the backup")
    with embedded.owning(data_dir):
        _unpack_checked(backup / "base", pgdata)
        _configure_recovery(pgdata, archive, target_time)
        user = embedded.system_user()
        if user is not None:
            embedded.give_to(user, pgdata)
        with _recovering(pgdata, user) as url:
            recovered_to, timeline = _wait_for_promotion(url, pgdata)
            _forget_recovery(url)
    if key_wanted:
        shutil.copy2(backup / KEY_FILE, data_dir / KEY_FILE)
    return Restored(recovered_to, timeline, manifest, key_wanted)


def _verify(directory: Path, what: str) -> None:
    """pg_verifybackup's check of every file against the backup's manifest (each file's checksum), and of the WAL
    the backup needs when `directory` is unpacked."""
    tar = (directory / "base.tar.gz").exists()
    command = [str(embedded.binary("pg_verifybackup")), *(["--no-parse-wal"] if tar else []), str(directory)]
    answered = subprocess.run(command, capture_output=True, text=True)
    if answered.returncode != 0:
        raise BackupError(
            f"{what} is damaged or incomplete, and nothing was restored: {answered.stderr.strip()[-1500:]}"
        )


def _manifest(backup: Path) -> dict[str, object]:
    try:
        manifest: dict[str, object] = json.loads((backup / MANIFEST).read_text())
    except (OSError, ValueError) as error:
        raise BackupError(f"{backup} is not a backup `osmosis backup` made: {error}") from None
    if manifest.get("format") != FORMAT:
        raise BackupError(f"{backup} is a backup of another format: {manifest.get('format')!r}")
    return manifest


def _unpack_checked(base: Path, pgdata: Path) -> None:
    """The backup unpacked beside `pgdata`, checked whole with its WAL (pg_verifybackup, which also reads every WAL
    record the backup needs), then put in place: a damaged or incomplete backup leaves nothing half-unpacked."""
    staging = pgdata.with_name(f".{pgdata.name}.restoring")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        try:
            _unpack(base, staging)
        except (OSError, EOFError, tarfile.TarError, zlib.error) as error:
            raise BackupError(f"the backup cannot be unpacked, and nothing was restored: {error}") from None
        shutil.copy2(base / "backup_manifest", staging / "backup_manifest")
        _verify(staging, "the backup, unpacked,")
        (staging / "backup_manifest").unlink()
        _forget_the_running_server(staging)
        staging.rename(pgdata)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _unpack(base: Path, pgdata: Path) -> None:
    pgdata.mkdir(parents=True, exist_ok=True, mode=0o700)
    with tarfile.open(base / "base.tar.gz") as tar:
        tar.extractall(pgdata, filter="tar")
    with tarfile.open(base / "pg_wal.tar.gz") as tar:
        tar.extractall(pgdata / "pg_wal", filter="tar")


def _forget_the_running_server(pgdata: Path) -> None:
    # The embedded server's socket lives in its data directory: the lock file of the server that was backed up
    # would stop the restored one from starting on that socket.
    for stale in [
        *pgdata.glob(".s.PGSQL.*"),
        *(pgdata / name for name in ("postmaster.pid", "postmaster.opts", ".handle_pids.json")),
    ]:
        stale.unlink(missing_ok=True)
    pgdata.chmod(0o700)


def _configure_recovery(pgdata: Path, archive: Path | None, target_time: str | None) -> None:
    auto = pgdata / "postgresql.auto.conf"
    kept = [
        line
        for line in auto.read_text().splitlines()
        if line.split("=")[0].strip() not in RECOVERY_SETTINGS  # the archive's standby is not there to wait for
    ]
    settings = {"synchronous_standby_names": ""}
    if archive is not None:
        where = str(archive.resolve()).replace("'", "''")
        settings["restore_command"] = f'cp "{where}/%f" "%p" 2>/dev/null || cp "{where}/%f.partial" "%p"'
        settings["recovery_target_action"] = "promote"
        if target_time is not None:
            settings["recovery_target_time"] = target_time
        (pgdata / "recovery.signal").touch()
    auto.write_text("\n".join([*kept, *(f"{name} = '{_quoted(value)}'" for name, value in settings.items())]) + "\n")


def _quoted(value: str) -> str:
    return value.replace("'", "''")


@contextlib.contextmanager
def _recovering(pgdata: Path, user: str | None) -> Iterator[str]:
    sockets = Path(tempfile.mkdtemp(prefix="osmosis-restore-"))
    sockets.chmod(0o777)
    log = pgdata / "restore.log"
    try:
        try:
            subprocess.run(
                [
                    str(embedded.binary("pg_ctl")),
                    "-D",
                    str(pgdata),
                    "-w",
                    "-t",
                    "86400",
                    "-o",
                    f'-h "" -k {sockets}',
                    "-l",
                    str(log),
                    "start",
                ],
                check=True,
                user=user,
                capture_output=True,
            )
        except subprocess.CalledProcessError:
            raise BackupError(f"the restored server did not start: {_tail(log)}") from None
        try:
            yield f"postgresql://postgres@/postgres?host={sockets}"
        finally:
            subprocess.run(
                [str(embedded.binary("pg_ctl")), "-D", str(pgdata), "-w", "-m", "fast", "stop"],
                user=user,
                capture_output=True,
            )
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


def _wait_for_promotion(url: str, pgdata: Path) -> tuple[str | None, int]:
    while True:
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                row = conn.execute(sql.RESTORED_TO).fetchone()
        except psycopg.OperationalError:
            if not (pgdata / "postmaster.pid").exists():
                raise BackupError(f"the restored server stopped: {_tail(pgdata / 'restore.log')}") from None
            time.sleep(0.2)
            continue
        assert row is not None
        in_recovery, recovered_to, timeline = row
        if not in_recovery:
            return (None if recovered_to is None else str(recovered_to)), int(timeline)
        time.sleep(0.2)


def _forget_recovery(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        for name in RECOVERY_SETTINGS:
            conn.execute(sql.RESET_SETTING.format(psycopg.sql.Identifier(name)))


def _tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace").strip()[-1500:]
    except OSError:
        return "(no log)"


def _run(command: list[str], what: str) -> None:
    answered = subprocess.run(command, capture_output=True, text=True)
    if answered.returncode != 0:
        raise BackupError(f"{what} failed: {answered.stderr.strip()[-1500:]}")
