"""A benchmark's data directory of its own, and the guard that it left nothing of a log in the project's var/.

Imported first by every benchmark that starts the server or builds its app: OSMOSIS_DATA_DIR is set to a directory
of this run (the servers it starts, and the apps it builds, inherit it), removed at the end; and a run that leaves
a log's key or record of checkpoints in var/ (where `make serve` would take them for its own and refuse to sign)
fails, naming the files, as the test suite's run does (tests/conftest.py)."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
PROJECT_DATA = PROJECT / "var"
LOG_FILES = ("log-signing-key", "log-checkpoints-*.json", "log-record-place")


def _log_files() -> set[Path]:
    return {path for pattern in LOG_FILES for path in PROJECT_DATA.glob(pattern)}


RUN_DATA_DIR = os.environ["OSMOSIS_DATA_DIR"] = tempfile.mkdtemp(prefix="osmosis-bench-data-")
_BEFORE = _log_files()


def _finish() -> None:
    shutil.rmtree(RUN_DATA_DIR, ignore_errors=True)
    written = _log_files() - _BEFORE
    if written:
        names = ", ".join(str(path) for path in sorted(written))
        print(f"bench: the run wrote a log's files into the project's var/: {names}", file=sys.stderr, flush=True)
        os._exit(1)


atexit.register(_finish)
