"""A bound on the wait for a commit: with synchronous replication, PostgreSQL acknowledges a commit only once a
standby has it, and when none is left (synchronous_mode_strict) it waits for one for ever. statement_timeout does
not reach that wait (PostgreSQL turns it off before committing, and an autocommit statement's commit too), so a
request would hang past every timeout.

A watch is set on a connection for as long as the store uses it; work still going on when the watch's time is
up is cancelled, through PostgreSQL's cancel request, by the watcher's thread. A statement cancelled fails; a
commit's wait cancelled ends with a warning, the transaction committed on the primary but no standby known to
have it: the store tells its caller so (ReplicationUnconfirmed), never "done".
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

import psycopg


class Watch:
    __slots__ = ("cancelled", "conn", "deadline")

    def __init__(self, conn: psycopg.Connection[Any], deadline: float) -> None:
        self.conn = conn
        self.deadline = deadline
        self.cancelled = False


class CommitWatcher:
    def __init__(self, seconds: float) -> None:
        """`seconds`: the longest a watched connection's work may last before it is cancelled."""
        self.seconds = seconds
        self._watches: set[Watch] = set()
        self._lock = threading.Lock()
        self._work = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, conn: psycopg.Connection[Any]) -> Watch:
        watch = Watch(conn, time.monotonic() + self.seconds)
        with self._lock:
            self._watches.add(watch)
            if self._thread is None or not self._thread.is_alive():
                # Started by the first commit in each process (gunicorn's workers are forked after the app is made).
                self._thread = threading.Thread(target=self._run, name="osmosis-commit-watcher", daemon=True)
                self._thread.start()
        if not self._work.is_set():
            self._work.set()
        return watch

    def forget(self, watch: Watch) -> None:
        with self._lock:
            self._watches.discard(watch)

    def _run(self) -> None:
        tick = min(0.1, self.seconds / 4)
        while True:
            self._work.wait()
            time.sleep(tick)
            now = time.monotonic()
            with self._lock:
                overdue = [w for w in self._watches if w.deadline <= now and not w.cancelled]
                if not self._watches:
                    self._work.clear()
            for watch in overdue:
                watch.cancelled = True
                with contextlib.suppress(psycopg.Error):  # the connection ended meanwhile
                    watch.conn.cancel_safe(timeout=self.seconds)
