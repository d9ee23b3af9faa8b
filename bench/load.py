"""Load benchmark: the game server against the stack's own ceilings, side by side in one run.

Run: .venv/bin/python bench/load.py [--clients 16] [--seconds 4] [--rounds 3]
Uses DATABASE_URL if set, else the embedded PostgreSQL (in var/bench). Starts two gunicorns with
deploy/gunicorn.conf.py on loopback ports: the game server and bench/ceiling_app.py (one INSERT + COMMIT,
one SELECT by key, through the same pool). Each measurement and the ceiling it is compared with run in
alternating rounds, so that a shared machine's drift falls on both alike. Every phase is bounded in time
and count and stops by itself. Prints throughput, p50 and p99, the CPU time each party spent per request
(the two gunicorns, PostgreSQL, this load generator: on a machine the load saturates, their sum is what
sets the throughput), and the ratios that docs/performance.md states goals for.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
import run_data  # noqa: E402, F401 -- first: this run's own OSMOSIS_DATA_DIR, and the guard of var/

from server.store import embedded, migrate  # noqa: E402

MAX_REQUESTS_PER_PHASE = 200_000


class Http:
    """One keep-alive connection per client thread."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body: object = None, token: str | None = None) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else {}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_osmosis(folder: Path, port: int, **env: str) -> subprocess.Popen[bytes]:
    """`osmosis serve` with 2 workers on its own embedded PostgreSQL (in `folder`/data), rate limits off, once it
    answers /readyz; its log in `folder`/serve.log."""
    environment = {
        **{key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "OSMOSIS_WAL_ARCHIVE")},
        "OSMOSIS_DATA_DIR": str(folder / "data"),
        "RATE_LIMIT": "",
        "LOG_LEVEL": "warning",
        **env,
    }
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("osmosis")), "serve", "--port", str(port), "--workers", "2"],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=open(folder / "serve.log", "w"),  # noqa: SIM115 -- as long as the process
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as answer:
                if answer.status == 200:
                    return process
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise SystemExit(f"osmosis serve did not become ready: see {folder / 'serve.log'}")


def start_gunicorn(
    app: str, database_url: str, port: int, worker_class: str | None, root: Path = PROJECT, **env: str
) -> subprocess.Popen[bytes]:
    """gunicorn with `root`'s deploy/gunicorn.conf.py, running `root`'s code (another checkout's, to compare)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--config",
            str(root / "deploy" / "gunicorn.conf.py"),
            "--bind",
            f"127.0.0.1:{port}",
            *(["--worker-class", worker_class] if worker_class else []),
            app,
        ],
        env={
            **os.environ,
            "DATABASE_URL": database_url,
            "LOG_LEVEL": "warning",
            "RATE_LIMIT": "",
            "PYTHONPATH": str(root),
            **env,
        },
        cwd=root,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit(f"gunicorn for {app} did not start")


def stop_servers(servers: dict[str, subprocess.Popen[bytes]]) -> None:
    for server in servers.values():
        server.send_signal(signal.SIGTERM)
    for server in servers.values():
        server.wait(timeout=30)


def run_phase(clients: int, seconds: float, make_work: Callable[[int], Callable[[], float | None]]) -> list[float]:
    """Run `clients` threads for `seconds`; each work call returns the latency to record, or None."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    stop = time.monotonic() + seconds
    barrier = threading.Barrier(clients)

    def client(index: int) -> None:
        work = make_work(index)
        barrier.wait()
        while time.monotonic() < stop and len(latencies[index]) < MAX_REQUESTS_PER_PHASE // clients:
            latency = work()
            if latency is not None:
                latencies[index].append(latency)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [latency for per_client in latencies for latency in per_client]


def timed(call: Callable[[], tuple[int, dict]], expected: int = 200) -> tuple[float, dict]:
    started = time.perf_counter()
    status, body = call()
    elapsed = time.perf_counter() - started
    if status != expected:
        raise RuntimeError(f"unexpected {status}: {body}")
    return elapsed, body


_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, or 0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _processes() -> list[tuple[int, int, str]]:
    """(pid, parent pid, command name) of every process on the machine."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                name, rest = (entry / "stat").read_text().split(" (", 1)[1].rsplit(")", 1)
            except OSError:
                continue
            found.append((int(entry.name), int(rest.split()[1]), name))
    return found


class CpuMeter:
    """CPU seconds spent by each party: each gunicorn with its workers, PostgreSQL, this process."""

    def __init__(self, servers: dict[str, subprocess.Popen[bytes]]) -> None:
        self._servers = {name: server.pid for name, server in servers.items()}
        self.extra: list[int] = []
        """Other processes of the load generator's (counted as its own)."""

    def read(self) -> dict[str, float]:
        processes = _processes()
        usage = {
            name: _cpu_seconds(pid) + sum(_cpu_seconds(child) for child, parent, _ in processes if parent == pid)
            for name, pid in self._servers.items()
        }
        usage["postgres"] = sum(_cpu_seconds(pid) for pid, _, name in processes if name == "postgres")
        own = os.times()
        usage["load generator"] = own.user + own.system + sum(_cpu_seconds(pid) for pid in self.extra)
        return usage


class Measurement:
    """Latencies and CPU time of one kind of request, summed over rounds."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.latencies: list[float] = []
        self.seconds = 0.0
        self.cpu: dict[str, float] = {}

    def add(self, latencies: list[float], seconds: float, cpu: dict[str, float]) -> None:
        self.latencies += latencies
        self.seconds += seconds
        for party, used in cpu.items():
            self.cpu[party] = self.cpu.get(party, 0.0) + used

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies) if self.latencies else float("nan")

    @property
    def p99(self) -> float:
        if len(self.latencies) >= 100:
            return statistics.quantiles(self.latencies, n=100)[98]
        return max(self.latencies, default=float("nan"))

    def report(self) -> None:
        count = len(self.latencies)
        print(
            f"{self.name:<28} {self.rate:>9,.0f}/s   p50 {self.p50 * 1000:7.2f} ms   "
            f"p99 {self.p99 * 1000:7.2f} ms   n={count}"
        )
        # A phase that finished no request (too short a run on a busy machine) has no cost a request to give.
        per_request = {party: used / count * 1000 for party, used in self.cpu.items()} if count else {}
        spent = "  ".join(f"{party} {ms:.2f}" for party, ms in per_request.items() if ms >= 0.005)
        print(f"{'':<28} CPU ms a request: {spent}")


def settle(meter: CpuMeter, server: str, idle_cpu: float = 0.02, step: float = 0.5, longest: float = 20.0) -> None:
    """Wait until `server` is idle (under `idle_cpu` CPU seconds in `step`): the work the phases before left it (the
    public log sequencing the games they made and ended, the upkeep verifying their results) is not charged to the
    phases after."""
    deadline = time.monotonic() + longest
    before = meter.read()[server]
    while time.monotonic() < deadline:
        time.sleep(step)
        now = meter.read()[server]
        if now - before < idle_cpu:
            return
        before = now


def alternate(
    meter: CpuMeter,
    clients: int,
    seconds: float,
    rounds: int,
    phases: list[tuple[Measurement, Callable[[int], Callable[[], float | None]]]],
) -> None:
    """Run the phases one after another, `rounds` times over."""
    for _ in range(rounds):
        for measurement, make_work in phases:
            before = meter.read()
            latencies = run_phase(clients, seconds, make_work)
            after = meter.read()
            measurement.add(latencies, seconds, {party: after[party] - before[party] for party in after})


def random_action(client: Http, rng: random.Random, game: dict, token: str) -> tuple[float, dict]:
    """One of the game's legal actions, chosen by `rng`: (its latency, the answer)."""
    action = rng.choice(game["legal_actions"])
    if action["kind"] == "move":
        path, body = f"/games/{game['id']}/moves", {"card": action["card"], "to": action["to"]}
    else:
        path, body = f"/games/{game['id']}/draw", {}
    return timed(lambda: client.call("POST", path, body, token))


def actions_work(port: int) -> Callable[[int], Callable[[], float | None]]:
    def make(index: int) -> Callable[[], float | None]:
        client, rng = Http(port), random.Random(index)
        game: dict = {"status": "over"}
        token = ""

        def work() -> float | None:
            nonlocal game, token
            if game["status"] != "playing":
                _, game = timed(lambda: client.call("POST", "/games", {"variant": "osmosis-draw-one"}), 201)
                token = game["player_token"]
                return None
            latency, result = random_action(client, rng, game, token)
            game = result["game"]
            return latency

        return work

    return make


def long_game(port: int, events: int) -> str:
    """A game with at least `events` events: one card played per pass, draws otherwise."""
    client = Http(port)
    _, game = timed(lambda: client.call("POST", "/games", {"variant": "osmosis-draw-one", "deal_number": 0}), 201)
    token, played = game["player_token"], False
    while game["version"] < events:
        moves = [a for a in game["legal_actions"] if a["kind"] == "move"]
        if moves and not played:
            path, body = f"/games/{game['id']}/moves", {"card": moves[0]["card"]}
        else:
            path, body = f"/games/{game['id']}/draw", {}
        _, result = timed(lambda path=path, body=body: client.call("POST", path, body, token))
        kind = result["events"][0]["kind"]
        played = kind == "card_played" or (played and kind != "waste_redealt")
        game = result["game"]
        if game["status"] != "playing":
            raise SystemExit(f"the long game ended at {game['version']} events; pick another deal")
    return str(game["id"])


def ceiling_work(port: int, method: str, path: str, status: int) -> Callable[[int], Callable[[], float | None]]:
    def make(index: int) -> Callable[[], float | None]:
        client = Http(port)
        suffix = (lambda: str(random.randrange(1000))) if path.endswith("/") else (lambda: "")
        return lambda: timed(lambda: client.call(method, path + suffix()), status)[0]

    return make


def reads_work(port: int, paths: list[str]) -> Callable[[int], Callable[[], float | None]]:
    def make(index: int) -> Callable[[], float | None]:
        client = Http(port)
        return lambda: timed(lambda: client.call("GET", random.choice(paths)))[0]

    return make


@contextmanager
def postgres_server() -> Iterator[str]:
    """DATABASE_URL's server if set, else the embedded one in var/bench, started for the block and stopped after."""
    given_url = os.environ.get("DATABASE_URL")
    data_dir = PROJECT / "var" / "bench"
    try:
        yield given_url or embedded.start(data_dir)
    finally:
        if not given_url:
            embedded.stop(data_dir)


def prepare_database(server_url: str) -> str:
    parts = urlsplit(server_url)
    name = "osmosis_bench"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    url = urlunsplit(parts._replace(path=f"/{name}"))
    migrate.upgrade(url)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE ceiling_rows (id bigserial PRIMARY KEY, body text NOT NULL)")
        conn.execute("INSERT INTO ceiling_rows (body) SELECT repeat('x', 200) FROM generate_series(1, 1000)")
    return url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=4, help="length of one phase of one round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker-class", help="gunicorn's worker class for both servers (default: the config's)")
    args = parser.parse_args()

    data_dir = PROJECT / "var" / "bench"
    server_url = os.environ.get("DATABASE_URL") or embedded.start(data_dir)
    url = prepare_database(server_url)
    game_port, ceiling_port = free_port(), free_port()
    servers = {
        "game server": start_gunicorn("server.runtime.app:create_app()", url, game_port, args.worker_class),
        "ceiling app": start_gunicorn("bench.ceiling_app:app", url, ceiling_port, args.worker_class),
    }
    meter = CpuMeter(servers)
    try:
        c, t, r = args.clients, args.seconds, args.rounds
        # Every worker opens its pool and loads its code with its first requests: not part of any figure.
        run_phase(c, 1.0, ceiling_work(ceiling_port, "POST", "/insert", 201))
        run_phase(c, 1.0, actions_work(game_port))
        print(
            f"{c} clients, {r} rounds of {t:g} s a phase, gunicorn {os.environ.get('WEB_CONCURRENCY', '4')} "
            f"{args.worker_class or 'gevent'} workers, "
            f"pool max {os.environ.get('POOL_MAX_SIZE', '10')}"
        )
        insert, actions = Measurement("ceiling: INSERT + COMMIT"), Measurement("game: random actions")
        alternate(
            meter,
            c,
            t,
            r,
            [(insert, ceiling_work(ceiling_port, "POST", "/insert", 201)), (actions, actions_work(game_port))],
        )
        fresh = [f"/games/{long_game(game_port, 1)}" for _ in range(8)]
        long_id = long_game(game_port, 300)
        settle(meter, "game server")
        select, new_reads = Measurement("ceiling: SELECT by key"), Measurement("game: read a new game")
        long_reads, travel = Measurement("game: read a 300-event game"), Measurement("game: state at seq 300")
        alternate(
            meter,
            c,
            t,
            r,
            [
                (select, ceiling_work(ceiling_port, "GET", "/select/", 200)),
                (new_reads, reads_work(game_port, fresh)),
                (long_reads, reads_work(game_port, [f"/games/{long_id}"])),
                (travel, reads_work(game_port, [f"/games/{long_id}/states/300"])),
            ],
        )
        for measurement in (insert, actions, select, new_reads, long_reads, travel):
            measurement.report()
        print()
        print(f"actions / INSERT ceiling          {actions.rate / insert.rate:.2f}   (goal >= 0.70)")
        print(f"state reads / SELECT ceiling      {new_reads.rate / select.rate:.2f}   (goal >= 0.80)")
        print(f"300-event read / new read (p50)   {long_reads.p50 / new_reads.p50:.2f}   (goal <= 1.15)")
        print(f"state at 300 / current read (p50) {travel.p50 / long_reads.p50:.2f}   (goal <= 3)")
        print(f"action p99 / p50 ({c} clients)     {actions.p99 / actions.p50:.2f}   (goal <= 5)")
    finally:
        stop_servers(servers)
        if not os.environ.get("DATABASE_URL"):
            embedded.stop(data_dir)


if __name__ == "__main__":
    main()
