"""The public transparency log on PostgreSQL (the PublicLogStore port): its one sequencer, its tiles and bundles,
its checkpoints and their cosignatures. PostgresStore has these methods."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol
from uuid import UUID

import psycopg
from psycopg.rows import tuple_row

from ..game.records import PublicEntry
from ..service.ports import Integrate
from ..service.public_log.recovery import RecoveryError
from ..service.public_log.retirement import RetirementRefused
from ..service.records import LogGrowth, PendingEntry, Retirement, SignedCheckpoint
from ..transparency.merkle import leaf_hash
from ..transparency.tiles import bundle_entries, partial_tiles
from . import sql

SEQUENCER_LOCK_KEY = 0x6F736D6F7369736C  # "osmosisl"
RECORD_PLACE_LOCK_KEY = 0x6F736D6F73697370  # "osmosisp"


class _Connections(Protocol):
    def _connection(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...

    def _transaction(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...

    def _confirm_replicated(self) -> None: ...

    _replicated_size: int


def insert_pending(conn: psycopg.Connection[Any], entry: PublicEntry | None) -> None:
    if entry is not None:
        conn.execute(sql.INSERT_PENDING_ENTRY, {"subject": entry.subject, "kind": entry.kind, "entry": entry.entry})


class PublicLogTables:
    def sequence(self: _Connections, limit: int, spacing: float, integrate: Integrate) -> LogGrowth | None:
        with self._transaction() as conn:
            if not conn.execute(sql.SEQUENCER_LOCK, {"key": SEQUENCER_LOCK_KEY}).fetchone()["locked"]:  # type: ignore[index]
                return None
            row = conn.execute(sql.SELECT_LATEST_CHECKPOINT, {"spacing": spacing}).fetchone()
            if row is not None and row["recent"]:
                return None
            latest = None if row is None else SignedCheckpoint(row["size"], bytes(row["root"]), row["note"])
            pending = [
                PendingEntry(r["id"], PublicEntry(r["subject"], r["kind"], bytes(r["entry"])))
                for r in conn.execute(sql.SELECT_PENDING_ENTRIES, {"limit": limit}).fetchall()
            ]
            growth = integrate(latest, pending, _partial_tiles(conn, latest.size if latest else 0))
            if growth is None:
                return None
            _write(conn, growth, [p.id for p in pending])
            return growth

    def recover_log(self: _Connections, size: int, growth: LogGrowth, cosignatures: Sequence[tuple[str, str]]) -> int:
        with self._transaction() as conn:
            conn.execute(sql.SEQUENCER_LOCK_WAIT, {"key": SEQUENCER_LOCK_KEY})
            now = conn.cursor(row_factory=tuple_row).execute(sql.SELECT_LOG_SIZE).fetchone()
            if now is None or now[0] != size:
                raise RecoveryError(f"the log grew from {size} meanwhile: run the recovery again")
            _write(conn, growth, [])
            for witness, line in cosignatures:
                conn.execute(sql.INSERT_COSIGNATURE, {"size": growth.checkpoint.size, "witness": witness, "line": line})
            conn.execute(sql.PUBLISH_CHECKPOINT, {"size": growth.checkpoint.size})
            taken = conn.execute(sql.DELETE_PENDING_LOGGED, {"entries": [entry.entry for _, entry in growth.leaves]})
            return taken.rowcount

    def retire_log(self: _Connections, retirement: Retirement, entry: PublicEntry) -> None:
        with self._transaction() as conn:
            conn.execute(sql.SEQUENCER_LOCK_WAIT, {"key": SEQUENCER_LOCK_KEY})
            inserted = conn.execute(
                sql.INSERT_RETIREMENT,
                {
                    "origin": retirement.origin,
                    "verifier_key": retirement.verifier_key,
                    "final_checkpoint": retirement.final_checkpoint,
                    "successor_origin": retirement.successor_origin,
                    "successor_key": retirement.successor_key,
                },
            )
            if inserted.rowcount != 1:
                raise RetirementRefused(f"the log {retirement.origin} was retired already")
            insert_pending(conn, entry)

    def claim_record_place(self: _Connections, place: str, *, move: bool = False) -> str:
        with self._transaction() as conn:
            conn.execute(sql.RECORD_PLACE_LOCK, {"key": RECORD_PLACE_LOCK_KEY})
            row = conn.cursor(row_factory=tuple_row).execute(sql.LATEST_RECORD_PLACE).fetchone()
            if row is not None and (row[0] == place or not move):
                return str(row[0])
            conn.execute(sql.CLAIM_RECORD_PLACE, {"place": place})
            return place

    def log_retirements(self: _Connections) -> list[Retirement]:
        with self._connection() as conn:
            rows = conn.execute(sql.SELECT_RETIREMENTS).fetchall()
        return [
            Retirement(
                row["origin"],
                row["verifier_key"],
                row["final_checkpoint"],
                row["successor_origin"],
                row["successor_key"],
                row["retired_at"],
            )
            for row in rows
        ]

    def has_pending_entries(self: _Connections) -> bool:
        with self._connection() as conn:
            row = conn.cursor(row_factory=tuple_row).execute(sql.ANY_PENDING_ENTRY).fetchone()
        return bool(row and row[0])

    def published_checkpoint(self: _Connections) -> SignedCheckpoint | None:
        return _checkpoint(self, sql.SELECT_PUBLISHED_CHECKPOINT)

    def latest_checkpoint(self: _Connections, *, confirmed: bool = True) -> SignedCheckpoint | None:
        return _checkpoint(self, sql.SELECT_LATEST_SIGNED, confirmed)

    def publish_checkpoint(self: _Connections, witnesses: Sequence[str]) -> None:
        with self._transaction() as conn:
            row = (
                conn.execute(sql.SELECT_PUBLISHABLE, {"witnesses": list(witnesses)}).fetchone()
                or conn.execute(sql.SELECT_FIRST_TO_PUBLISH).fetchone()
            )
            if row is not None and row["size"] is not None:
                conn.execute(sql.PUBLISH_CHECKPOINT, {"size": row["size"]})

    def cosigned_size(self: _Connections, witness: str) -> int:
        with self._connection() as conn:
            row = conn.cursor(row_factory=tuple_row).execute(sql.SELECT_COSIGNED_SIZE, {"witness": witness}).fetchone()
        return int(row[0]) if row else 0

    def add_cosignature(self: _Connections, size: int, witness: str, line: str) -> None:
        with self._connection() as conn:
            conn.execute(sql.INSERT_COSIGNATURE, {"size": size, "witness": witness, "line": line})

    def read_tile(self: _Connections, level: int, index: int) -> bytes:
        with self._connection() as conn:
            row = (
                conn.cursor(row_factory=tuple_row).execute(sql.SELECT_TILE, {"level": level, "index": index}).fetchone()
            )
        return bytes(row[0]) if row else b""

    def read_bundle(self: _Connections, index: int) -> bytes:
        with self._connection() as conn:
            row = conn.cursor(row_factory=tuple_row).execute(sql.SELECT_BUNDLE, {"index": index}).fetchone()
        return bytes(row[0]) if row else b""

    def leaves_of(self: _Connections, subjects: Collection[UUID]) -> list[tuple[int, str]]:
        with self._connection() as conn:
            rows = (
                conn.cursor(row_factory=tuple_row)
                .execute(sql.SELECT_LEAVES_OF, {"subjects": list(subjects)})
                .fetchall()
            )
        return [(int(index), str(kind)) for index, kind in rows]


def _checkpoint(store: _Connections, query: str, confirmed: bool = True) -> SignedCheckpoint | None:
    with store._connection() as conn:
        row = conn.execute(query).fetchone()
    if row is None:
        return None
    checkpoint = SignedCheckpoint(row["size"], bytes(row["root"]), row["note"], tuple(row["cosignatures"]))
    if confirmed and checkpoint.size > store._replicated_size:
        # Served, offered to a witness or proven against, a checkpoint is a promise: one lost in a failover, and
        # signed again over other entries, is a fork. Once a size is confirmed on the standby, so is every smaller.
        store._confirm_replicated()
        store._replicated_size = max(store._replicated_size, checkpoint.size)
    return checkpoint


def _partial_tiles(conn: psycopg.Connection[Any], size: int) -> dict[int, bytes]:
    """The hashes of the partial tiles of the tree of `size` by level, and its partial entry bundle at -1."""
    addresses = partial_tiles(size)
    partial: dict[int, bytes] = {}
    if addresses:
        rows = (
            conn.cursor(row_factory=tuple_row)
            .execute(
                sql.SELECT_TILES, {"levels": [a.level for a in addresses], "indexes": [a.index for a in addresses]}
            )
            .fetchall()
        )
        widths = {a.level: a.width or 0 for a in addresses}
        partial = {level: bytes(hashes)[: 32 * widths[level]] for level, hashes in rows}
    if size % 256:
        row = conn.cursor(row_factory=tuple_row).execute(sql.SELECT_BUNDLE, {"index": size // 256}).fetchone()
        partial[-1] = bytes(row[0]) if row else b""
    return partial


def _write(conn: psycopg.Connection[Any], growth: LogGrowth, taken: Sequence[int]) -> None:
    tiles = sorted(growth.tiles.items())
    bundles = sorted(growth.bundles.items())
    with conn.pipeline():
        if tiles:
            conn.execute(
                sql.UPSERT_TILES,
                {
                    "levels": [level for (level, _), _ in tiles],
                    "indexes": [index for (_, index), _ in tiles],
                    "hashes": [hashes for _, hashes in tiles],
                },
            )
        if bundles:
            conn.execute(
                sql.UPSERT_BUNDLES,
                {
                    "indexes": [index for index, _ in bundles],
                    "widths": [_bundle_width(entries) for _, entries in bundles],
                    "entries": [entries for _, entries in bundles],
                },
            )
        if growth.leaves:
            conn.execute(
                sql.INSERT_LEAVES,
                {
                    "indexes": [index for index, _ in growth.leaves],
                    "subjects": [entry.subject for _, entry in growth.leaves],
                    "kinds": [entry.kind for _, entry in growth.leaves],
                    "hashes": [leaf_hash(entry.entry) for _, entry in growth.leaves],
                },
            )
        checkpoint = growth.checkpoint
        conn.execute(sql.INSERT_CHECKPOINT, {"size": checkpoint.size, "root": checkpoint.root, "note": checkpoint.note})
        if taken:
            conn.execute(sql.DELETE_PENDING_ENTRIES, {"ids": list(taken)})


def _bundle_width(bundle: bytes) -> int:
    return len(bundle_entries(bundle))
