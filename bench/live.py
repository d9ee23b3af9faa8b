"""Live benchmark: thousands of followers and slow clients against the game server, side by side in one run.

Run: .venv/bin/python bench/live.py [--followers 5000] [--games 1000] [--seconds 10] [--rounds 2]
                                    [--slow-clients 1000] [--actors 16]
Uses DATABASE_URL if set, else the embedded PostgreSQL (in var/bench). Starts gunicorn with
deploy/gunicorn.conf.py on a loopback port. The load generator is one asyncio process (raw HTTP/1.1 on
sockets), so that thousands of connections cost it little. For `rounds` rounds it runs the same action
load on the same games three ways: alone, with the followers connected (each game followed by
followers/games event streams), and with the slow clients (each sending its request head one byte a
second, reconnecting when the server cuts it off). It prints the action throughput of each as a ratio of
the load alone, the delivery latency from the acting client's answer to each follower's copy of the
event (p50, p99), the /healthz p99 during each, and the server's memory per follower (its processes' RSS
with the followers connected, less without, over the followers).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from load import free_port, start_gunicorn  # noqa: E402

from bench.load import CpuMeter  # noqa: E402
from server.store import embedded, migrate  # noqa: E402

HOST = "127.0.0.1"


class Connection:
    """One keep-alive HTTP/1.1 connection: requests with JSON bodies, answers with a Content-Length."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        return cls(*await asyncio.open_connection(HOST, port, limit=2**20))

    async def call(self, method: str, path: str, body: object = None, token: str | None = None) -> tuple[int, bytes]:
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", "Host: bench", f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if token:
            head.append(f"Authorization: Bearer {token}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) != b"\r\n":
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


class Games:
    """The games played on, as their players last saw them, and when each event was acknowledged."""

    def __init__(self) -> None:
        self.bodies: dict[str, dict] = {}
        self.tokens: dict[str, str] = {}
        self.acknowledged: dict[tuple[str, int], float] = {}


async def create_games(port: int, count: int, games: Games) -> None:
    async def create(share: range) -> None:
        connection = await Connection.open(port)
        for _ in share:
            status, body = await connection.call("POST", "/games", {"variant": "osmosis-draw-one"})
            assert status == 201, body
            game = json.loads(body)
            games.bodies[game["id"]], games.tokens[game["id"]] = game, game["player_token"]
        connection.close()

    await asyncio.gather(*(create(range(i, count, 16)) for i in range(16)))


async def act(port: int, games: Games, mine: list[str], until: float, seed: int) -> int:
    """Random legal actions on this actor's own games until `until`; how many landed."""
    connection, rng, landed = await Connection.open(port), random.Random(seed), 0
    mine = list(mine)
    while time.monotonic() < until and mine:
        game_id = rng.choice(mine)
        game = games.bodies[game_id]
        if game["status"] != "playing":
            mine.remove(game_id)
            continue
        action = rng.choice(game["legal_actions"])
        path, body = (
            (f"/games/{game_id}/moves", {"card": action["card"], "to": action["to"]})
            if action["kind"] == "move"
            else (f"/games/{game_id}/draw", {})
        )
        status, text = await connection.call("POST", path, body, games.tokens[game_id])
        answered = time.monotonic()
        if status == 200:
            result = json.loads(text)
            games.bodies[game_id] = result["game"]
            for event in result["events"]:
                games.acknowledged[game_id, event["seq"]] = answered
            landed += 1
    connection.close()
    return landed


async def probe(port: int, until: float, latencies: list[float]) -> None:
    connection = await Connection.open(port)
    while time.monotonic() < until:
        started = time.monotonic()
        status, _ = await connection.call("GET", "/healthz")
        latencies.append(time.monotonic() - started)
        assert status == 200
        await asyncio.sleep(0.05)
    connection.close()


async def load(port: int, games: Games, actors: int, seconds: float) -> tuple[float, list[float]]:
    """The action load on `games` for `seconds`: actions a second, and the /healthz latencies meanwhile."""
    ids = list(games.bodies)
    until = time.monotonic() + seconds
    health: list[float] = []
    results = await asyncio.gather(
        probe(port, until, health), *(act(port, games, ids[i::actors], until, seed=i) for i in range(actors))
    )
    return sum(results[1:]) / seconds, health


class Follower:
    """One event stream, recording when each event arrived."""

    def __init__(self, game_id: str, after: int, received: dict[tuple[str, int], list[float]]) -> None:
        self.game_id, self.after, self.received = game_id, after, received
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def run(self, port: int) -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(
            f"GET /games/{self.game_id}/events/stream?after={self.after} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
        )
        try:
            while await reader.readline() != b"\r\n":  # the head; the body comes chunked
                pass
            buffer = b""
            while size := int((await reader.readline()).strip() or b"0", 16):
                buffer += (await reader.readexactly(size + 2))[:-2]
                arrived = time.monotonic()
                while b"\n\n" in buffer:
                    message, buffer = buffer.split(b"\n\n", 1)
                    if message.startswith(b"event: game"):
                        self.ready.set()
                    elif message.startswith(b"id: "):
                        seq = int(message[4 : message.index(b"\n")])
                        self.received[self.game_id, seq].append(arrived)
        finally:
            writer.close()


async def slow_client(port: int, until: float, cut: list[float]) -> None:
    """A request head sent one byte a second, again whenever the server cuts it off."""
    head = b"GET /healthz HTTP/1.1\r\nHost: bench\r\nX-Slow: " + b"x" * 1000
    while time.monotonic() < until:
        reader, writer = await asyncio.open_connection(HOST, port)
        started = time.monotonic()
        try:
            for byte in head:
                writer.write(bytes([byte]))
                await asyncio.sleep(1)
                if time.monotonic() >= until:
                    return
                if reader.at_eof():  # the server closed the connection
                    cut.append(time.monotonic() - started)
                    break
        except (ConnectionError, OSError):
            cut.append(time.monotonic() - started)
        finally:
            writer.close()


def slow_clients(port: int, count: int, seconds: float, results: multiprocessing.Queue[list[float]]) -> None:
    """`count` slow clients for `seconds`, in this process; how long each lasted before it was cut off."""
    cut: list[float] = []
    until = time.monotonic() + seconds

    async def run() -> None:
        await asyncio.gather(*(slow_client(port, until, cut) for _ in range(count)))

    asyncio.run(run())
    results.put(cut)


def server_rss_kb(pid: int) -> int:
    """The resident memory of gunicorn's master and its workers, in kB."""
    pids = [pid] + [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    total = 0
    for one in pids:
        for line in Path(f"/proc/{one}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def prepare_database(server_url: str) -> str:
    parts = urlsplit(server_url)
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS osmosis_live_bench WITH (FORCE)")
        conn.execute("CREATE DATABASE osmosis_live_bench")
    url = urlunsplit(parts._replace(path="/osmosis_live_bench"))
    migrate.upgrade(url)
    return url


class Cores:
    """The cores each party keeps busy during the phases of one kind, on average."""

    def __init__(self, meter: CpuMeter) -> None:
        self.meter = meter
        self.spent: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.seconds: dict[str, float] = defaultdict(float)

    async def measure(self, phase: str, work: Any) -> Any:
        before, started = self.meter.read(), time.monotonic()
        result = await work
        after = self.meter.read()
        self.seconds[phase] += time.monotonic() - started
        for party in after:
            self.spent[phase][party] += after[party] - before[party]
        return result

    def report(self, actions: dict[str, float]) -> None:
        for phase, spent in self.spent.items():
            busy = "  ".join(f"{party} {used / self.seconds[phase]:.2f}" for party, used in spent.items())
            print(f"  cores busy, {phase:<16} {busy}")
        for phase, rate in actions.items():
            per_action = sum(self.spent[phase].values()) / (rate * self.seconds[phase]) * 1000
            print(f"  CPU ms an action, all parties, {phase:<16} {per_action:.2f}")


async def run(args: argparse.Namespace, port: int, server: subprocess.Popen[bytes]) -> None:
    pid = server.pid
    cores = Cores(CpuMeter({"server": server}))

    async def fresh_games() -> Games:
        """Every phase plays on new games, so that none plays on games another left further on."""
        games = Games()
        await create_games(port, args.games, games)
        return games

    alone: list[float] = []
    followed: list[float] = []
    slowed: list[float] = []
    health: dict[str, list[float]] = defaultdict(list)
    latencies: list[float] = []
    memory_per_follower: list[float] = []
    cut: list[float] = []
    for _ in range(args.rounds):
        games = await fresh_games()
        rate, probes = await cores.measure("alone", load(port, games, args.actors, args.seconds))
        alone.append(rate)
        health["alone"] += probes

        games = await fresh_games()
        ids = list(games.bodies)
        received: dict[tuple[str, int], list[float]] = defaultdict(list)
        rss_before = server_rss_kb(pid)
        # Spectators who join now: from each game's current version on, as EventSource resumes.
        followers = [
            Follower(ids[i % len(ids)], games.bodies[ids[i % len(ids)]]["version"], received)
            for i in range(args.followers)
        ]
        for start in range(0, len(followers), args.join_batch):  # spectators join over time, not all at once
            batch = followers[start : start + args.join_batch]
            for follower in batch:
                follower.task = asyncio.create_task(follower.run(port))
            await asyncio.wait_for(asyncio.gather(*(follower.ready.wait() for follower in batch)), timeout=120)
        await asyncio.sleep(2)
        connected = time.monotonic()
        memory_per_follower.append((server_rss_kb(pid) - rss_before) / args.followers)
        rate, probes = await cores.measure("followers", load(port, games, args.actors, args.seconds))
        followed.append(rate)
        health["followers"] += probes
        await asyncio.sleep(1)  # the last events on their way
        for follower in followers:
            assert follower.task is not None
            follower.task.cancel()
        for (game_id, seq), arrivals in received.items():
            acknowledged = games.acknowledged.get((game_id, seq))
            if acknowledged is not None and acknowledged >= connected:
                latencies += [arrival - acknowledged for arrival in arrivals]
        await asyncio.sleep(1)

        games = await fresh_games()
        # The slow clients are other machines: a process of their own, so that they slow this event loop
        # (and with it the actors) no more than the server. They count in the cores used all the same.
        spawning = multiprocessing.get_context("spawn")
        results: multiprocessing.Queue[list[float]] = spawning.Queue()
        slow = spawning.Process(target=slow_clients, args=(port, args.slow_clients, args.seconds + 6, results))
        slow.start()
        await asyncio.sleep(6)  # all connected and sending
        cores.meter.extra = [slow.pid or 0]
        rate, probes = await cores.measure("slow clients", load(port, games, args.actors, args.seconds))
        cores.meter.extra = []
        slowed.append(rate)
        health["slow clients"] += probes
        cut += await asyncio.to_thread(results.get)
        slow.join()

    base = statistics.mean(alone)
    print(
        f"{args.followers} followers over {args.games} games, {args.slow_clients} slow clients, "
        f"{args.actors} actors, {args.rounds} rounds of {args.seconds:g} s"
    )
    print(f"actions alone                      {base:8.0f}/s  (runs: {', '.join(f'{r:.0f}' for r in alone)})")
    print(
        f"actions with followers             {statistics.mean(followed):8.0f}/s  ratio "
        f"{statistics.mean(followed) / base:.2f}   (goal >= 0.85)  "
        f"(rounds: {', '.join(f'{f / a:.2f}' for f, a in zip(followed, alone, strict=True))})"
    )
    print(
        f"actions with slow clients          {statistics.mean(slowed):8.0f}/s  ratio "
        f"{statistics.mean(slowed) / base:.2f}   (goal >= 0.90)  "
        f"(rounds: {', '.join(f'{s / a:.2f}' for s, a in zip(slowed, alone, strict=True))})"
    )
    print(
        f"delivery, answer to follower       p50 {percentile(latencies, 0.5) * 1000:6.1f} ms  "
        f"p99 {percentile(latencies, 0.99) * 1000:6.1f} ms  n={len(latencies)}   (goals <= 50, <= 250)"
    )
    print(
        f"  (negative: the follower had it before the acting client had its answer; min "
        f"{min(latencies, default=0) * 1000:.1f} ms)"
    )
    for name, values in health.items():
        print(f"/healthz p99 {name:<22}{percentile(values, 0.99) * 1000:8.1f} ms  n={len(values)}   (goal <= 100)")
    print(f"server memory per follower         {statistics.mean(memory_per_follower):8.1f} kB   (goal < 20)")
    print(f"slow clients cut off after         {percentile(cut, 0.5):8.1f} s (median), n={len(cut)}")
    cores.report({"alone": base, "followers": statistics.mean(followed), "slow clients": statistics.mean(slowed)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=5000)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--slow-clients", type=int, default=1000)
    parser.add_argument("--actors", type=int, default=16, help="concurrent acting clients")
    parser.add_argument("--join-batch", type=int, default=250, help="followers that connect at once")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    data_dir = PROJECT / "var" / "bench"
    server_url = os.environ.get("DATABASE_URL") or embedded.start(data_dir)
    url = prepare_database(server_url)
    port = int(os.environ.get("BENCH_PORT", "0")) or free_port()
    server = start_gunicorn("server.runtime.app:create_app()", url, port, worker_class=None)
    try:
        asyncio.run(run(args, port, server))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        if not os.environ.get("DATABASE_URL"):
            embedded.stop(data_dir)


if __name__ == "__main__":
    main()
