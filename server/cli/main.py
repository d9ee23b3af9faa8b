"""The `osmosis` command: deal, simulate, solve (and, for the server, serve and verify)."""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from ..config import Settings, shipped
from ..log import strict_json
from ..log.events import ReplayError
from ..log.replay import verify, verify_in_log
from ..rules import (
    PRESETS,
    Layout,
    RulesError,
    layout,
    numbered_opening,
    preset,
    shuffled_deck,
)
from ..runtime.log_key import log_signer
from ..service.players.stats import wilson_interval
from ..solver.players import play_greedy, play_random
from ..transparency.notes import NoteError, parse_verifier
from .backup_commands import add_commands as add_backup_commands
from .deal_source import add_deal_source, seeds_of
from .log_commands import add_commands as add_log_commands
from .log_commands import read_key
from .log_recovery_commands import add_commands as add_log_recovery_commands
from .play_commands import SERVING_FILE
from .play_commands import add_commands as add_play_commands
from .player_commands import add_commands as add_player_commands
from .solver_commands import add_commands as add_solver_commands
from .witness_commands import add_commands as add_witness_commands

GUNICORN_CONFIG = shipped("deploy") / "gunicorn.conf.py"


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        status = int(args.run(args))
        sys.stdout.flush()  # here, where a closed pipe can still be told apart from a failure
        return status
    except RulesError as error:
        print(f"osmosis: {error}", file=sys.stderr)
        return 2

    except BrokenPipeError:
        # The reader went away (`osmosis deal ... | head`): what is left to write goes nowhere, quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="osmosis", description="Osmosis (Treasure Trove) patience.")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    deal = commands.add_parser("deal", help="print the opening layout of a deal")
    add_deal_source(deal)
    deal.add_argument("--variant", default="osmosis", choices=list(PRESETS), help="the preset (default osmosis)")
    deal.add_argument("--json", action="store_true", help="print JSON: reserves, base and stock")
    deal.set_defaults(run=_deal)
    _add_offline_commands(commands)
    _add_server_commands(commands)
    add_solver_commands(commands)
    add_log_commands(commands)
    add_witness_commands(commands)
    add_play_commands(commands)
    add_player_commands(commands)
    add_backup_commands(commands)
    add_log_recovery_commands(commands)
    return parser


def _add_offline_commands(commands: Any) -> None:
    simulate = commands.add_parser("simulate", help="play many deals with an automatic policy")
    simulate.add_argument("--variant", default="osmosis", choices=list(PRESETS))
    simulate.add_argument("--first-deal", type=int, default=0, metavar="N")
    simulate.add_argument("--games", type=int, default=1000, metavar="M")
    simulate.add_argument("--policy", choices=("greedy", "random"), default="greedy")
    simulate.add_argument("--json", action="store_true", help="print JSON with the deal numbers won")
    simulate.set_defaults(run=_simulate)

    verify = commands.add_parser("verify", help="check a replay export offline (exit 0 when valid)")
    verify.add_argument("file", help="an osmosis-replay/1 JSON file, or - for standard input")
    verify.add_argument(
        "--budget",
        type=int,
        metavar="POSITIONS",
        help="search at most this many solver positions (re-deriving a winnable deal, recomputing "
        "hints); what it cannot pay for is reported unchecked (default: every check, however "
        "long it takes)",
    )
    verify.add_argument(
        "--log-key",
        metavar="KEY",
        help="the public log's verifier key (or a file holding it): also check that the export's "
        "transparency section proves the game is in a checkpoint this key signed",
    )
    verify.set_defaults(run=_verify)


def _add_server_commands(commands: Any) -> None:
    serve = commands.add_parser("serve", help="run the HTTP server under gunicorn")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=None, help="gunicorn workers (default WEB_CONCURRENCY or 4)")
    serve.set_defaults(run=_serve)

    migrate_command = commands.add_parser("migrate", help="apply the database migrations to DATABASE_URL")
    migrate_command.set_defaults(run=_migrate)

    openapi = commands.add_parser("openapi", help="print the OpenAPI document (openapi/openapi.json)")
    openapi.add_argument("--output", type=Path, help="write it to this file instead")
    openapi.set_defaults(run=_openapi)


def _deal(args: argparse.Namespace) -> int:
    deal = layout(shuffled_deck(*seeds_of(args)), preset(args.variant))
    if args.json:
        print(json.dumps(deal.to_dict()))
    else:
        print(_picture(deal, preset(args.variant).reserve_face_down))
    return 0


def _picture(deal: Layout, face_down: int) -> str:
    """The layout as a person lays it out; face-down cards in brackets."""
    lines = []
    for p in range(4):
        pile = deal.reserves[p] if p < len(deal.reserves) else ()
        cards = " ".join(f"[{card}]" if i < face_down else f" {card} " for i, card in enumerate(pile))
        foundation = str(deal.base) if p == 0 else "--"
        label = f"R{p + 1}" if pile else "  "
        lines.append(f"{label}  {cards:<19}   F{p + 1}  {foundation}")
    lines.append("")
    lines.append(f"stock ({len(deal.stock)}, first dealt first): {' '.join(str(card) for card in deal.stock)}")
    return "\n".join(lines)


def _simulate(args: argparse.Namespace) -> int:
    if args.games < 1 or args.first_deal < 0:
        print("osmosis: --games must be at least 1 and --first-deal at least 0", file=sys.stderr)
        return 2
    rules = preset(args.variant)
    progress = _Progress(args.games, sys.stderr) if sys.stderr.isatty() else None
    won_deals = []
    started = time.perf_counter()
    for number in range(args.first_deal, args.first_deal + args.games):
        state = numbered_opening(rules, number)
        final = play_greedy(state) if args.policy == "greedy" else play_random(state, random.Random(number))
        if final.status == "won":
            won_deals.append(number)
        if progress:
            progress.advance()
    elapsed = time.perf_counter() - started
    if progress:
        progress.close()
    low, high = wilson_interval(len(won_deals), args.games)
    if args.json:
        print(
            json.dumps(
                {
                    "variant": args.variant,
                    "policy": args.policy,
                    "first_deal": args.first_deal,
                    "games": args.games,
                    "wins": len(won_deals),
                    "win_rate": len(won_deals) / args.games,
                    "interval": {"confidence": 0.95, "low": low, "high": high},
                    "won_deals": won_deals,
                }
            )
        )
        return 0
    print(
        f"variant     {args.variant} ({args.policy} policy), deals {args.first_deal}.."
        f"{args.first_deal + args.games - 1}"
    )
    print(f"games       {args.games}")
    print(f"wins        {len(won_deals)}")
    print(f"win rate    {len(won_deals) / args.games:.2%} (95% CI {low:.2%} to {high:.2%})")
    print(f"speed       {args.games / elapsed:,.0f} games per second")
    return 0


def _serve(args: argparse.Namespace) -> int:
    """Migrate, then run gunicorn as a child; with no DATABASE_URL, around an embedded PostgreSQL. The public
    log's key is made here on first start, before any worker looks for it."""
    from ..store import (
        embedded,
        wal_archive,
    )  # the database's commands alone load psycopg: `osmosis deal` starts without it

    settings = Settings.from_env()
    print(f"osmosis: the public log's verifier key is {log_signer(settings).verifier.vkey}", flush=True)
    if settings.database_url is not None:
        return _run_gunicorn(args, settings.database_url, settings.data_dir)
    try:
        with embedded.running(settings.data_dir) as database_url:
            print(f"osmosis: embedded PostgreSQL in {settings.data_dir.resolve() / 'postgres'}", flush=True)
            with wal_archive.archiving(database_url, settings.wal_archive):
                if settings.wal_archive is not None:
                    print(f"osmosis: every commit is archived in {settings.wal_archive.resolve()}", flush=True)
                return _run_gunicorn(args, database_url, settings.data_dir)
    except (embedded.InUse, wal_archive.ArchiveAhead) as error:
        print(f"osmosis: {error}", file=sys.stderr)
        return 2


def _run_gunicorn(args: argparse.Namespace, database_url: str, data_dir: Path) -> int:
    from ..store import migrate

    try:
        migrate.upgrade(database_url)
    except migrate.DatabaseUnreachable as error:
        print(f"osmosis: {error}", file=sys.stderr)
        return 2
    command = [sys.executable, "-m", "gunicorn", "--config", str(GUNICORN_CONFIG), "--bind", f"{args.host}:{args.port}"]
    if args.workers is not None:
        command += ["--workers", str(args.workers)]
    gunicorn = subprocess.Popen(command, env={**os.environ, "DATABASE_URL": database_url})
    url = f"http://{args.host}:{args.port}"
    print(f"osmosis: serving on {url}/ (Ctrl-C to stop)", flush=True)

    def forward(signum: int, frame: object) -> None:
        gunicorn.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    # Where this server answers, for `osmosis play` in the same data directory (its database is this one's).
    serving = data_dir / SERVING_FILE
    serving.write_text(url + "\n")
    try:
        return gunicorn.wait()
    finally:
        serving.unlink(missing_ok=True)


VERIFY_INVALID = 1
VERIFY_INCOMPLETE = 3


def _verify(args: argparse.Namespace) -> int:
    """Exit 0: valid and complete; 1: invalid; 2: unreadable; 3: valid as far as checked (the game is not
    over yet, or a check was beyond --budget)."""
    if args.budget is not None and args.budget < 0:
        print("osmosis: --budget must be at least 0", file=sys.stderr)
        return 2
    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
        document = strict_json.loads(data)
    except (OSError, strict_json.JSONRefused) as error:
        print(f"osmosis: cannot read a replay from {args.file}: {error}", file=sys.stderr)
        return 2
    try:
        key = parse_verifier(read_key(args.log_key)) if args.log_key is not None else None
    except (OSError, NoteError) as error:
        print(f"osmosis: --log-key is not a verifier key: {error}", file=sys.stderr)
        return 2
    verdict = verify(document, args.budget)
    if verdict.valid and key is not None:
        try:
            where, unproven = verify_in_log(document, key)
        except ReplayError as error:
            print(f"INVALID in the public log: {error.reason}")
            return VERIFY_INVALID
        print(verdict.summary)
        print(f"Logged: {where}" + (f"; not proven yet: {'; '.join(unproven)}" if unproven else ""))
        return 0 if verdict.complete and not unproven else VERIFY_INCOMPLETE
    print(verdict.summary)
    if not verdict.valid:
        return VERIFY_INVALID
    return 0 if verdict.complete else VERIFY_INCOMPLETE


def _migrate(args: argparse.Namespace) -> int:
    from ..store import migrate

    settings = Settings.from_env()
    if settings.database_url is None:
        print("osmosis: DATABASE_URL is not set", file=sys.stderr)
        return 2
    try:
        migrate.upgrade(settings.database_url)
    except migrate.DatabaseUnreachable as error:
        print(f"osmosis: {error}", file=sys.stderr)
        return 2
    print(f"osmosis: database at migration {migrate.head_revision()}")
    return 0


def _openapi(args: argparse.Namespace) -> int:
    from ..api import openapi_document  # here, so that deal and simulate do not load Flask

    text = json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


class _Progress:
    """A one-line progress bar on a terminal, redrawn at most every tenth of a second."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.done, self.stream, self.drawn = total, 0, stream, 0.0

    def advance(self) -> None:
        self.done += 1
        now = time.monotonic()
        if now - self.drawn > 0.1 or self.done == self.total:
            self.drawn = now
            width = 40
            filled = width * self.done // self.total
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}")
            self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")


if __name__ == "__main__":
    sys.exit(main())
