"""How a parallel run hands out its tests (pytest-xdist, `make test`): in lanes, a module at a time, longest first.

- A module's tests stay together on one worker, so that what a module starts once (a cluster, SDK clients, a
  server) starts once in the run.
- The timing-sensitive drills (marked `drill`: a failover, a server's answers timed under load, a stop timed) run
  one after another in the first lane (worker gw0), before anything else there, so that no drill shares the machine
  with another; the other lanes run at a lower CPU priority (`nice`), so that what a drill times is its own work
  and not the rest of the suite's. A drill that times its work against other drills' is not a drill of this
  server.
- Modules are handed out longest first (by tests/durations.json, `--record-durations` to measure it again), so
  that the run ends with short ones on every worker rather than one long module on one.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import defaultdict
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

from tests import run

DRILLS = "drills"
DRILLS_LANE = "gw0"
OTHER_LANES_NICENESS = int(os.environ.get("OSMOSIS_TEST_NICENESS", "10"))
DURATIONS = Path(__file__).parent / "durations.json"
UNMEASURED_TEST_SECONDS = 0.5
"""A test's guess at its time where durations.json does not know its module."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help="write each module's time (and the drills') to tests/durations.json, by which a parallel run hands "
        "out its modules longest first",
    )


def times_its_work() -> bool:
    """Whether this process is the drills' lane of a parallel run: it runs at the first priority, with an embedded
    PostgreSQL of its own, which the other lanes' load does not slow."""
    return run.worker_id() == DRILLS_LANE


def lower_the_priority_of_postgres(pgdata: Path) -> None:
    """The run's shared PostgreSQL at the other lanes' priority: its postmaster and the processes it has forked
    (those it forks later inherit its niceness). The drills have a server of their own."""
    postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
    for pid in [postmaster, *_children_of(postmaster)]:
        with contextlib.suppress(ProcessLookupError):  # a process it forked ended meanwhile
            os.setpriority(os.PRIO_PROCESS, pid, OTHER_LANES_NICENESS)


def _children_of(parent: int) -> list[int]:
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it ended meanwhile
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            children.append(int(entry.name))
    return children


def pytest_configure(config: pytest.Config) -> None:
    if run.is_worker() and not times_its_work():
        # Linux sets a thread's niceness, not its process's: every thread of this worker (xdist runs it in one
        # of its own), and so every thread and process they start.
        for thread in os.listdir("/proc/self/task"):
            os.setpriority(os.PRIO_PROCESS, int(thread), OTHER_LANES_NICENESS)
    if config.getoption("record_durations"):
        config.pluginmanager.register(DurationRecorder(), "osmosis-durations")


@pytest.hookimpl(tryfirst=True)  # before xdist tells the controller that this worker has collected
def pytest_collection_finish(session: pytest.Session) -> None:
    """A worker tells its controller's scheduler which tests are drills: in a file of the run's, since xdist
    passes a worker's tests to its controller as their names alone. Every worker collects the same tests, and
    the scheduler reads the file once they all have."""
    if run.is_worker():
        drills = [item.nodeid for item in session.items if item.get_closest_marker("drill") is not None]
        written = _drills_file().with_suffix(f".{run.worker_id()}")
        written.write_text(json.dumps(drills))
        written.replace(_drills_file())


def _drills_file() -> Path:
    return Path(run.directory()) / "drills.json"


def unit_of(nodeid: str, drills: frozenset[str] = frozenset()) -> str:
    """The work unit a test belongs to: the drills, or else its module."""
    return DRILLS if nodeid in drills else nodeid.split("::", 1)[0]


def measured_durations() -> dict[str, float]:
    try:
        return json.loads(DURATIONS.read_text())
    except FileNotFoundError:
        return {}


class DurationRecorder:
    """Adds up each unit's time (setup, call and teardown of its tests) and writes tests/durations.json."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[DRILLS if "drill" in report.keywords else unit_of(report.nodeid)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if run.is_worker():
            return
        durations = {unit: round(seconds, 1) for unit, seconds in sorted(self.seconds.items())}
        DURATIONS.write_text(json.dumps(durations, indent=1) + "\n")


class Lanes(LoadScopeScheduling):
    """xdist's scheduling by scope (a unit goes whole to one worker), with units as `unit_of` names them, the drills
    kept to their lane, and units handed out longest first."""

    def __init__(self, config, log=None) -> None:
        super().__init__(config, log)
        self.durations = measured_durations()
        self.index: dict[str, int] = {}
        self.drills: frozenset[str] = frozenset()

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid, self.drills)

    def _weight(self, unit: str, tests: dict[str, bool]) -> float:
        return self.durations.get(unit, UNMEASURED_TEST_SECONDS * len(tests))

    def schedule(self) -> None:
        assert self.collection_is_completed
        if self.collection is not None:
            for node in self.nodes:
                self._reschedule(node)
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        self.collection = list(next(iter(self.registered_collections.values())))
        self.index = {nodeid: index for index, nodeid in enumerate(self.collection)}
        self.drills = frozenset(json.loads(_drills_file().read_text()))
        units: dict[str, dict[str, bool]] = {}
        for nodeid in self.collection:
            units.setdefault(self._split_scope(nodeid), {})[nodeid] = False
        for unit in sorted(units, key=lambda unit: -self._weight(unit, units[unit])):
            self.workqueue[unit] = units[unit]
        for node in self.nodes:
            self._reschedule(node)

    def _is_drills_lane(self, node) -> bool:
        """gw0, or any worker once gw0 is gone (it crashed: its drills were put back in the queue)."""
        return node.gateway.id == DRILLS_LANE or all(other.gateway.id != DRILLS_LANE for other in self.nodes)

    def _next_unit(self, node) -> str | None:
        if DRILLS in self.workqueue and self._is_drills_lane(node):
            return DRILLS
        return next((unit for unit in self.workqueue if unit != DRILLS), None)

    def _assign_work_unit(self, node) -> None:
        unit = self._next_unit(node)
        if unit is None:  # only the drills are left, and they are another lane's
            node.shutdown()
            return
        tests = self.workqueue.pop(unit)
        self.assigned_work.setdefault(node, {})[unit] = tests
        node.send_runtest_some([self.index[nodeid] for nodeid, done in tests.items() if not done])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    return Lanes(config, log)
