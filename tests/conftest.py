"""What every test run shares, and nothing heavier. PostgreSQL's fixtures are in tests/databases.py, the app's and
the live servers' in tests/apps.py: loaded as plugins by every run but `make check`'s.

`make check` (OSMOSIS_FAST_TIER set) runs the tests that need neither PostgreSQL nor Flask nor a browser: without
those plugins, and failing if any of its tests imported Flask, psycopg or Playwright all the same. A test there
that asks for a database or an app finds no such fixture: it belongs in a folder `make check` does not run.

The run's own checks (no log written into the project's var/, every answer held to the OpenAPI document, the fast
tier's imports) are made by the process that runs the session: each of xdist's workers hands what it saw to its
controller when it stops (tests/lanes.py hands out the tests)."""

import os
import sys
from pathlib import Path

import pytest

from tests import run

HEAVY = ("flask", "psycopg", "playwright")
FAST_TIER = bool(os.environ.get("OSMOSIS_FAST_TIER"))

# The apps a test builds keep their log's key and its record of checkpoints in the data directory: the run's own,
# never the project's var/, where `make serve` would find a log of a test's beside a database of its own.
RUN_DATA_DIR = os.environ["OSMOSIS_DATA_DIR"] = os.path.join(run.directory(), f"data-{run.worker_id()}")
os.makedirs(RUN_DATA_DIR, exist_ok=True)
PROJECT_DATA = Path(__file__).resolve().parents[1] / "var"
LOG_FILES = ("log-signing-key", "log-checkpoints-*.json", "log-record-place")


def _log_files_in_the_project() -> set[Path]:
    return {path for pattern in LOG_FILES for path in PROJECT_DATA.glob(pattern)}


LOG_FILES_BEFORE = _log_files_in_the_project()
HEARD_FROM_WORKERS: dict[str, list] = {"heavy": []}
"""What xdist's workers saw of the run's checks, gathered by the controller."""

pytest_plugins = ["tests.lanes"] if FAST_TIER else ["tests.lanes", "tests.databases", "tests.apps"]


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    run.remove()


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workeroutput"):  # a worker: its controller checks what it saw
        answers = _answered()
        session.config.workeroutput["statuses"] = [] if answers is None else [list(s) for s in answers.statuses]
        session.config.workeroutput["breaches"] = [] if answers is None else answers.breaches
        session.config.workeroutput["heavy"] = _heavy_imports() if FAST_TIER else []
        return
    if _log_files_in_the_project() - LOG_FILES_BEFORE and session.exitstatus == 0:
        session.exitstatus = 1  # a test wrote a log's files where `make serve` would take them for its own
    answers = _answered()
    if answers is not None and (answers.undeclared_statuses() or answers.breaches) and session.exitstatus == 0:
        session.exitstatus = 1
    if FAST_TIER and _heavy_imports() and session.exitstatus == 0:
        session.exitstatus = 1


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """A worker stopped: what it saw joins the run's checks."""
    output = getattr(node, "workeroutput", {})
    answers = _answered()
    if answers is not None:
        answers.statuses.update(tuple(status) for status in output.get("statuses", []))
        answers.breaches.extend(output.get("breaches", []))
    HEARD_FROM_WORKERS["heavy"].extend(output.get("heavy", []))


def pytest_terminal_summary(terminalreporter):
    if written := _log_files_in_the_project() - LOG_FILES_BEFORE:
        terminalreporter.section("a test wrote a log's key or checkpoints into the project's var/")
        for path in sorted(written):
            terminalreporter.write_line(f"{path}: give it OSMOSIS_DATA_DIR (the run's own: {RUN_DATA_DIR})")
    answers = _answered()
    undeclared = [] if answers is None else answers.undeclared_statuses()
    if undeclared:
        terminalreporter.section("statuses the OpenAPI document does not declare")
        for path, method, status in undeclared:
            terminalreporter.write_line(f"{method.upper()} {path} answered {status}")
    if answers is not None and answers.breaches:
        terminalreporter.section("answers that break the OpenAPI document")
        for breach in answers.breaches:
            terminalreporter.write_line(breach)
    if FAST_TIER and (heavy := _heavy_imports()):
        terminalreporter.section("the fast tier imported what it must not")
        terminalreporter.write_line(f"{', '.join(heavy)}: move the test that needs it out of `make check`'s folders")


def _answered():
    """Every response an app answered in this run (tests/apps.py), if any app was built."""
    apps = sys.modules.get("tests.apps")
    return None if apps is None else apps.ANSWERED


def _heavy_imports() -> list[str]:
    """What the fast tier imported that it must not, here or in any worker."""
    here = [name for name in HEAVY if name in sys.modules]
    return sorted(set(here + HEARD_FROM_WORKERS["heavy"]))
