"""What the app itself costs a request, without gunicorn: CPU microseconds, layer by layer.

Run: .venv/bin/python bench/app_cpu.py [--requests 1000] [--rounds 5]
Calls the WSGI apps in this process, one request at a time, and measures this process's CPU time (user
and system: the driver's socket calls count, PostgreSQL's own work does not). Side by side, in
alternating rounds: the ceiling app's INSERT + COMMIT and SELECT routes, a game action, a game read and a game's
creation through the whole app, the action's use case alone (no HTTP), and the HTTP layer alone (an app
whose acting use case answers from memory), sent the same mix of moves and draws as the whole app (and,
as it was measured before issue 51's third step, draws alone, whose empty body is the cheapest to read), and the
two halves in turn (a service action, then an HTTP-only one: what the halves cost when their code shares the CPU's
caches as it does in the whole app, where each measured alone has the caches to itself). Then the whole app's
action over the INSERT route, over its halves measured alone, and over its halves in turn, round by round.
bench/load.py says how the whole system does under load; this
says which layer of the game server a change made cheaper. Uses DATABASE_URL if set, else the embedded
PostgreSQL in var/bench. Prints medians over rounds.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import io
import itertools
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from load import postgres_server, prepare_database  # noqa: E402

from server.config import Settings  # noqa: E402
from server.game.change import Change  # noqa: E402
from server.game.commands import Act, Draw, NewGame  # noqa: E402
from server.rules import action_from_dict, preset  # noqa: E402
from server.runtime.app import create_app  # noqa: E402
from server.runtime.composition import compose  # noqa: E402
from server.service.outcomes import Answered  # noqa: E402
from server.service.use_cases import UseCases  # noqa: E402
from server.store import PostgresStore, open_pool  # noqa: E402

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Any]


def call(app: Wsgi, method: str, path: str, body: object = None, token: str | None = None) -> tuple[int, bytes]:
    data = b"" if body is None else json.dumps(body).encode()
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(data),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(data)),
    }
    if token:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    status: list[str] = []
    content = b"".join(app(environ, lambda line, headers, exc_info=None: status.append(line)))
    return int(status[0].split()[0]), content


class Player:
    """Random legal actions on games it creates, through whichever door it is given."""

    def __init__(self, create: Callable[[], dict[str, Any]]) -> None:
        self._create = create
        self._rng = random.Random(1)
        self.game: dict[str, Any] = {"status": "over"}
        self.token = ""

    def next_action(self) -> dict[str, Any]:
        if self.game["status"] != "playing":
            self.game = self._create()
            self.token = self.game["player_token"]
        action: dict[str, Any] = self._rng.choice(self.game["legal_actions"])
        return action


Request = tuple[str, dict[str, Any]]
"""An action's route under its game and its body."""


def over_http(app: Wsgi, sent: list[Request] | None = None) -> Callable[[], None]:
    """Random legal actions through `app`; each one's route and body also appended to `sent`, if given."""

    def create() -> dict[str, Any]:
        status, content = call(app, "POST", "/games", {"variant": "osmosis-draw-one"})
        assert status == 201, content
        created: dict[str, Any] = json.loads(content)
        return created

    player = Player(create)

    def act() -> None:
        action = player.next_action()
        move = action["kind"] == "move"
        request: Request = ("moves", {"card": action["card"], "to": action["to"]}) if move else ("draw", {})
        status, content = call(app, "POST", f"/games/{player.game['id']}/{request[0]}", request[1], player.token)
        assert status == 200, content
        player.game = json.loads(content)["game"]
        if sent is not None:
            sent.append(request)

    return act


def replayed(app: Wsgi, requests: list[Request]) -> Callable[[], None]:
    """`requests` in turn, to a game that `app` answers from memory: the HTTP layer's share of the same actions."""
    turns = itertools.cycle(requests)

    def act() -> None:
        route, body = next(turns)
        status, content = call(app, "POST", f"/games/{UUID(int=0)}/{route}", body, "token")
        assert status == 200, content

    return act


def in_service(cases: UseCases) -> Callable[[], None]:
    player = Player(lambda: created_in(cases))

    def act() -> None:
        action = player.next_action()
        game_id = UUID(player.game["id"])
        if action["kind"] == "move":
            result = cases.acting.handle(Act(game_id, player.token, action_from_dict(action)))
        else:
            result = cases.acting.handle(Draw(game_id, player.token))
        assert result.outcome is not None
        player.game = json.loads(result.outcome.game.document)

    return act


def created_in(cases: UseCases) -> dict[str, Any]:
    made = cases.creating.handle(NewGame(preset("osmosis-draw-one"))).outcome
    assert made is not None
    return {**json.loads(made.game.document), "player_token": made.player_token}


class AnswerFromMemory:
    """An acting use case that answers every command with one real action's change: what is left is the HTTP layer
    (the request read into a command, the reply sent)."""

    def __init__(self, taken: Change) -> None:
        self._taken = taken

    def handle(self, command: Any) -> Answered[Change]:
        return Answered(self._taken.reply, self._taken)


def cpu_microseconds(work: Callable[[], None], requests: int) -> tuple[float, float]:
    """CPU µs a request: of the whole process, and of the thread that made the requests (the rest is the
    process's own threads: the log's sequencer, the upkeep, the live hub, the pool's workers)."""
    process, thread = time.process_time(), time.thread_time()
    for _ in range(requests):
        work()
    return ((time.process_time() - process) / requests * 1e6, (time.thread_time() - thread) / requests * 1e6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000, help="requests per phase and round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    # The app signs a log of its database's: its key and checkpoints in a directory of the run's, never in var/.
    with postgres_server() as server_url, tempfile.TemporaryDirectory(prefix="osmosis-bench-data-") as data:
        url = prepare_database(server_url)
        os.environ["DATABASE_URL"] = url
        settings = Settings.from_env({"DATABASE_URL": url, "RATE_LIMIT": "", "OSMOSIS_DATA_DIR": data})
        game_app = create_app(settings)
        ceiling = importlib.import_module("bench.ceiling_app")
        pool = open_pool(url, 1, 2, 5, 5000)
        store = PostgresStore(pool, "unused")
        cases = compose(store)

        mix: list[Request] = []
        record = over_http(game_app, mix)
        for _ in range(300):
            record()
        act = over_http(game_app)
        read_path = f"/games/{json.loads(call(game_app, 'POST', '/games', {})[1])['id']}"
        created = created_in(cases)
        drawn = cases.acting.handle(Draw(UUID(created["id"]), created["player_token"])).outcome
        assert drawn is not None
        canned_app = create_app(settings, store)
        canned_app.extensions["osmosis.use_cases"] = dataclasses.replace(
            canned_app.extensions["osmosis.use_cases"], acting=AnswerFromMemory(drawn)
        )
        draw_path = f"/games/{UUID(int=0)}/draw"

        def expect(app: Wsgi, method: str, path: str, status: int, token: str | None = None) -> Callable[[], None]:
            def work() -> None:
                got, content = call(app, method, path, {} if method == "POST" else None, token)
                assert got == status, content

            return work

        phases = {
            "ceiling: INSERT + COMMIT": expect(ceiling.app, "POST", "/insert", 201),
            "game: action, whole app": act,
            "game: action, service only": in_service(cases),
            "game: action, HTTP layer only": replayed(canned_app, mix),
            "game: action, halves in turn": in_turn(in_service(cases), replayed(canned_app, mix)),
            "game: draw, HTTP layer only": expect(canned_app, "POST", draw_path, 200, "token"),
            "ceiling: SELECT by key": expect(ceiling.app, "GET", "/select/7", 200),
            "game: read": expect(game_app, "GET", read_path, 200),
            "game: create, whole app": expect(game_app, "POST", "/games", 201),
        }
        for work in phases.values():
            cpu_microseconds(work, 50)
        spent: dict[str, list[tuple[float, float]]] = {name: [] for name in phases}
        for _ in range(args.rounds):
            for name, work in phases.items():
                spent[name].append(cpu_microseconds(work, args.requests))
        print(
            f"{args.requests} requests a phase, {args.rounds} rounds; CPU µs a request, median (min to max): of the"
            " process, of the requests' thread, of the other threads"
        )
        for name, values in spent.items():
            process = [whole for whole, _ in values]
            thread = [own for _, own in values]
            others = [whole - own for whole, own in values]
            print(
                f"{name:<32} {statistics.median(process):6.0f}   ({min(process):.0f} to {max(process):.0f})"
                f"   requests {statistics.median(thread):6.0f}   others {statistics.median(others):6.0f}"
            )
        print_ratios({name: [whole for whole, _ in values] for name, values in spent.items()})
        pool.close()


def in_turn(*halves: Callable[[], None]) -> Callable[[], None]:
    def act() -> None:
        for half in halves:
            half()

    return act


def print_ratios(rounds: dict[str, list[float]]) -> None:
    """The whole app's action over the INSERT route, and over its halves (measured alone, and in turn): the median
    of each round's ratio, whose phases ran one after another, so that the machine's drift between rounds cancels."""
    whole = rounds["game: action, whole app"]
    service, http = rounds["game: action, service only"], rounds["game: action, HTTP layer only"]
    alone = [a + b for a, b in zip(service, http, strict=True)]
    for name, base in (
        ("whole app / INSERT + COMMIT", rounds["ceiling: INSERT + COMMIT"]),
        ("whole app / halves alone", alone),
        ("whole app / halves in turn", rounds["game: action, halves in turn"]),
    ):
        ratios = [w / b for w, b in zip(whole, base, strict=True)]
        print(f"{name:<32} {statistics.median(ratios):6.2f}   ({min(ratios):.2f} to {max(ratios):.2f})")


if __name__ == "__main__":
    main()
