"""Python function calls a request makes through the whole app: a read of a game, an action (a draw), a creation.

Run: .venv/bin/python bench/calls_per_request.py [--requests 200]
A count, not a time: the same code gives the same count on a busy machine as on an idle one (but for a call or so
a request where the live hub's timing takes one branch or another), so a refactor that should move code and not
work is checked to a few calls (`bench/compare.py --bench calls_per_request --bench-from .
A B` for two revisions, this checkout's script in both). The app runs on the store in memory (tests/memory_store.py):
the calls are the server's, none of PostgreSQL's driver. Counted with cProfile over `--requests` requests after a
warm-up.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
import run_data  # noqa: E402, F401 -- first: this run's own OSMOSIS_DATA_DIR, and the guard of var/

from server.config import Settings  # noqa: E402
from server.runtime.app import create_app  # noqa: E402
from tests.memory_store import MemoryStore  # noqa: E402


def app_on_memory() -> Any:
    if (PROJECT / "server" / "service" / "games.py").exists():  # before the use cases were composed at the root
        from server.service.games import GameService  # type: ignore[import-not-found]

        return create_app(Settings(rate_limit=""), service=GameService(MemoryStore()))  # type: ignore[call-arg]
    return create_app(Settings(rate_limit=""), MemoryStore())


def calls_of(request: Callable[[], Any], requests: int) -> float:
    for _ in range(20):
        request()
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(requests):
        request()
    profile.disable()
    return pstats.Stats(profile).total_calls / requests  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()

    app = app_on_memory()
    client = app.test_client()
    game = client.post("/games", json={"variant": "osmosis", "deal_number": 3}).get_json()

    def draws() -> Callable[[], Any]:
        """Ten draws a game, on games made beforehand, so that every one lands (a stock runs out after a few
        passes) and no creation is counted with them; numbered deals, so that every run counts the same."""
        made = [
            client.post("/games", json={"variant": "osmosis", "deal_number": number}).get_json()
            for number in range(args.requests // 10 + 3)
        ]
        turns = iter((game, {"Authorization": f"Bearer {game['player_token']}"}) for game in made for _ in range(10))

        def draw() -> None:
            game, token = next(turns)
            assert client.post(f"/games/{game['id']}/draw", headers=token).status_code == 200

        return draw

    phases = {
        "read a game": lambda: client.get(f"/games/{game['id']}"),
        "action (draw)": draws(),
        "create a game": lambda: client.post("/games", json={"variant": "osmosis", "deal_number": 7}),
    }
    print(f"Python function calls a request, {args.requests} requests a phase (cProfile, the store in memory)")
    for name, request in phases.items():
        print(f"{name:<24}  {calls_of(request, args.requests):.1f}")
    app.extensions["osmosis.hub"].stop()


if __name__ == "__main__":
    main()
