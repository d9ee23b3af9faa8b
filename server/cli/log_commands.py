"""The public log's commands: `osmosis audit` (a monitor) and `osmosis log-key` (the verifier key to pin)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import Any
from uuid import UUID

from ..config import Settings
from ..monitor.audit import Fetch, MonitorState, audit
from ..monitor.competition import audit_competition
from ..runtime.log_key import log_signer
from ..transparency.notes import NoteError, Verifier, parse_verifier

MAX_BODY = 64 * 1024 * 1024


def add_commands(commands: Any) -> None:
    monitor = commands.add_parser("audit", help="monitor a server's public log (exit 0 when every check holds)")
    monitor.add_argument("url", help="the server's base URL, e.g. https://osmosis.example")
    monitor.add_argument("--log-key", required=True, metavar="KEY", help="the log's verifier key (or its file)")
    monitor.add_argument(
        "--state",
        type=Path,
        metavar="FILE",
        help="where the monitor keeps what it has checked (made on the first run); needed but with --competition",
    )
    monitor.add_argument(
        "--competition",
        type=UUID,
        metavar="ID",
        help="instead, recompute this closed competition from the whole log and its games' exports (the field, "
        "every game, the clocks, the ranking and its root) and compare the served results with it",
    )
    monitor.add_argument(
        "--witness-key",
        action="append",
        default=[],
        metavar="KEY",
        help="require this witness's cosignature on the checkpoint (repeatable)",
    )
    monitor.add_argument(
        "--board",
        action="append",
        default=[],
        metavar="DAY",
        type=_day,
        help="also recompute the boards of this closed UTC day (2026-11-24) from the log and the "
        "games' exports, and compare them with the boards served (repeatable)",
    )
    monitor.add_argument("--json", action="store_true", help="print the report as JSON")
    monitor.set_defaults(run=_audit)

    key = commands.add_parser("log-key", help="print the public log's verifier key, the string clients pin")
    key.set_defaults(run=_log_key)


def _day(text: str) -> str:
    try:
        return date.fromisoformat(text).isoformat() if len(text) == 10 else date.fromisoformat("").isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day: write it as 2026-11-24") from None


def read_key(given: str) -> str:
    """A key given as it is, or as the file that holds it."""
    path = Path(given)
    return path.read_text().strip() if "+" not in given and path.is_file() else given


def _progress(done: int, total: int) -> None:
    """A bar of the entries checked, on a terminal."""
    if sys.stderr.isatty() and total and (done == total or done % 256 == 0):
        filled = 40 * done // total
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (40 - filled)}] {done}/{total} entries")
        sys.stderr.write("\n" if done == total else "")
        sys.stderr.flush()


def _audit(args: argparse.Namespace) -> int:
    try:
        key = parse_verifier(read_key(args.log_key))
        witnesses = [parse_verifier(read_key(w)) for w in args.witness_key]
    except (OSError, NoteError) as error:
        print(f"osmosis: not a verifier key: {error}", file=sys.stderr)
        return 2
    fetch = _fetcher(args.url)
    if args.competition is not None:
        return _audit_competition(fetch, key, args.competition, args.json)
    if args.state is None:
        print("osmosis: audit needs --state FILE (or --competition ID)", file=sys.stderr)
        return 2
    try:
        state = MonitorState.from_json(args.state.read_text()) if args.state.exists() else MonitorState()
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"osmosis: cannot read the monitor's state {args.state}: {error}", file=sys.stderr)
        return 2
    report = audit(fetch, key, witnesses, state, _progress, args.board)
    if report.ok:
        draft = args.state.with_name(args.state.name + ".new")
        draft.write_text(state.to_json())
        os.replace(draft, args.state)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    elif report.retired is not None:
        print(("RETIRED: " if report.ok else "FAILED, RETIRED: ") + report.retired)
        for problem in report.problems:
            print("        " + problem)
    elif report.ok and report.stale_view is not None:
        print(f"OK, {report.stale_view}")
    elif report.ok:
        boards = f", {report.board_rows_checked} board rows recomputed" if args.board else ""
        print(
            f"OK: checkpoint of size {report.checkpoint_size}, {report.new_entries} new entries checked, "
            f"{report.games_verified} finished games verified{boards}"
        )
    else:
        print("FAILED: " + "\n        ".join(report.problems))
        if report.split_view:
            print("Evidence, two checkpoints the log signed that cannot both be its own:")
            print("\n".join(report.split_view))
    return 0 if report.ok else 1


def _fetcher(url: str) -> Fetch:
    base = url.rstrip("/")

    def fetch(path: str) -> bytes:
        try:
            with urllib.request.urlopen(base + path, timeout=30) as response:
                return bytes(response.read(MAX_BODY))
        except urllib.error.HTTPError as error:
            raise OSError(f"{path} answered {error.code}") from None
        except urllib.error.URLError as error:
            raise OSError(f"{path}: {error.reason}") from None

    return fetch


def _audit_competition(fetch: Fetch, key: Verifier, competition_id: UUID, as_json: bool) -> int:
    report = audit_competition(fetch, key, competition_id)
    if as_json:
        print(json.dumps(asdict(report), indent=2))
    elif report.ok:
        print(
            f"OK: competition {competition_id}: {report.entrants} entrants, {report.games_verified} games verified, "
            f"the ranking recomputed to standings root {report.standings_root}, the served results agree "
            f"(checkpoint of size {report.checkpoint_size})"
        )
    else:
        print(f"FAILED: competition {competition_id}: {report.problem}")
    return 0 if report.ok else 1


def _log_key(args: argparse.Namespace) -> int:
    print(log_signer(Settings.from_env()).verifier.vkey)
    return 0
