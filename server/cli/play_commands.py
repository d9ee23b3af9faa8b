"""`osmosis play`: the terminal table, on a server given by --server, or on one started here for it (the same
`osmosis serve`, with one worker, on a free loopback port, its database the embedded PostgreSQL unless
DATABASE_URL says otherwise), stopped when the table closes."""

from __future__ import annotations

import argparse
import contextlib
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..client import Api, ApiError, Unreachable
from ..config import Settings
from ..rules import MAX_DEAL_NUMBER, PRESETS

START_SECONDS = 120
"""How long the embedded server may take to start (a first start makes the PostgreSQL cluster)."""
SERVING_FILE = "serving"
"""In the data directory, while `osmosis serve` (`make serve`) runs there: its base URL. The embedded database is
that server's then, and the table plays on it rather than start a server of its own."""


def add_commands(commands: Any) -> None:
    play = commands.add_parser(
        "play",
        help="play at a table in the terminal (Textual), on the HTTP API",
        description="Play Osmosis in the terminal. Without --server, a server is started for "
        "the table (the embedded PostgreSQL in OSMOSIS_DATA_DIR) and stopped after.",
    )
    play.add_argument("--server", metavar="URL", help="a running server's base URL, e.g. http://127.0.0.1:8000")
    opening = play.add_mutually_exclusive_group()
    opening.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="GAME_ID",
        help="play on one of your games: the one named, or pick from those in progress",
    )
    opening.add_argument("--replay", metavar="GAME_ID", help="step through any game's positions, by its id")
    opening.add_argument("--follow", metavar="GAME_ID", help="watch a game live, move by move")
    opening.add_argument(
        "--daily",
        action="store_true",
        help="today's deal of --variant, the same for every player, as yourself (one attempt a "
        "day; your game again if you began it)",
    )
    play.add_argument(
        "--name",
        metavar="NAME",
        help="with --daily, the first time on a server: sign up with this name (its API token is kept with your games)",
    )
    play.add_argument("--variant", default="osmosis", choices=list(PRESETS), help="a new game's preset")
    play.add_argument("--deal-number", type=int, metavar="N", help="a new game on this public deal")
    play.add_argument("--winnable", action="store_true", help="a new game on a deal the solver proves winnable")
    play.add_argument(
        "--ascii",
        action="store_true",
        help="plain ASCII: the cards as the API writes them (7S, TH), no glyph and no colour",
    )
    play.set_defaults(run=_play)


def _play(args: argparse.Namespace) -> int:
    try:  # here, so that the other commands do not load Textual, and serving does not need it
        from ..terminal.app import TableApp
        from ..terminal.saved import SavedGames, SavedGamesError, default_path
        from ..terminal.seat import Opening
    except ImportError as error:
        print(
            f"osmosis play: the terminal table needs the 'play' extra ({error}): "
            "pip install 'osmosis-server[play]', or run `make play`",
            file=sys.stderr,
        )
        return 2
    refusal = _check(args)
    if refusal:
        print(f"osmosis play: {refusal}", file=sys.stderr)
        return 2
    new_game: dict[str, Any] = {"variant": args.variant}
    if args.deal_number is not None:
        new_game["deal_number"] = args.deal_number
    if args.winnable:
        new_game["winnable"] = True
    if args.daily:
        new_game = {"variant": args.variant, "daily": True}
    opening = Opening(new_game=new_game, resume=args.resume, replay=args.replay, follow=args.follow)
    plain = args.ascii or (sys.stdout.encoding or "").lower().replace("-", "") != "utf8"
    saved = SavedGames(default_path())
    try:
        saved.check()  # a file that cannot be ours is named now, before a table or a server is started
    except SavedGamesError as error:
        print(f"osmosis play: {error}", file=sys.stderr)
        return 1
    with contextlib.ExitStack() as stack:
        beside = None if args.server else _server_beside(Settings.from_env())
        if args.server:
            url, name = args.server, args.server.rstrip("/")
        elif beside is not None:
            url, name = beside
            print(f"osmosis play: playing on the server running beside, {url}", file=sys.stderr, flush=True)
        else:
            try:
                url, name = stack.enter_context(_served_here(Settings.from_env()))
            except ServerNotStarted as error:
                print(f"osmosis play: {error}", file=sys.stderr)
                return 1
        api = Api(url)
        stack.callback(api.close)
        try:
            api.get("/readyz")
        except (ApiError, Unreachable) as error:
            print(f"osmosis play: {url} is not a ready Osmosis server: {error}", file=sys.stderr)
            return 1
        if args.daily:
            try:
                opening = replace(opening, resume=_todays_game(api, saved, name, args))
            except (ApiError, Unreachable, DailyRefused, SavedGamesError) as error:
                print(f"osmosis play: {error}", file=sys.stderr)
                return 1
        try:
            TableApp(api, name, saved, opening, plain=plain).run()
        except SavedGamesError as error:
            print(f"osmosis play: {error}", file=sys.stderr)
            return 1
    if opening.replay is None and opening.follow is None:
        print(
            "osmosis play: your games are kept; `osmosis play --resume` takes one up again"
            + ("" if args.server else " (on this machine's server)")
            + "."
        )
    return 0


class DailyRefused(RuntimeError):
    """Today's deal cannot be played from here as it was asked."""


def _todays_game(api: Api, saved: Any, server: str, args: argparse.Namespace) -> str | None:
    """`api` made yours on this server (signing you up with --name the first time); your game of today's deal of
    the preset if you began it (None: the table deals it to you)."""
    from ..terminal.saved import SavedPlayer

    player = saved.player_on(server)
    if player is None:
        if not args.name:
            raise DailyRefused(
                "the daily deal is played as yourself: give --name NAME the first time, to sign up on this server"
            )
        made = api.post("/players", {"name": args.name})
        player = SavedPlayer(made["player"]["name"], made["token"])
        saved.keep_player(server, player)
    elif args.name and args.name != player.name:
        raise DailyRefused(f"you play as {player.name} on this server already")
    api.bearer = player.token
    today = api.get("/daily")
    found: str | None = next((deal["your_game"] for deal in today["deals"] if deal["variant"] == args.variant), None)
    return found


def _check(args: argparse.Namespace) -> str | None:
    for option in ("resume", "replay", "follow"):
        value = getattr(args, option)
        if value is not None and (value or option != "resume"):  # a bare --resume lists your games
            try:
                uuid.UUID(value)
            except ValueError:
                return f"--{option} takes a game's id (a UUID), not {value!r}"
    if args.name is not None and not args.daily:
        return "--name signs you up for the daily deal: it goes with --daily"
    if args.daily and (args.deal_number is not None or args.winnable):
        return "--daily is today's deal, the same for everyone: it takes no --deal-number or --winnable"
    if args.deal_number is not None and not 0 <= args.deal_number <= MAX_DEAL_NUMBER:
        return f"--deal-number runs from 0 to {MAX_DEAL_NUMBER}"
    if args.server:
        parts = urlsplit(args.server)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return f"--server is an http:// or https:// base URL, not {args.server!r}"
    return None


def _server_beside(settings: Settings) -> tuple[str, str] | None:
    """The server `osmosis serve` runs on this data directory's database, if one does and answers: its URL and the
    name the table's games are saved under (the database's, as for a server of the table's own)."""
    try:
        url = (settings.data_dir / SERVING_FILE).read_text().strip()
        api = Api(url, timeout=2)
    except (OSError, ValueError):  # none, or what no `osmosis serve` wrote: not text, not a server's address
        return None
    try:
        api.get("/readyz")
    except (ApiError, Unreachable):
        return None  # a server stopped without removing it (killed): the table starts its own
    finally:
        api.close()
    return url, _database_name(settings)


class ServerNotStarted(RuntimeError):
    """The server for the table did not come up; the reason and where its log is."""


@contextlib.contextmanager
def _served_here(settings: Settings) -> Iterator[tuple[str, str]]:
    """The base URL of a server of the table's own, and the name its games are saved under: the database
    they are kept in (the embedded one's directory, or DATABASE_URL's host and name, never its password)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    log_path = settings.data_dir / "play-server.log"
    port = _free_port()
    print(f"osmosis play: starting a server for the table (its log: {log_path})…", file=sys.stderr, flush=True)
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "server.cli.main", "serve", "--port", str(port), "--workers", "1"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )  # Ctrl-C at the table is the table's, not the server's
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_ready(url, process, log_path)
        yield url, _database_name(settings)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(url: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    api = Api(url, timeout=2)
    deadline = time.monotonic() + START_SECONDS
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                tail = log_path.read_text(errors="replace").strip().splitlines()[-3:]
                raise ServerNotStarted(
                    "the server did not start:\n  "
                    + "\n  ".join(tail)
                    + "\n(to play on a server already running, give its address: --server URL)"
                )
            try:
                api.get("/readyz")
                return
            except (ApiError, Unreachable):
                time.sleep(0.2)
        raise ServerNotStarted(f"the server was not ready within {START_SECONDS} s (see {log_path})")
    finally:
        api.close()


def _database_name(settings: Settings) -> str:
    if settings.database_url is None:
        return f"embedded:{settings.data_dir.resolve()}"
    parts = urlsplit(settings.database_url)
    hosts = parts.netloc.rpartition("@")[2]
    if "," in hosts:  # several hosts, as libpq takes them (a replicated cluster): named as the URL names them
        return f"database:{hosts}{parts.path}"
    return f"database:{parts.hostname}:{parts.port or 5432}{parts.path}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
