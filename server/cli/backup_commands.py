"""`osmosis backup DIR` and `osmosis restore DIR`: one server's database backed up while it serves, and the embedded
one rebuilt from a backup and its WAL archive (store/backups.py; docs/operations.md, "Backups and restores")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..config import Settings
from ..runtime.log_key import KEY_FILE
from .databases import database_url


def add_commands(commands: Any) -> None:
    backup = commands.add_parser(
        "backup",
        help="take an online base backup of the server's database (DATABASE_URL, or the embedded one, served or "
        "not) into a new directory",
    )
    backup.add_argument("directory", type=Path, help="a new or empty directory for the backup")
    backup.set_defaults(run=_backup)

    restore = commands.add_parser(
        "restore",
        help="rebuild the embedded database (server stopped, its database gone) from a backup, replaying "
        "OSMOSIS_WAL_ARCHIVE to its end or to --target-time",
    )
    restore.add_argument("directory", type=Path, help="a backup `osmosis backup` made")
    restore.add_argument(
        "--target-time",
        metavar="TIME",
        help="stop replaying at this time (e.g. '2026-11-27 09:30:00+00'), not at the archive's end",
    )
    restore.set_defaults(run=_restore)


def _backup(args: argparse.Namespace) -> int:
    from ..store import backups, embedded  # the database's commands alone load psycopg

    settings = Settings.from_env()
    key_file = settings.data_dir / KEY_FILE if settings.log_signing_key is None else None
    try:
        with database_url(settings) as url:
            manifest = backups.take(url, args.directory, key_file)
    except (backups.BackupError, embedded.InUse) as error:
        print(f"osmosis: {error}", file=sys.stderr)
        return 2
    print(f"osmosis: backup taken in {args.directory} (from {manifest['started_at']} to {manifest['finished_at']})")
    if manifest["log_signing_key"]:
        print("osmosis: it holds the public log's signing key: keep it as you keep the key")
    return 0


def _restore(args: argparse.Namespace) -> int:
    from ..store import backups, embedded

    settings = Settings.from_env()
    if settings.database_url is not None:
        print(
            "osmosis: restore rebuilds the embedded PostgreSQL; a server of your own (DATABASE_URL) is restored "
            "with its own tools: see docs/operations.md, pgBackRest",
            file=sys.stderr,
        )
        return 2
    try:
        restored = backups.restore(settings.data_dir, args.directory, settings.wal_archive, args.target_time)
    except (backups.BackupError, embedded.InUse) as error:
        print(f"osmosis: {error}", file=sys.stderr)
        return 2
    print(
        f"osmosis: restored from {args.directory} to {restored.recovered_to} (timeline {restored.timeline}); "
        "`osmosis serve` goes on from there, and its public log signs again once its tree reaches what it "
        "published (osmosis log recover)"
    )
    return 0
