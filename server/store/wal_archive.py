"""Continuous WAL archiving for the embedded PostgreSQL (OSMOSIS_WAL_ARCHIVE): every byte of WAL is in the archive
before the commit that wrote it is acknowledged, so that `osmosis restore` to the latest point loses nothing.

PostgreSQL's archive_command copies a segment only once it is full (16 MB, or at archive_timeout): what was
committed since, acknowledged to clients, is lost with the data directory. So the archive is kept by
pg_receivewal, streaming as a synchronous standby (`synchronous_standby_names`) from a replication slot: each
commit waits until the archive has flushed it. While pg_receivewal is down, commits wait, and the server answers
503 past its connection hold limit (store/commits.py), never 200 for a write the archive lacks; it is started
again within a second. The segment being written is `<name>.partial` in the archive; `osmosis restore` reads it.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import psycopg
import psycopg.sql

from . import embedded
from . import maintenance_sql as sql

log = logging.getLogger(__name__)

ARCHIVER = "osmosis_wal_archive"
"""The replication slot's name, and pg_receivewal's application_name that synchronous_standby_names lists."""
RESTART_SECONDS = 1.0


def configure(server_url: str, archiving: bool) -> None:
    """Make the server wait for the archive at every commit (or, not archiving, stop waiting for it)."""
    with psycopg.connect(server_url, autocommit=True) as conn:
        standbys = conn.execute(sql.SHOW_SYNCHRONOUS_STANDBYS).fetchone()
        wanted = ARCHIVER if archiving else ""
        if standbys is not None and standbys[0] != wanted and (archiving or standbys[0] == ARCHIVER):
            if not archiving:
                log.warning("OSMOSIS_WAL_ARCHIVE is not set: commits no longer wait for the WAL archive")
            conn.execute(sql.SET_SYNCHRONOUS_STANDBYS.format(psycopg.sql.Literal(wanted)))
            conn.execute(sql.RELOAD_CONFIGURATION)
        conn.execute(sql.CREATE_ARCHIVE_SLOT if archiving else sql.DROP_IDLE_ARCHIVE_SLOT, {"slot": ARCHIVER})


class ArchiveAhead(RuntimeError):
    """The archive holds WAL past the database's: another history (a restore made without it, a database made anew)."""


def _segment(name: str) -> int | None:
    """The segment number (timeline aside) of a WAL file's name, or None for another file."""
    stem = name.removesuffix(".partial")
    if len(stem) != 24 or any(c not in "0123456789ABCDEF" for c in stem):
        return None
    return int(stem[8:16], 16) << 32 | int(stem[16:], 16)


def check_continues(server_url: str, archive: Path) -> None:
    """Raise ArchiveAhead unless the database's WAL reaches the archive's: pg_receivewal resumes from the archive's
    end, which a database behind it (restored without the archive) never gets to, and every commit would wait for
    it, answered 503 for ever."""
    if not archive.is_dir():
        return
    archived = max((n for f in archive.iterdir() if (n := _segment(f.name)) is not None), default=None)
    with psycopg.connect(server_url, autocommit=True) as conn:
        row = conn.execute(sql.CURRENT_WAL_LSN).fetchone()
    assert row is not None
    lsn, current_file = row
    if archived is not None and archived > (_segment(current_file) or 0):
        raise ArchiveAhead(
            f"the WAL archive {archive.resolve()} goes on past this database (its WAL is at {lsn}): it belongs to "
            "another history (restored without OSMOSIS_WAL_ARCHIVE?). Archive into a new, empty directory "
            "(OSMOSIS_WAL_ARCHIVE), or restore again with this archive set; nothing was started"
        )


@contextlib.contextmanager
def archiving(server_url: str, archive: Path | None) -> Iterator[None]:
    """For as long as the block runs, every commit in the archive before it is acknowledged (no archive: commits
    wait for nothing). ArchiveAhead when the archive cannot go on from this database."""
    if archive is not None:
        check_continues(server_url, archive)
    configure(server_url, archive is not None)
    if archive is None:
        yield
        return
    archiver = WalArchiver(server_url, archive)
    archiver.start()
    try:
        yield
    finally:
        archiver.stop()


class WalArchiver:
    """pg_receivewal into `archive`, started again whenever it ends, until stopped."""

    def __init__(self, server_url: str, archive: Path) -> None:
        self.archive = archive
        self._url = _with_application_name(server_url)
        self._stopped = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="osmosis-wal-archiver", daemon=True)

    def start(self) -> None:
        self.archive.mkdir(parents=True, exist_ok=True)
        user = embedded.system_user()
        if user is not None:  # PostgreSQL, running as its own user, reads the archive when it is restored
            embedded.give_to(user, self.archive)
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                self._process.terminate()
        self._thread.join(10)

    def _run(self) -> None:
        while not self._stopped.is_set():
            command = [
                str(embedded.binary("pg_receivewal")),
                "--directory",
                str(self.archive),
                "--dbname",
                self._url,
                "--slot",
                ARCHIVER,
                "--synchronous",
                "--no-loop",
                "--no-password",
            ]
            with self._lock:
                if self._stopped.is_set():
                    return
                self._process = subprocess.Popen(
                    command, user=embedded.system_user(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
                )
                process = self._process
            _, errors = process.communicate()
            if not self._stopped.is_set():
                log.warning(
                    "pg_receivewal ended (%s): %s; commits wait until it runs again",
                    process.returncode,
                    errors.decode(errors="replace").strip()[-500:],
                )
                self._stopped.wait(RESTART_SECONDS)


def _with_application_name(url: str) -> str:
    return url + ("&" if "?" in url else "?") + f"application_name={ARCHIVER}"
