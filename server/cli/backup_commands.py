"""`osmosis backup DIR` and `osmosis restore DIR`: one server's database backed up while it serves, and the embedded
one rebuilt from a backup and its WAL archive (store/backups.py; docs/operations.md, "Backups and restores")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..runtime.log_key import KEY_FILE
from .databases import database_url

if TYPE_CHECKING:
    from ..store.backups import Restored


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
        "--with-log-key",
        action="store_true",
        help="also put the public log's signing key the backup holds into the data directory: for restoring the "
        "production server itself, never for a drill (a drill without it can never sign as your log)",
    )
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
    if settings.database_url is None and not (settings.data_dir / "postgres" / "PG_VERSION").exists():
        # Started for the command, the embedded server would be a new, empty one: a backup of nothing.
        print(
            f"osmosis: no database in {settings.data_dir.resolve() / 'postgres'}: set OSMOSIS_DATA_DIR to the data "
            "directory `osmosis serve` uses (a relative one is read from where the command runs), or DATABASE_URL",
            file=sys.stderr,
        )
        return 2
    try:
        with database_url(settings) as url:
            manifest = backups.take(url, args.directory, key_file)
    except (backups.BackupError, embedded.InUse) as error:
        print(f"osmosis: {error}", file=sys.stderr)
        return 2
    print(
        f"osmosis: backup taken in {args.directory.resolve()} (from {manifest['started_at']} to "
        f"{manifest['finished_at']}): {manifest['games']} games, the public log at {manifest['log_size']} entries"
    )
    if manifest["log_signing_key"]:
        print("osmosis: it holds the public log's signing key: keep it as you keep the key")
    return 0


def _say_restored(settings: Settings, directory: Path, restored: Restored) -> None:
    """What was restored: from which backup, to which moment, and whether the log's key came back."""
    backup = restored.backup
    print(f"osmosis: restored into {settings.data_dir.resolve() / 'postgres'} from {directory.resolve()}")
    print(
        f"osmosis: the backup (taken {backup.get('started_at')} to {backup.get('finished_at')}) held "
        f"{backup.get('games', 'an unrecorded number of')} games and the public log at "
        f"{backup.get('log_size', 'an unrecorded')} entries"
    )
    if restored.recovered_to is None:
        why = "OSMOSIS_WAL_ARCHIVE is not set" if settings.wal_archive is None else "the archive had nothing after it"
        print(
            f"osmosis: restored to the backup's end ({backup.get('finished_at')}): no WAL replayed ({why}); "
            f"timeline {restored.timeline}"
        )
    else:
        print(
            f"osmosis: restored to {restored.recovered_to}, the last transaction replayed from the WAL archive "
            f"(timeline {restored.timeline})"
        )
    if restored.log_key_restored:
        print(f"osmosis: the public log's signing key restored into {settings.data_dir.resolve() / KEY_FILE}")
    elif (settings.data_dir / KEY_FILE).exists() or settings.log_signing_key is not None:
        print("osmosis: the public log signs with the key this data directory (or LOG_SIGNING_KEY) already has")
    else:
        print(
            "osmosis: the public log's signing key was NOT restored: a server here signs nothing as the restored "
            "log (a drill cannot sign as production); restoring production itself, add --with-log-key"
        )


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
        restored = backups.restore(
            settings.data_dir,
            args.directory,
            settings.wal_archive,
            args.target_time,
            with_log_key=args.with_log_key,
        )
    except (backups.BackupError, embedded.InUse) as error:
        print(f"osmosis: {error}", file=sys.stderr)
        return 2
    _say_restored(settings, args.directory, restored)
    print(
        "osmosis: `osmosis serve` goes on from here; its public log signs again once its tree reaches what it "
        "published (osmosis log recover)"
    )
    return 0
