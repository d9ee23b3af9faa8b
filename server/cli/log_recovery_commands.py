"""`osmosis log recover`: the public log's entries a restore took from its database, brought back from its tiles
(service/public_log/recovery.py); `osmosis log retire`: the log frozen and a new one started when they are gone for good
(service/public_log/retirement.py). docs/operations.md, "Recovering the log" and "Retiring a log"."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..runtime.log_files import LogFileError, TileDirectory, TileUrl, record_of, record_place, write_whole
from ..runtime.log_key import KEY_FILE, log_signer
from ..runtime.witnessing import witnesses_of
from ..service.public_log.guard import CheckpointRecord, ForkGuard
from ..service.public_log.log import PublicLog
from ..service.public_log.recovery import RecoveryError, TileSource, recover
from ..service.public_log.retirement import RetirementRefused, retire
from ..service.records import SignedCheckpoint
from ..service.sources import utc_now
from ..transparency.notes import NoteError, Signer, generate_signer, open_checkpoint, parse_signer
from .databases import database_url

if TYPE_CHECKING:
    from ..store import PostgresStore


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

    retiring = actions.add_parser(
        "retire",
        help="freeze the log (its entries lost for good) with a final checkpoint naming its successor, and start "
        "the new log under a new key (every server stopped)",
    )
    retiring.add_argument(
        "--new-key",
        type=Path,
        metavar="FILE",
        help="the successor's signing key (osmosis keygen); without it a new key is made and kept in the data "
        "directory, unless LOG_SIGNING_KEY is set",
    )
    retiring.add_argument(
        "--new-origin", metavar="NAME", help="the successor's origin, for a key made here (default <origin>/<date>)"
    )
    retiring.set_defaults(run=_retire)


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
                recovered = recover(
                    store,
                    verifier,
                    source,
                    [record.signed(), record.published()],
                    _progress,
                    [witness for witness, _ in witnesses_of(settings)],
                )
                # The record starts afresh where this deployment keeps it now (a tiles directory lost and made anew).
                store.claim_record_place(record_place(settings.log_tiles_dir or settings.data_dir), move=True)
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


def _successor(args: argparse.Namespace, settings: Settings, retired: Signer) -> Signer | None:
    """The key of the log that goes on: given (--new-key), or made here; None, said why, when neither can be."""
    if args.new_key is not None:
        try:
            return parse_signer(args.new_key.read_text())
        except (OSError, NoteError) as error:
            print(f"osmosis: --new-key is not a signing key: {error}", file=sys.stderr)
            return None
    if settings.log_signing_key is not None:
        print(
            "osmosis: LOG_SIGNING_KEY is set: make the successor's key (osmosis keygen) and give it as --new-key",
            file=sys.stderr,
        )
        return None
    return generate_signer(args.new_origin or f"{retired.name}/{utc_now():%Y-%m-%d}")


def _retire(args: argparse.Namespace) -> int:
    from ..store import PostgresStore, embedded, migrate, open_pool

    settings = Settings.from_env()
    retired = log_signer(settings)
    successor = _successor(args, settings, retired)
    if successor is None:
        return 2
    tiles = settings.log_tiles_dir
    try:
        with (
            embedded.running(settings.data_dir)
            if settings.database_url is None
            else contextlib.nullcontext(settings.database_url) as url
        ):
            pool = open_pool(url, min_size=1, max_size=2, timeout=30, statement_timeout_ms=0)
            try:
                store = PostgresStore(pool, migrate.head_revision())
                _refuse_a_log_that_signs(store, retired, settings)
                last = _last_published(store, retired, settings)
                retirement = retire(store, retired, successor, last)
                if tiles is not None and tiles.exists():
                    kept = tiles.with_name(f"{tiles.name}.retired-{retired.verifier.key_id:08x}")
                    tiles.rename(kept)
                    write_whole(kept / "checkpoint", retirement.final_checkpoint.encode())
                if args.new_key is None:
                    _keep_new_key(settings, retired, successor)
                first = _first_checkpoint(store, successor, settings)
                store.claim_record_place(record_place(settings.log_tiles_dir or settings.data_dir), move=True)
            finally:
                pool.close()
    except (RetirementRefused, LogFileError, OSError, embedded.InUse) as error:
        print(f"osmosis: the log is not retired: {error}", file=sys.stderr)
        return 1
    print(
        f"osmosis: the log {retired.name} is retired at {last.size} entries; its final checkpoint names its successor"
    )
    print(f"osmosis: the new log {successor.name} begins at {first} entries; its verifier key, for clients to pin:")
    print(successor.verifier.vkey)
    if args.new_key is not None or settings.log_signing_key is not None:
        print("osmosis: set LOG_SIGNING_KEY to the new key on every instance before starting them")
    print("osmosis: ask its witnesses to follow the new key (LOG_WITNESSES), then start the servers")
    return 0


def _refuse_a_log_that_signs(store: PostgresStore, log_key: Signer, settings: Settings) -> None:
    """RetirementRefused unless the log of `log_key` is stuck: retired already, or its tree behind or off what it
    handed out (a retirement is for entries gone for good, never for a log that signs: run twice, it would retire
    the successor the first one announced)."""
    for retirement in store.log_retirements():
        if retirement.verifier_key == log_key.verifier.vkey:
            raise RetirementRefused(
                f"the log {log_key.name} was retired already ({retirement.retired_at:%Y-%m-%d %H:%M} UTC), succeeded "
                f"by {retirement.successor_key}: nothing to retire"
            )
    records: list[tuple[str, CheckpointRecord]] = [("its record", record_of(settings.data_dir, log_key.verifier))]
    if settings.log_tiles_dir is not None:
        records.append(("its tiles directory", TileDirectory(settings.log_tiles_dir)))
    guard = ForkGuard(log_key.verifier, records)
    log = PublicLog(store, store, log_key, records=[record for _, record in records], guard=guard)
    if log.status() == "ok":
        raise RetirementRefused(
            f"the log {log_key.name} signs: its tree agrees with every checkpoint it handed out. A log is retired "
            "only when entries it published are gone for good (osmosis log recover could not bring them back)"
        )


def _last_published(store: PostgresStore, retired: Signer, settings: Settings) -> SignedCheckpoint:
    """The largest checkpoint the retired log handed out: its record's, its tiles', its database's."""
    record = record_of(settings.data_dir, retired.verifier)
    candidates = [record.signed(), record.published()]
    if settings.log_tiles_dir is not None:
        candidates.append(TileDirectory(settings.log_tiles_dir).published())
    candidates.append(store.latest_checkpoint())
    ours = []
    for candidate in candidates:
        if candidate is None:
            continue
        try:
            open_checkpoint(candidate.note, retired.verifier)
        except NoteError:
            continue
        ours.append(candidate)
    if not ours:
        raise RetirementRefused("the log has no checkpoint to retire")
    return max(ours, key=lambda checkpoint: checkpoint.size)


def _keep_new_key(settings: Settings, retired: Signer, successor: Signer) -> None:
    key_file = settings.data_dir / KEY_FILE
    key_file.rename(key_file.with_name(f"{KEY_FILE}.retired-{retired.verifier.key_id:08x}"))
    descriptor = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(successor.skey + "\n")


def _first_checkpoint(store: PostgresStore, successor: Signer, settings: Settings) -> int:
    """The new log's first checkpoint, signed now (its first entry names the retired log): /log/checkpoint serves
    the new log from the first request."""
    record = record_of(settings.data_dir, successor.verifier)
    tiles = TileDirectory(settings.log_tiles_dir) if settings.log_tiles_dir is not None else None
    records: list[CheckpointRecord] = [record, *([tiles] if tiles is not None else [])]
    log = PublicLog(store, store, successor, spacing=0, records=records, mirror=tiles)
    signed = log.sequence()
    assert signed is not None, "the new log's first entry is pending"
    return signed.size
