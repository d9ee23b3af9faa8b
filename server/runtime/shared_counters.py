"""Counters every worker process of one server shares: rate limits and solver jobs in flight, without Redis.

gunicorn runs several worker processes; a count each kept alone would let a client through once per worker
(four times the rate limit it is told). The counters live in one file mapped into every worker's memory
(created by the gunicorn master, `OSMOSIS_SHARED_COUNTERS` names it), a fixed table of expiring counters
under one lock. Outside gunicorn (the tests, one process) the table is this process's own.

Servers on several machines share their counts through Redis instead (`RATE_LIMIT_STORAGE_URI`); this
module is the single-machine default, as a storage of the `limits` package so that flask-limiter and the
solver's job leases (server/runtime/solver_time.py) use either alike.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import mmap
import os
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from limits.storage import Storage

ENVIRONMENT = "OSMOSIS_SHARED_COUNTERS"
SCHEME = "osmosis-shared"
URI = f"{SCHEME}://"
SLOTS = 1 << 16
"""Counters the table holds at once: two rate-limit windows each for some 30,000 client addresses."""
PROBES = 16
"""Slots a key may occupy, from the one its digest names. When all are taken by live counters of other keys,
the counter closest to expiring gives way: under a flood of addresses the table forgets, it never fails."""
_SLOT = struct.Struct("<16sdq")  # the key's digest, when the count expires (epoch seconds), the count
SIZE = SLOTS * _SLOT.size


def create(directory: Path) -> Path:
    """The table's file, all counters empty: made once by the process that forks the workers."""
    path = directory / "osmosis-counters"
    with path.open("wb") as file:
        file.truncate(SIZE)
    return path


class CounterTable:
    """Expiring counters by key, in a mapping of `path` (shared by every process that maps it) or, without
    one, in this process's memory."""

    def __init__(self, path: Path | None) -> None:
        self._thread_lock = threading.Lock()
        if path is None:
            self._file = None
            self._memory = mmap.mmap(-1, SIZE)
        else:
            self._file = path.open("r+b")
            self._memory = mmap.mmap(self._file.fileno(), SIZE)

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        """The key's count after adding `amount`; a key absent or expired starts again, expiring in `expiry`
        seconds."""
        digest, now = _digest(key), time.time()
        with self._locked():
            index, count = self._find(digest, now, claim=True)
            if count == 0:
                _SLOT.pack_into(self._memory, index * _SLOT.size, digest, now + expiry, amount)
                return amount
            _, expires, _ = _SLOT.unpack_from(self._memory, index * _SLOT.size)
            _SLOT.pack_into(self._memory, index * _SLOT.size, digest, expires, count + amount)
            return count + amount

    def get(self, key: str) -> int:
        with self._locked():
            return self._find(_digest(key), time.time(), claim=False)[1]

    def expiry(self, key: str) -> float:
        """When the key's count expires (epoch seconds); now, for a key without a count."""
        digest, now = _digest(key), time.time()
        with self._locked():
            index, count = self._find(digest, now, claim=False)
            return _SLOT.unpack_from(self._memory, index * _SLOT.size)[1] if count else now

    def clear(self, key: str) -> None:
        digest = _digest(key)
        with self._locked():
            index, count = self._find(digest, time.time(), claim=False)
            if count:
                _SLOT.pack_into(self._memory, index * _SLOT.size, bytes(16), 0.0, 0)

    def reset(self) -> int:
        with self._locked():
            self._memory[:] = bytes(SIZE)
        return SLOTS

    def _find(self, digest: bytes, now: float, claim: bool) -> tuple[int, int]:
        """The slot of `digest`'s live counter and its count; without one, (a slot to claim for it, 0).

        Every probe is read: a slot freed by expiry in the middle of a key's probes does not hide it."""
        first = int.from_bytes(digest[:4], "little") % SLOTS
        free = soonest = first
        soonest_expiry = float("inf")
        found_free = False
        for step in range(PROBES):
            index = (first + step) % SLOTS
            held, expires, count = _SLOT.unpack_from(self._memory, index * _SLOT.size)
            if expires <= now or count == 0:
                if not found_free:
                    free, found_free = index, True
                continue
            if held == digest:
                return index, count
            if expires < soonest_expiry:
                soonest, soonest_expiry = index, expires
        return (free if found_free or not claim else soonest), 0

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._thread_lock:
            if self._file is None:
                yield
                return
            fcntl.lockf(self._file, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.lockf(self._file, fcntl.LOCK_UN)


def _digest(key: str) -> bytes:
    return hashlib.blake2b(key.encode(), digest_size=16).digest()


@functools.cache
def table() -> CounterTable:
    """This process's view of the server's counters: the file `OSMOSIS_SHARED_COUNTERS` names, if any."""
    path = os.environ.get(ENVIRONMENT)
    return CounterTable(Path(path) if path else None)


class SharedCounters(Storage):
    """The `limits` storage `osmosis-shared://`: the counter table every worker of this server shares."""

    STORAGE_SCHEME = [SCHEME]  # noqa: RUF012 -- the limits package reads it from the class

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: Any) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self._table = table()

    @property
    def base_exceptions(self) -> type[Exception]:
        return OSError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        return self._table.incr(key, expiry, amount)

    def get(self, key: str) -> int:
        return self._table.get(key)

    def get_expiry(self, key: str) -> float:
        return self._table.expiry(key)

    def check(self) -> bool:
        return True

    def reset(self) -> int:
        return self._table.reset()

    def clear(self, key: str) -> None:
        self._table.clear(key)
