"""What a witness remembers, in one JSON file: for each log it follows, the latest checkpoint it cosigned.

A check and its update happen under an exclusive lock on a companion file (flock), so witnesses in several
processes may share the file; the new state is written beside it, flushed to disk and renamed over it before the
witness answers, so a crash leaves the old record or the new one, never a torn one, and never a cosignature the
witness has forgotten giving.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .protocol import Cosigned

FORMAT = "osmosis-witness-state/1"


class LedgerError(RuntimeError):
    """The state file exists but is not a witness's state: the witness does not start over it."""


class _Entry:
    def __init__(self, current: Cosigned | None) -> None:
        self.current = current
        self.replaced: Cosigned | None = None

    def replace(self, cosigned: Cosigned) -> None:
        self.replaced = cosigned


class FileLedger:
    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock_path = path.with_name(path.name + ".lock")
        self._threads = threading.Lock()
        self._read()  # a state file that is not one is found at start, not at the first request

    def latest(self, origin: str) -> Cosigned | None:
        return self._read().get(origin)

    @contextmanager
    def holding(self, origin: str) -> Iterator[_Entry]:
        with self._threads, open(self._lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            logs = self._read()
            entry = _Entry(logs.get(origin))
            yield entry
            if entry.replaced is not None:
                logs[origin] = entry.replaced
                self._write(logs)

    def _read(self) -> dict[str, Cosigned]:
        try:
            document = json.loads(self._path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            raise LedgerError(f"{self._path} is not a witness's state: {error}") from None
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise LedgerError(f"{self._path} is not a witness's state (its format is not {FORMAT})")
        try:
            return {
                origin: Cosigned(int(record["size"]), base64.b64decode(record["root"]), str(record["checkpoint"]))
                for origin, record in document["logs"].items()
            }
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise LedgerError(f"{self._path} holds a malformed record: {error!r}") from None

    def _write(self, logs: dict[str, Cosigned]) -> None:
        document: dict[str, Any] = {
            "format": FORMAT,
            "logs": {
                origin: {"size": c.size, "root": base64.b64encode(c.root).decode(), "checkpoint": c.note}
                for origin, c in sorted(logs.items())
            },
        }
        draft = self._path.with_name(self._path.name + ".new")
        with open(draft, "w") as file:
            file.write(json.dumps(document, indent=2) + "\n")
            file.flush()
            os.fsync(file.fileno())
        os.replace(draft, self._path)
        directory = os.open(self._path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
