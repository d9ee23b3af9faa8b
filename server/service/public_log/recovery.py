"""The public log recovered after a restore: the entries its database lacks, read back from its tiles (LOG_TILES_DIR,
or a URL serving them), checked to make exactly the tree of the last checkpoint it published, and written back with
that checkpoint, so that the sequencer goes on from it. Nothing is signed: the checkpoint is the one handed out.

Entries still pending in the restored database that the log had already integrated before the loss are taken off
the pending list (they are in the recovered tree); the others (games played since the restore) stay pending and
follow the recovered checkpoint."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol
from uuid import UUID

from ...game.records import PublicEntry
from ...log.public_entries import parse_entry, subject_of
from ...transparency.merkle import tree_hash
from ...transparency.notes import NoteError, Verifier, open_checkpoint, parse_note, parse_signature_line
from ...transparency.tiles import ENTRIES, TILE_WIDTH, TileAddress, bundle_entries, grown, partial_tiles, tile_subtrees
from ..ports import PublicLogStore
from ..records import LogGrowth, SignedCheckpoint


class RecoveryError(RuntimeError):
    """The log cannot be recovered from what was given: its message says why."""


class TileSource(Protocol):
    """Where the log's tiles were also written: a directory, or a URL serving them."""

    def read(self, address: TileAddress) -> bytes | None: ...

    def published(self) -> SignedCheckpoint | None: ...


class RecoveringStore(PublicLogStore, Protocol):
    def recover_log(self, size: int, growth: LogGrowth, cosignatures: Sequence[tuple[str, str]]) -> int:
        """Under the sequencer's lock, with the latest checkpoint still of `size`: write `growth` and its
        checkpoint (with `cosignatures`, (witness, line)), publish it, and take its entries off the pending list.
        Returns how many pending entries that took off; RecoveryError if the log moved meanwhile."""
        ...


@dataclass(frozen=True, slots=True)
class Recovered:
    from_size: int
    to_size: int
    pending_taken: int


def recover(
    store: RecoveringStore,
    verifier: Verifier,
    source: TileSource,
    published: Sequence[SignedCheckpoint | None],
    progress: Callable[[int, int], None] = lambda done, total: None,
    witnesses: Sequence[Verifier] = (),
) -> Recovered:
    """Bring the log's database up to the largest checkpoint of `published` (those recorded outside the database)
    and the source's own, each checked against the log's key, keeping only the cosignatures that verify against
    `witnesses`' keys (a tiles directory or a mirror is no witness: what it says was cosigned is checked)."""
    target = _target(verifier, [*published, source.published()], witnesses)
    latest = store.latest_checkpoint()
    size = latest.size if latest is not None else 0
    if target.size <= size:
        root = latest.root if latest is not None and target.size == size else _root_at(store, target.size)
        if root != target.root:
            raise RecoveryError(
                f"the database's tree diverges from the checkpoint of size {target.size}: recovery cannot help; "
                "retire the log (osmosis log retire)"
            )
        return Recovered(size, size, 0)

    entries = _entries(source, size, target.size, progress)
    edge = _edge(store, size)
    tiles, bundles = grown(size, edge, entries)
    known = {(a.level, a.index): edge[a.level] for a in partial_tiles(size)}
    known.update({(a.level, a.index): hashes for a, hashes in tiles.items()})
    root = tree_hash(target.size, tile_subtrees(lambda level, index: known.get((level, index), b"")))
    if root != target.root:
        raise RecoveryError(
            f"the tiles' entries {size} to {target.size} do not make the tree of the checkpoint of size "
            f"{target.size}: they are not this log's"
        )
    leaves = []
    for offset, entry in enumerate(entries):
        try:
            parsed = parse_entry(entry)
        except ValueError as error:
            raise RecoveryError(f"entry {size + offset} is not one this log writes: {error}") from None
        leaves.append((size + offset, PublicEntry(UUID(subject_of(parsed)), parsed["kind"], entry)))
    growth = LogGrowth({(a.level, a.index): hashes for a, hashes in tiles.items()}, bundles, leaves, target)
    cosignatures = [(parse_signature_line(line).name, line) for line in target.cosignatures]
    taken = store.recover_log(size, growth, cosignatures)
    return Recovered(size, target.size, taken)


def _cosigned_by(checkpoint: SignedCheckpoint, witnesses: Sequence[Verifier]) -> SignedCheckpoint:
    """`checkpoint` with only the cosignatures of `witnesses` that verify over it."""
    text = parse_note(checkpoint.note).text
    kept = []
    for line in checkpoint.cosignatures:
        try:
            signature = parse_signature_line(line)
        except NoteError:
            continue
        for witness in witnesses:
            if (witness.name, witness.key_id) == (signature.name, signature.key_id) and witness.verifies(
                text, signature.signature
            ):
                kept.append(line)
                break
    return replace(checkpoint, cosignatures=tuple(kept))


def _target(
    verifier: Verifier, candidates: Sequence[SignedCheckpoint | None], witnesses: Sequence[Verifier]
) -> SignedCheckpoint:
    checked = []
    for candidate in candidates:
        if candidate is None:
            continue
        try:
            open_checkpoint(candidate.note + "".join(candidate.cosignatures), verifier)
        except NoteError as error:
            raise RecoveryError(f"a checkpoint to recover to is not this log's: {error}") from None
        checked.append(_cosigned_by(candidate, witnesses))
    if not checked:
        raise RecoveryError("no checkpoint to recover to: neither the record beside the key nor the tiles hold one")
    return max(checked, key=lambda checkpoint: (checkpoint.size, len(checkpoint.cosignatures)))


def _entries(source: TileSource, start: int, end: int, progress: Callable[[int, int], None]) -> list[bytes]:
    entries: list[bytes] = []
    for index in range(start // TILE_WIDTH, (end - 1) // TILE_WIDTH + 1):
        width = min(TILE_WIDTH, end - index * TILE_WIDTH)
        # The bundle as wide as the checkpoint needs, or any wider one written later (a full one last).
        candidates = [width, TILE_WIDTH, *range(width + 1, TILE_WIDTH)] if width < TILE_WIDTH else [TILE_WIDTH]
        bundle = next(
            (
                found
                for found in (
                    source.read(TileAddress(ENTRIES, index, None if w == TILE_WIDTH else w)) for w in candidates
                )
                if found is not None
            ),
            None,
        )
        if bundle is None:
            raise RecoveryError(
                f"the tiles lack the entry bundle {index} (entries from {index * TILE_WIDTH}, {width} of them): the "
                "entries are gone; retire the log (osmosis log retire)"
            )
        try:
            found = bundle_entries(bundle)
        except ValueError as error:
            raise RecoveryError(f"the entry bundle {index} is damaged: {error}") from None
        if len(found) < width:
            raise RecoveryError(f"the entry bundle {index} holds {len(found)} entries, not {width}")
        first = max(start - index * TILE_WIDTH, 0)
        entries += found[first:width]
        progress(len(entries), end - start)
    return entries


def _edge(store: PublicLogStore, size: int) -> dict[int, bytes]:
    """The partial tiles of the database's tree of `size`, as the sequencer reads them."""
    edge = {a.level: store.read_tile(a.level, a.index)[: 32 * (a.width or 0)] for a in partial_tiles(size)}
    if size % TILE_WIDTH:
        edge[ENTRIES] = store.read_bundle(size // TILE_WIDTH)
    return edge


def _root_at(store: PublicLogStore, size: int) -> bytes:
    return tree_hash(size, tile_subtrees(store.read_tile))
