"""Durability benchmark: what the embedded server's WAL archive and the log's tiles directory cost an action.

Run: .venv/bin/python bench/durability.py [--clients 4] [--seconds 4] [--rounds 3]
Starts three `osmosis serve` (each its own embedded PostgreSQL, in var/bench-durability, 2 workers):
- `plain`: neither;
- `tiles`: LOG_TILES_DIR (the log's tiles, bundles and checkpoints also written as files, each flushed to disk);
- `archived`: LOG_TILES_DIR and OSMOSIS_WAL_ARCHIVE (every commit waits until pg_receivewal has it on disk).
Clients create games and play random actions; the three take turns, round after round, so that a shared machine's
drift falls on all alike. Prints each one's actions a second, p50 and p99, and the ratios docs/performance.md
records.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT / "bench"))

from load import Measurement, actions_work, free_port, run_phase, serve_osmosis  # noqa: E402

ROOT = Path("/tmp") / "osmosis-bench-durability"  # short: each embedded server's socket lives under it


def serve(name: str, port: int, **env: str) -> subprocess.Popen[bytes]:
    return serve_osmosis(ROOT / name, port, **env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=4, help="length of one phase of one round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    shutil.rmtree(ROOT, ignore_errors=True)
    for name in ("plain", "tiles", "archived"):
        (ROOT / name).mkdir(parents=True)
    ports = {name: free_port() for name in ("plain", "tiles", "archived")}
    servers = {}
    try:
        servers["plain"] = serve("plain", ports["plain"])
        servers["tiles"] = serve("tiles", ports["tiles"], LOG_TILES_DIR=str(ROOT / "tiles" / "tiles"))
        servers["archived"] = serve(
            "archived",
            ports["archived"],
            LOG_TILES_DIR=str(ROOT / "archived" / "tiles"),
            OSMOSIS_WAL_ARCHIVE=str(ROOT / "archived" / "wal"),
        )
        for name in servers:  # every worker loads its code and opens its pool with its first requests
            run_phase(args.clients, 1.0, actions_work(ports[name]))
        print(f"{args.clients} clients, {args.rounds} rounds of {args.seconds:g} s a phase, 2 gevent workers a server")
        measurements = {
            "plain": Measurement("actions, neither"),
            "tiles": Measurement("actions, LOG_TILES_DIR"),
            "archived": Measurement("actions, LOG_TILES_DIR and OSMOSIS_WAL_ARCHIVE"),
        }
        for _ in range(args.rounds):
            for name, measurement in measurements.items():
                measurement.add(run_phase(args.clients, args.seconds, actions_work(ports[name])), args.seconds, {})
        for measurement in measurements.values():
            print(
                f"{measurement.name:<50} {measurement.rate:>7,.0f}/s   p50 {measurement.p50 * 1000:7.2f} ms   "
                f"p99 {measurement.p99 * 1000:7.2f} ms   n={len(measurement.latencies)}"
            )
        plain, tiles, archived = measurements.values()
        print()
        print(f"tiles / plain actions a second: {tiles.rate / plain.rate:.2f}")
        print(f"archived / plain actions a second: {archived.rate / plain.rate:.2f}")
        print(f"archived - plain action p50: {(archived.p50 - plain.p50) * 1000:+.2f} ms")
    finally:
        for process in servers.values():
            process.send_signal(signal.SIGTERM)
        for process in servers.values():
            process.wait(timeout=60)
        shutil.rmtree(ROOT, ignore_errors=True)


if __name__ == "__main__":
    main()
