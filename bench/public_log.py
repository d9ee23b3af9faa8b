"""Public log benchmark: what the transparency log costs play, how soon a game is in a signed checkpoint, and the
log at a million entries.

Run: .venv/bin/python bench/public_log.py [--clients 8] [--seconds 4] [--rounds 3] [--entries 1000000]
                                          [--baseline f9235c9]
Uses DATABASE_URL if set, else the embedded PostgreSQL (in var/bench).

1. Play with the log on and off. "Off" is the server as it was before the log (--baseline, a commit: its tree is
   extracted under var/ and served from there, on a database its own migrations made). The two gunicorns take
   turns, round after round, under the same play: clients create a game, make up to 30 random actions and
   resign, so that each game writes two entries. Prints both rates and their ratio (goal >= 0.97).
   Each round runs both, in alternating order; the median of the rounds' ratios is the figure.
2. From a game's creation to its entry in a signed checkpoint, with the log on and the same play running:
   probes create a game and ask /games/{id}/transparency every 20 ms until the creation is proven (p50, p99;
   goal p99 <= 2 s).
3. A log of --entries entries (written straight into log_pending, then sequenced here in batches as the server
   does): the integration rate, then tiles, bundles and the checkpoint served by gunicorn, beside the stack's
   own SELECT-by-key ceiling; and the sizes of inclusion and consistency proofs against log2 of the size.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
import run_data  # noqa: E402 -- first: this run's own OSMOSIS_DATA_DIR, and the guard of var/

from bench.load import (  # noqa: E402
    CpuMeter,
    Http,
    Measurement,
    alternate,
    ceiling_work,
    free_port,
    random_action,
    run_phase,
    start_gunicorn,
    stop_servers,
    timed,
)
from server.service.public_log.log import PublicLog  # noqa: E402
from server.store import embedded, migrate, open_pool  # noqa: E402
from server.store.postgres import PostgresStore  # noqa: E402
from server.transparency.merkle import inclusion_proof  # noqa: E402
from server.transparency.notes import generate_signer  # noqa: E402
from server.transparency.tiles import ENTRIES, TILE_WIDTH, tile_path, tile_subtrees  # noqa: E402

ACTIONS_A_GAME = 30
APP = "server.runtime.app:create_app()"
KEY = generate_signer("bench.osmosis/log")


def database(server_url: str, name: str) -> str:
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))


def baseline_tree(revision: str) -> Path:
    """The tree of `revision`, extracted once in this run's own directory (no worktree: the repository is left as it
    is; nothing of a benchmark's goes into var/, which is make serve's)."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{revision}^{{commit}}"],
        cwd=PROJECT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    root = Path(run_data.RUN_DATA_DIR) / f"baseline-{commit[:12]}"
    if not (root / "server").is_dir():
        archive = subprocess.run(["git", "archive", commit], cwd=PROJECT, check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(root, filter="data")
    return root


def migrate_with(root: Path, url: str) -> None:
    subprocess.run(
        [sys.executable, "-c", "import sys; from server.store import migrate; migrate.upgrade(sys.argv[1])", url],
        cwd=root,
        check=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )


def play_work(port: int) -> Callable[[int], Callable[[], float | None]]:
    """Create, up to 30 random actions, resign: every request timed, the game's two entries included."""

    def make(index: int) -> Callable[[], float | None]:
        client, rng = Http(port), random.Random(index)
        game: dict = {"status": "over"}
        token, actions = "", 0

        def work() -> float | None:
            nonlocal game, token, actions
            if game["status"] != "playing":
                latency, game = timed(lambda: client.call("POST", "/games", {"variant": "osmosis-draw-one"}), 201)
                token, actions = game["player_token"], 0
                return latency
            if actions == ACTIONS_A_GAME:
                latency, result = timed(lambda: client.call("POST", f"/games/{game['id']}/resign", {}, token))
                game = result["game"]
                return latency
            latency, result = random_action(client, rng, game, token)
            game, actions = result["game"], actions + 1
            return latency

        return work

    return make


def creation_to_checkpoint(port: int, seconds: float, clients: int) -> list[float]:
    """Seconds from sending a creation to the first answer proving it in a signed checkpoint, under play."""
    delays: list[float] = []
    stop = time.monotonic() + seconds

    def probe() -> None:
        client = Http(port)
        while time.monotonic() < stop:
            created = time.monotonic()
            _, game = timed(lambda: client.call("POST", "/games", {"variant": "osmosis"}), 201)
            proven = f"/games/{game['id']}/transparency"
            while True:
                _, proofs = timed(lambda proven=proven: client.call("GET", proven))
                if any(leaf["kind"] == "game_created" for leaf in proofs["leaves"]):
                    delays.append(time.monotonic() - created)
                    break
                time.sleep(0.02)
            time.sleep(0.1)

    probes = [threading.Thread(target=probe) for _ in range(2)]
    for thread in probes:
        thread.start()
    run_phase(clients, seconds, play_work(port))
    for thread in probes:
        thread.join()
    return delays


def bytes_work(port: int, paths: list[str]) -> Callable[[int], Callable[[], float | None]]:
    """GETs of tiles and bundles: binary bodies, read whole, the status checked."""

    def make(index: int) -> Callable[[], float | None]:
        connection, rng = http.client.HTTPConnection("127.0.0.1", port, timeout=30), random.Random(index)

        def work() -> float:
            started = time.perf_counter()
            connection.request("GET", rng.choice(paths))
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                raise RuntimeError(f"unexpected {response.status}: {body[:200]!r}")
            return time.perf_counter() - started

        return work

    return make


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) >= 2 else (values or [float("nan")])[0]


def fill_log(url: str, entries: int) -> tuple[float, int]:
    """`entries` pending entries, sequenced here: (entries a second, batches)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            """
            INSERT INTO log_pending (subject, kind, entry)
            SELECT id, 'game_created', convert_to(
                '{"commitment":"' || md5(id::text) || md5(id::text) || '","deal":{"deal_number":' || n ||
                '},"game_id":"' || id || '","kind":"game_created","rules":{},"variant":"osmosis"}', 'UTF8')
            FROM (SELECT gen_random_uuid() AS id, n FROM generate_series(1, %s) AS n) AS made ORDER BY n""",
            (entries,),
        )
    pool = open_pool(url, 1, 2, 30, 600_000)
    store = PostgresStore(pool, migrate.head_revision())
    public_log = PublicLog(store, store, KEY, spacing=0)
    started, batches = time.perf_counter(), 0
    while public_log.sequence() is not None:
        batches += 1
    elapsed = time.perf_counter() - started
    pool.close()
    return entries / elapsed, batches


def proof_sizes(url: str, port: int, size: int) -> None:
    pool = open_pool(url, 1, 2, 30, 60_000)
    store = PostgresStore(pool, migrate.head_revision())
    subtrees = tile_subtrees(store.read_tile)
    rng = random.Random(1)
    inclusion = [len(inclusion_proof(rng.randrange(size), size, subtrees)) for _ in range(20)]
    pool.close()
    client = Http(port)
    consistency = []
    for old in sorted({1, size // 3, size // 2, size - 1, max(1, size - TILE_WIDTH)}):
        _, body = timed(lambda old=old: client.call("GET", f"/log/consistency?from={old}&to={size}"))
        consistency.append(len(body["proof"]))
    print(
        f"inclusion proof, 20 random leaves    {min(inclusion)} to {max(inclusion)} hashes "
        f"({32 * max(inclusion)} bytes)   log2 n = {math.log2(size):.1f}"
    )
    print(
        f"consistency proof, 5 older sizes     {min(consistency)} to {max(consistency)} hashes "
        f"({32 * max(consistency)} bytes)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=4, help="length of one phase of one round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--entries", type=int, default=1_000_000, help="the size of the large log (0: none)")
    parser.add_argument("--baseline", default="f9235c9", help="the commit that serves play without the log")
    args = parser.parse_args()

    data_dir = PROJECT / "var" / "bench"
    server_url = os.environ.get("DATABASE_URL") or embedded.start(data_dir)
    root = baseline_tree(args.baseline)
    with_log, without_log = database(server_url, "osmosis_bench_log_on"), database(server_url, "osmosis_bench_log_off")
    large = database(server_url, "osmosis_bench_log_large")
    migrate.upgrade(with_log)
    migrate_with(root, without_log)
    on_port, off_port = free_port(), free_port()
    servers = {
        "log on": start_gunicorn(APP, with_log, on_port, None, LOG_SIGNING_KEY=KEY.skey),
        "log off": start_gunicorn(APP, without_log, off_port, None, root=root),
    }
    try:
        c, t, r = args.clients, args.seconds, args.rounds
        meter = CpuMeter(servers)
        for port in (on_port, off_port):  # pools opened, code loaded: not part of any figure
            run_phase(c, 1.0, play_work(port))
        print(
            f"{c} clients, {r} rounds of {t:g} s a phase, gunicorn {os.environ.get('WEB_CONCURRENCY', '4')} "
            f"workers; baseline {args.baseline} served from an export of it"
        )
        on, off = Measurement("play, log on"), Measurement("play, log off (baseline)")
        ratios = []
        for turn in range(r):  # each round a pair, in alternating order: the machine's drift falls on both
            pair = [(off, play_work(off_port)), (on, play_work(on_port))]
            before = (len(on.latencies), len(off.latencies))
            alternate(meter, c, t, 1, pair if turn % 2 == 0 else pair[::-1])
            ratios.append((len(on.latencies) - before[0]) / (len(off.latencies) - before[1]))
        for measurement in (off, on):
            measurement.report()
        print(
            f"log on / log off                     {on.rate / off.rate:.3f} overall, median of {r} paired rounds "
            f"{statistics.median(ratios):.3f} (from {min(ratios):.3f} to {max(ratios):.3f})   (goal >= 0.97)"
        )
        print()
        delays = creation_to_checkpoint(on_port, t * r, c)
        print(
            f"creation to signed checkpoint        p50 {percentile(delays, 50) * 1000:.0f} ms   "
            f"p99 {percentile(delays, 99) * 1000:.0f} ms   max {max(delays) * 1000:.0f} ms   n={len(delays)}   "
            f"(goal p99 <= 2000 ms)"
        )
        _, game = timed(lambda: Http(on_port).call("POST", "/games", {"variant": "osmosis"}), 201)
        time.sleep(2.5)
        _, proofs = timed(lambda: Http(on_port).call("GET", f"/games/{game['id']}/transparency"))
        print(
            f"a game's proofs (/transparency)      {len(json.dumps(proofs)):,} bytes, "
            f"{len(proofs['leaves'][0]['inclusion_proof'])} hashes in a log of {proofs['tree_size']:,}"
        )
    finally:
        stop_servers(servers)

    if args.entries == 0:
        if not os.environ.get("DATABASE_URL"):
            embedded.stop(data_dir)
        return
    migrate.upgrade(large)
    with psycopg.connect(large, autocommit=True) as conn:
        conn.execute("CREATE TABLE ceiling_rows (id bigserial PRIMARY KEY, body text NOT NULL)")
        conn.execute("INSERT INTO ceiling_rows (body) SELECT repeat('x', 200) FROM generate_series(1, 1000)")
    rate, batches = fill_log(large, args.entries)
    print()
    print(f"integration of {args.entries:,} entries       {rate:,.0f} entries/s   ({batches} batches)")
    tile_port, ceiling_port = free_port(), free_port()
    servers = {
        "log": start_gunicorn(APP, large, tile_port, None, LOG_SIGNING_KEY=KEY.skey),
        "ceiling app": start_gunicorn("bench.ceiling_app:app", large, ceiling_port, None),
    }
    try:
        meter = CpuMeter(servers)
        full = args.entries // TILE_WIDTH
        level0 = [f"/log/{tile_path(0, n)}" for n in range(full)] or ["/log/tile/0/000.p/1"]
        bundles = [f"/log/{tile_path(ENTRIES, n)}" for n in range(full)] or ["/log/tile/entries/000.p/1"]
        level1 = [f"/log/{tile_path(1, n)}" for n in range(full // TILE_WIDTH)] or level0[:1]
        run_phase(args.clients, 1.0, bytes_work(tile_port, level0))
        select = Measurement("ceiling: SELECT by key")
        tiles, upper, entries, checkpoint = (
            Measurement("level-0 tiles (8 KiB)"),
            Measurement("level-1 tiles"),
            Measurement("entry bundles"),
            Measurement("checkpoint"),
        )
        alternate(
            meter,
            args.clients,
            args.seconds,
            args.rounds,
            [
                (select, ceiling_work(ceiling_port, "GET", "/select/", 200)),
                (tiles, bytes_work(tile_port, level0)),
                (upper, bytes_work(tile_port, level1)),
                (entries, bytes_work(tile_port, bundles)),
                (checkpoint, bytes_work(tile_port, ["/log/checkpoint"])),
            ],
        )
        for measurement in (select, tiles, upper, entries, checkpoint):
            measurement.report()
        print(f"level-0 tiles / SELECT ceiling       {tiles.rate / select.rate:.2f}")
        proof_sizes(large, tile_port, args.entries)
    finally:
        stop_servers(servers)
        if not os.environ.get("DATABASE_URL"):
            embedded.stop(data_dir)


if __name__ == "__main__":
    main()
