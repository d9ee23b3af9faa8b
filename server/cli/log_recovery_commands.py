"""`osmosis log recover`: the public log's entries a restore took from its database, brought back from its tiles
(service/log_recovery.py; docs/operations.md, "Recovering the log")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..config import Settings
from ..runtime.log_files import LogFileError, TileDirectory, TileUrl, record_of
from ..runtime.log_key import log_signer
from ..service.log_recovery import RecoveryError, TileSource, recover
from .databases import database_url


def add_commands(commands: Any) -> None:
    log = commands.add_parser("log", help="the public log's recovery after a restore")
    actions = log.add_subparsers(required=True, metavar="ACTION")
    recovering = actions.add_parser(
        "recover",
        help="bring back the entries the database lacks from the log's tiles, checked against the last "
        "checkpoint published (the server may be running)",
    )
    recovering.add_argument(
        "--from",
        dest="source",
        metavar="DIR_OR_URL",
        help="the tiles: a directory (default LOG_TILES_DIR) or a URL serving them (https://.../log)",
    )
    recovering.set_defaults(run=_recover)


def _recover(args: argparse.Namespace) -> int:
    from ..store import PostgresStore, embedded, migrate, open_pool

    settings = Settings.from_env()
    source: TileSource
    directory = Path(args.source) if args.source is not None else settings.log_tiles_dir
    if args.source is not None and args.source.startswith(("http://", "https://")):
        source = TileUrl(args.source)
    elif directory is not None:
        source = TileDirectory(directory)
    else:
        print("osmosis: no tiles to recover from: give --from, or set LOG_TILES_DIR", file=sys.stderr)
        return 2
    verifier = log_signer(settings).verifier
    record = record_of(settings.data_dir, verifier)
    try:
        with database_url(settings) as url:
            pool = open_pool(url, min_size=1, max_size=2, timeout=30, statement_timeout_ms=0)
            try:
                store = PostgresStore(pool, migrate.head_revision())
                recovered = recover(store, verifier, source, [record.signed(), record.published()], _progress)
            finally:
                pool.close()
    except (RecoveryError, LogFileError, OSError, ValueError, embedded.InUse) as error:
        print(f"osmosis: the log is not recovered: {error}", file=sys.stderr)
        return 1
    if recovered.to_size == recovered.from_size:
        print(f"osmosis: nothing to recover: the database's log reaches {recovered.to_size} entries and agrees")
    else:
        print(
            f"osmosis: the log recovered from {recovered.from_size} to {recovered.to_size} entries, checked against "
            f"its checkpoint of {recovered.to_size}; {recovered.pending_taken} pending entries were in it already. "
            "The sequencer signs on from there."
        )
    return 0


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{done}/{total} entries read" + ("\n" if done == total else ""))
        sys.stderr.flush()
