"""Solver time under attack: another client's hint while one client keeps hints in flight, and /healthz while
uploads that claim a costly winnable deal arrive. Prints figures, asserts nothing.

Run: .venv/bin/python bench/solver_time.py [--flood 40] [--samples 5] [--uploaders 8] [--workers 4]
Uses DATABASE_URL if set, else the embedded PostgreSQL (in var/bench). Starts gunicorn with
deploy/gunicorn.conf.py (the default rate limit, behind one proxy so that clients name themselves in
X-Forwarded-For, as nginx names clients on other machines).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
import run_data  # noqa: E402, F401 -- first: this run's own OSMOSIS_DATA_DIR, and the guard of var/

from bench.load import free_port, prepare_database  # noqa: E402
from server.config import DEFAULT_RATE_LIMIT  # noqa: E402
from server.log.events import chain, events_for, game_created, seeds_revealed  # noqa: E402
from server.log.replay import export, verify  # noqa: E402
from server.rules import Resign, Rules, apply, commitment  # noqa: E402
from server.solver import SOLVER_VERSION  # noqa: E402
from server.solver.winnable import WINNABLE_BUDGET, candidate_opening  # noqa: E402
from server.store import embedded  # noqa: E402

ATTACKER, VICTIM = "10.0.0.1", "10.0.0.2"


def call(
    method: str,
    url: str,
    body: object = None,
    token: str | None = None,
    timeout: float = 30,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict, dict]:
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


def costly_export() -> dict:
    """2 kB made up by anyone with seeds of their own: a deal of hard rules claimed winnable at candidate 99,
    which a verifier with no budget checks by solving every candidate up to it."""
    rules, server_seed = Rules(waste_access="group", max_passes=2, start_rule="rank_above"), bytes(range(32))
    deal = {"kind": "random", "winnable": {"candidate": 99, "solver": SOLVER_VERSION, "budget": WINNABLE_BUDGET}}
    start, game_id, commit = candidate_opening(rules, server_seed, "", 99), uuid.uuid4(), commitment(server_seed)
    resigned = apply(start, Resign())
    events = chain(
        commit,
        1,
        [
            game_created(game_id, rules, deal, commit, start),
            *events_for(start, Resign(), resigned),
            seeds_revealed(server_seed, ""),
        ],
    )
    return export(
        {
            "id": str(game_id),
            "variant": None,
            "rules": rules.to_dict(),
            "commitment": commit,
            "deal": {**deal, "server_seed": server_seed.hex(), "client_seed": ""},
            "status": "resigned",
            "head_hash": events[-1].hash,
        },
        events,
    )


def start_server(database_url: str, port: int, workers: int) -> subprocess.Popen[bytes]:
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
            "LOG_LEVEL": "error",
            "RATE_LIMIT": DEFAULT_RATE_LIMIT,
            "PROXY_COUNT": "1",
            "WEB_CONCURRENCY": str(workers),
            "PYTHONPATH": str(PROJECT),
        },
        cwd=PROJECT,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if call("GET", f"http://127.0.0.1:{port}/readyz", timeout=2)[0] == 200:
                return process
        except OSError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit("gunicorn did not start")


def as_client(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


def hint_seconds(base: str, address: str) -> float:
    _, game, _ = call(
        "POST", f"{base}/games", {"variant": "osmosis-ablage", "deal_number": 3}, headers=as_client(address)
    )
    started = time.monotonic()
    status, body, _ = call(
        "POST", f"{base}/games/{game['id']}/hint", token=game["player_token"], timeout=300, headers=as_client(address)
    )
    if status != 200:
        raise SystemExit(f"the victim's hint got {status}: {body}")
    return time.monotonic() - started


def flood(base: str, size: int, stopped: threading.Event, statuses: list[int]) -> list[threading.Thread]:
    """`size` hint requests of one client kept in flight (a refusal retried after 0.2 s), each game moved between two
    hints (a draw, then its undo): a position is hinted once, asked again it is answered without a search."""
    games = [
        call("POST", f"{base}/games", {"variant": "osmosis-ablage", "deal_number": n}, headers=as_client(ATTACKER))[1]
        for n in range(size)
    ]

    def keep_asking(game: dict) -> None:
        moves = itertools.cycle((("draw", None), ("actions", {"action": {"kind": "undo"}})))
        while not stopped.is_set():
            status, _, _ = call(
                "POST",
                f"{base}/games/{game['id']}/hint",
                token=game["player_token"],
                timeout=300,
                headers=as_client(ATTACKER),
            )
            statuses.append(status)
            if status != 200:
                time.sleep(0.2)
                continue
            path, body = next(moves)
            call(
                "POST",
                f"{base}/games/{game['id']}/{path}",
                body,
                token=game["player_token"],
                headers=as_client(ATTACKER),
            )

    threads = [threading.Thread(target=keep_asking, args=(game,), daemon=True) for game in games]
    for thread in threads:
        thread.start()
    return threads


def healthz_during_uploads(base: str, uploaders: int) -> tuple[list[float], list[float], list[int]]:
    costly = costly_export()
    answered: list[float] = []
    statuses: list[int] = []

    def upload(index: int) -> None:
        for _ in range(3):
            started = time.monotonic()
            statuses.append(
                call("POST", f"{base}/replays/verification", costly, timeout=300, headers=as_client(f"10.0.1.{index}"))[
                    0
                ]
            )
            answered.append(time.monotonic() - started)

    threads = [threading.Thread(target=upload, args=(index,)) for index in range(uploaders)]
    for thread in threads:
        thread.start()
    delays = []
    while any(thread.is_alive() for thread in threads):
        started = time.monotonic()
        call("GET", f"{base}/healthz")
        delays.append(time.monotonic() - started)
        time.sleep(0.02)
    return delays, answered, statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=40, help="hints one client keeps in flight")
    parser.add_argument("--samples", type=int, default=5, help="victim hints timed, idle and under the flood")
    parser.add_argument("--uploaders", type=int, default=8, help="clients uploading the costly export")
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()

    data_dir = PROJECT / "var" / "bench"
    server_url = os.environ.get("DATABASE_URL") or embedded.start(data_dir)
    port = free_port()
    server = start_server(prepare_database(server_url), port, args.workers)
    base = f"http://127.0.0.1:{port}"
    try:
        idle = [hint_seconds(base, VICTIM) for _ in range(args.samples)]
        stopped, statuses = threading.Event(), []
        threads = flood(base, args.flood, stopped, statuses)
        time.sleep(3)
        attacked = [hint_seconds(base, VICTIM) for _ in range(args.samples)]
        stopped.set()
        for thread in threads:
            thread.join(timeout=300)
        delays, answered, upload_statuses = healthz_during_uploads(base, args.uploaders)
    finally:
        server.terminate()
        server.wait(timeout=30)
        if not os.environ.get("DATABASE_URL"):
            embedded.stop(data_dir)

    print(f"gunicorn {args.workers} gevent workers, rate limit {DEFAULT_RATE_LIMIT!r}, clients by X-Forwarded-For")
    print(f"victim's hint, idle              median {statistics.median(idle):6.2f} s   max {max(idle):6.2f} s")
    print(
        f"victim's hint, {args.flood} in flight by one  median {statistics.median(attacked):6.2f} s   "
        f"max {max(attacked):6.2f} s   ratio {statistics.median(attacked) / statistics.median(idle):.2f}"
    )
    print(f"attacker's answers               {statuses.count(200)} hints, {statuses.count(429)} refused (429)")
    delays.sort()
    print(
        f"/healthz during {args.uploaders * 3} uploads    p50 {statistics.median(delays) * 1000:6.1f} ms   "
        f"p99 {delays[int(len(delays) * 0.99)] * 1000:6.1f} ms   max {delays[-1] * 1000:6.1f} ms   n={len(delays)}"
    )
    print(
        f"costly upload answered in        median {statistics.median(answered) * 1000:6.1f} ms   "
        f"max {max(answered) * 1000:6.1f} ms   statuses {sorted(set(upload_statuses))}"
    )
    started = time.monotonic()
    verdict = verify(costly_export())
    print(
        f"the same upload checked offline  {time.monotonic() - started:6.2f} s of one core (osmosis verify: "
        f"{verdict.summary[:60]}...)"
    )


if __name__ == "__main__":
    main()
