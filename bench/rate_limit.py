"""What the rate limiter adds to a request: CPU microseconds of a request counted against its address, and of one
exempt from the limits (this machine's own), beside a request with rate limiting off.

Run: .venv/bin/python bench/rate_limit.py [--root DIR] [--requests 2000] [--rounds 5]
`--root`: another checkout whose code to measure (to compare a change with its parent, run this once with each,
one after the other). Calls the app through Flask's test client on a store in memory (no database: the limiter's
counters, `memory://`, are what is measured), `GET /variants`, and measures the CPU time of this thread. Prints
medians over rounds.
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
parser.add_argument("--requests", type=int, default=2000)
parser.add_argument("--rounds", type=int, default=5)
args = parser.parse_args()
sys.path.insert(0, str(args.root.resolve()))
import run_data  # noqa: E402, F401 -- first: this run's own OSMOSIS_DATA_DIR, and the guard of var/

from server.config import Settings  # noqa: E402
from server.runtime.app import create_app  # noqa: E402
from tests.memory_store import MemoryStore  # noqa: E402


def client(rate_limit: str, data: str) -> Any:
    """`data`: the app's data directory (its log's key), one of the run's, never var/."""
    settings = Settings.from_env(
        {"RATE_LIMIT": rate_limit, "RATE_LIMIT_STORAGE_URI": "memory://", "OSMOSIS_DATA_DIR": data}
    )
    return create_app(settings, MemoryStore()).test_client()


def cpu_microseconds(test_client: Any, address: str, requests: int) -> float:
    started = time.thread_time()
    for _ in range(requests):
        assert test_client.get("/variants", environ_base={"REMOTE_ADDR": address}).status_code == 200
    return (time.thread_time() - started) / requests * 1e6


def main() -> None:
    data = tempfile.mkdtemp(prefix="osmosis-bench-data-")
    atexit.register(shutil.rmtree, data, True)
    limited, unlimited = client("100000 per second", data), client("", data)
    phases = {
        "rate limiting off": (unlimited, "203.0.113.7"),
        "counted (203.0.113.7)": (limited, "203.0.113.7"),
        "this machine's own (127.0.0.1)": (limited, "127.0.0.1"),
    }
    for test_client, address in phases.values():
        cpu_microseconds(test_client, address, 100)
    spent: dict[str, list[float]] = {name: [] for name in phases}
    for _ in range(args.rounds):
        for name, (test_client, address) in phases.items():
            spent[name].append(cpu_microseconds(test_client, address, args.requests))
    print(
        f"{args.root}: GET /variants, {args.requests} requests a phase, {args.rounds} rounds; CPU µs a request, "
        "median (min to max)"
    )
    for name, values in spent.items():
        print(f"{name:<32} {statistics.median(values):6.0f}   ({min(values):.0f} to {max(values):.0f})")


if __name__ == "__main__":
    main()
