"""Real processes for the tests: gunicorn as deployed, nginx, and plain HTTP calls to them."""

import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pytest

PROJECT = Path(__file__).resolve().parents[1]


class ClientThreads:
    """Client threads for as long as a `with` block lasts: each runs `_client(index)` until `stop` is set."""

    def __init__(self, count: int) -> None:
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._client, args=(i,)) for i in range(count)]

    def _client(self, index: int) -> None:
        raise NotImplementedError

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=120)


_DATA_DIRS: dict[str, str] = {}


def data_dir_of(database_url: str) -> str:
    """The data directory of the servers of one database (their log's key and its record of checkpoints), as the
    instances of one deployment share theirs: another database's is another log's."""
    return _DATA_DIRS.setdefault(database_url, tempfile.mkdtemp(prefix="osmosis-data-"))


def start_gunicorn(database_url: str, port: int, **env: str) -> subprocess.Popen:
    """gunicorn with deploy/gunicorn.conf.py on a loopback port; returns once /readyz answers 200.

    Its log goes to a file: a pipe nobody reads fills up and then blocks the server's logging.
    """
    log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 -- it lives as long as the process
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--config",
            str(PROJECT / "deploy" / "gunicorn.conf.py"),
            "--bind",
            f"127.0.0.1:{port}",
        ],
        env={
            **os.environ,
            "DATABASE_URL": database_url,
            "OSMOSIS_DATA_DIR": data_dir_of(database_url),
            "RATE_LIMIT": "",
            "WEB_CONCURRENCY": "2",
            "LOG_LEVEL": "warning",
            **env,
        },
        stdout=subprocess.DEVNULL,
        stderr=log,
        text=True,
        cwd=PROJECT,
    )
    process.log = log  # type: ignore[attr-defined]
    wait_until_ready(f"http://127.0.0.1:{port}", process)
    return process


def wait_until_ready(base: str, process: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if call("GET", f"{base}/readyz")[0] == 200:
                return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.log.seek(0)  # type: ignore[attr-defined]
            pytest.fail(f"{process.args[0]} did not become ready: {process.log.read()[-3000:]}")  # type: ignore[attr-defined]
        time.sleep(0.2)


def wait_for_workers(base: str, count: int, seconds: float = 60) -> None:
    """Until `count` workers have each answered /healthz: /readyz answers as soon as the first worker has
    loaded the app, and a burst sent then all lands on that one."""
    answered: set[str] = set()
    deadline = time.monotonic() + seconds
    with concurrent.futures.ThreadPoolExecutor(max_workers=2 * count) as pool:
        while len(answered) < count:
            if time.monotonic() > deadline:
                pytest.fail(f"only {len(answered)} of {count} workers answered within {seconds} s")
            heads = pool.map(lambda _: call("GET", f"{base}/healthz")[2], range(4 * count))
            answered |= {head["X-Request-ID"][:16] for head in heads}  # its random half names the process
            time.sleep(0.1)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


def call(
    method: str,
    url: str,
    body: object = None,
    token: str | None = None,
    timeout: float = 10,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict, dict]:
    """(status, JSON body, headers); HTTP errors are answers too, not exceptions."""
    headers = {"Content-Type": "application/json", **(headers or {})}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"{}"), dict(response.headers)
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, json.loads(text) if text else {}, dict(error.headers)


def healthz_delays_while(base: str, threads: list) -> list[float]:
    """The time /healthz takes, asked again and again (20 ms apart) for as long as any of `threads` runs."""
    delays = []
    while any(thread.is_alive() for thread in threads):
        asked = time.monotonic()
        assert call("GET", f"{base}/healthz")[0] == 200
        delays.append(time.monotonic() - asked)
        time.sleep(0.02)
    return delays


def wait_until_sequenced(url: str, seconds: float = 60) -> None:
    """Until the public log has integrated every pending entry and signed a checkpoint of them all."""
    deadline = time.monotonic() + seconds
    with psycopg.connect(url, autocommit=True) as conn:
        while True:
            pending, leaves, size = conn.execute("""
                SELECT (SELECT count(*) FROM log_pending), (SELECT count(*) FROM log_leaves),
                       (SELECT coalesce(max(size), 0) FROM log_checkpoints)""").fetchone()
            if pending == 0 and leaves == size:
                return
            assert time.monotonic() < deadline, f"{pending} entries still pending, {leaves} leaves, checkpoint {size}"
            time.sleep(0.2)
