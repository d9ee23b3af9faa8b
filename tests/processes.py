"""Real processes for the tests: gunicorn as deployed, nginx, and plain HTTP calls to them."""

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]


def start_gunicorn(database_url: str, port: int, **env: str) -> subprocess.Popen:
    """gunicorn with deploy/gunicorn.conf.py on a loopback port; returns once /readyz answers 200.

    Its log goes to a file: a pipe nobody reads fills up and then blocks the server's logging.
    """
    log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 -- it lives as long as the process
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", str(PROJECT / "deploy" / "gunicorn.conf.py"),
         "--bind", f"127.0.0.1:{port}"],
        env={**os.environ, "DATABASE_URL": database_url, "RATE_LIMIT": "", "WEB_CONCURRENCY": "2",
             "LOG_LEVEL": "warning", **env},
        stdout=subprocess.DEVNULL, stderr=log, text=True, cwd=PROJECT,
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


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


def call(method: str, url: str, body: object = None, token: str | None = None,
         timeout: float = 10, headers: dict[str, str] | None = None) -> tuple[int, dict, dict]:
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
