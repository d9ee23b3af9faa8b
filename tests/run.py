"""The test run as a whole: what the process that runs the session (pytest itself, or xdist's controller) shares
with xdist's workers. It makes a folder of the run's own in /tmp, whose path its workers inherit through the
environment; it removes the folder at the end, after every worker has stopped."""

import os
import shutil
import socket
import tempfile

import pytest

RUN_DIRECTORY = "OSMOSIS_TEST_RUN"


def is_worker() -> bool:
    return "PYTEST_XDIST_WORKER" in os.environ


def worker_id() -> str:
    """xdist's name of this worker (gw0, gw1, ...), or "main" in a run without workers."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def is_controller(config: pytest.Config) -> bool:
    """Whether this process hands the tests out to xdist's workers and runs none itself."""
    return not is_worker() and config.getoption("dist", "no") != "no" and bool(config.getoption("tx", None))


def directory() -> str:
    if RUN_DIRECTORY not in os.environ:
        assert not is_worker(), "a worker's run folder is its controller's"
        os.environ[RUN_DIRECTORY] = tempfile.mkdtemp(prefix="osmosis-test-run-")
    return os.environ[RUN_DIRECTORY]


def identity() -> str:
    """A name of this run's alone, fit for a database's name: mkdtemp's random letters."""
    return os.path.basename(directory()).rsplit("-", 1)[-1].lower()


def remove() -> None:
    if not is_worker():
        shutil.rmtree(directory(), ignore_errors=True)


PORTS_PER_WORKER = 1000
FIRST_PORT = 20000
"""Below Linux's ephemeral ports (32768 and up), which the kernel hands out for port 0 and outgoing connections."""
_ports_given = 0


def free_port() -> int:
    """A loopback port free now, from this worker's own range: two workers never find the same port free before
    one of them binds it, nor does the kernel give it to another process's connection meanwhile."""
    global _ports_given
    worker = int(worker_id().removeprefix("gw")) if is_worker() else 0
    for _ in range(PORTS_PER_WORKER):
        port = FIRST_PORT + worker * PORTS_PER_WORKER + _ports_given % PORTS_PER_WORKER
        _ports_given += 1
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free port among this worker's {PORTS_PER_WORKER}")
