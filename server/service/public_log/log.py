"""The public transparency log's use cases: sequencing what the games' writes recorded as pending into the
Merkle tree and signing its checkpoint; serving the checkpoint, tiles and bundles, a game's proofs, and a
consistency proof. The tree's algorithms are server/transparency's; the format of entries, log/public_entries.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from ...log.public_entries import DAILY_DEAL_OPENED, DEAL_SEALED, GAME_CREATED, GAME_ENDED, daily_deal_id
from ...transparency.merkle import Subtree, consistency_proof, inclusion_proof, leaf_hash, tree_hash
from ...transparency.notes import Checkpoint, Signer, Verifier, open_note, sign_note
from ...transparency.tiles import (
    ENTRIES,
    TILE_WIDTH,
    TileAddress,
    bundle_entries,
    bundle_prefix,
    grown,
    partial_tiles,
    tile_subtrees,
)
from ..errors import LogBehind, LogNotStarted, TileNotFound
from ..ports import GameReads, PublicLogStore, TileReads
from ..records import LogGrowth, PendingEntry, Retirement, SignedCheckpoint
from .guard import CheckpointRecord, ForkGuard, LogRefused, RecordUnreadable
from .retirement import predecessor_signed
from .tile_reads import covered, stored_tile, tiles_between

log = logging.getLogger(__name__)

SEQUENCE_BATCH = 4096
"""Entries one sequencing takes at most: a checkpoint's worth, however long the queue."""


class KeyMismatch(RuntimeError):
    """The latest checkpoint was signed by another key than the one this process signs with."""


@dataclass(frozen=True, slots=True)
class LeafProof:
    index: int
    kind: str
    entry: bytes
    proof: list[bytes]


@dataclass(frozen=True, slots=True)
class GameProofs:
    """Where a game's entries are in the log, and the proofs of those in the published checkpoint."""

    checkpoint: SignedCheckpoint
    leaves: list[LeafProof]
    pending: list[str] = field(default_factory=list)
    """The kinds of the game's entries not yet in the published checkpoint."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "checkpoint": published_note(self.checkpoint),
            "tree_size": self.checkpoint.size,
            "root_hash": _b64(self.checkpoint.root),
            "leaves": [
                {
                    "index": leaf.index,
                    "kind": leaf.kind,
                    "entry": leaf.entry.decode(),
                    "leaf_hash": _b64(leaf_hash(leaf.entry)),
                    "inclusion_proof": [_b64(h) for h in leaf.proof],
                }
                for leaf in self.leaves
            ],
            "pending": self.pending,
        }


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode()


def _same(one: object, other: object) -> bool:
    return one is other


def published_note(checkpoint: SignedCheckpoint) -> str:
    """The signed note with the witnesses' cosignatures after the log's own signature."""
    return checkpoint.note + "".join(checkpoint.cosignatures)


class LogReads(GameReads, TileReads, Protocol):
    """What the log reads where the games are read (a read store): games for their proofs, tiles to serve."""


class TileMirror(Protocol):
    """Where the tiles and bundles are also written as they are made (a directory served as static files)."""

    def write(self, growth: LogGrowth) -> None: ...

    def read(self, address: TileAddress) -> bytes | None:
        """The tile or bundle of exactly that address (a partial one of that width), as written; None."""
        ...

    def signed(self) -> SignedCheckpoint | None:
        """The largest checkpoint whose tiles were all written here."""
        ...


class PublicLog:
    def __init__(
        self,
        store: PublicLogStore,
        games: LogReads,
        signer: Signer | None,
        witnesses: Sequence[Verifier] = (),
        spacing: float = 1.0,
        *,
        records: Sequence[CheckpointRecord] = (),
        guard: ForkGuard | None = None,
        mirror: TileMirror | None = None,
    ) -> None:
        """`signer`: the log's key (None: this process serves the log but does not sequence). `witnesses`: whose
        cosignature a checkpoint must carry to be published. `spacing`: the least time between checkpoints.
        `records`: where each checkpoint is recorded outside the database before it is handed out, and the
        largest published served from when the database has an older one. `guard`: what keeps the log from
        signing a fork. `mirror`: where tiles are also written."""
        self._store = store
        self._games = games
        # Tiles from where the games are read, then from the log's store (with no read store, the one store once).
        self._tile_sources: tuple[TileReads, ...] = (games,) if _same(games, store) else (games, store)
        self._signer = signer
        self.witnesses = tuple(witnesses)
        self._spacing = spacing
        self._records = tuple(records)
        self._guard = guard
        self._mirror = mirror
        self._retirement_checked = False
        self._ours: dict[str, bool] = {}
        self._unpublished: str | None = None
        """Why the last checkpoint this process signed is not handed out yet (None: it is)."""

    @property
    def verifier(self) -> Verifier | None:
        return self._signer.verifier if self._signer is not None else None

    def sequence(self, limit: int = SEQUENCE_BATCH) -> SignedCheckpoint | None:
        """Integrate the pending entries (up to `limit`) and sign the grown tree: the checkpoint signed, or None
        if there was nothing to do, or another process is the sequencer now."""
        if self._signer is None:
            return None
        self._refuse_a_retired_key()
        if self._guard is not None:
            self._guard.consult_witnesses()
            self._guard.claim_place(self._store.claim_record_place)
        self._catch_up()
        try:
            growth = self._store.sequence(limit, self._spacing, self._integrate)
        except (LogRefused, KeyMismatch):  # refused before anything was written
            raise
        except Exception as error:
            # An unknown outcome, not a failure: a commit whose confirmation failed (no synchronous standby within
            # the statement timeout) has landed in the primary all the same. The next turns read what the database
            # holds and hand it out once a standby confirms it (`_catch_up`).
            self._unpublished = f"a checkpoint's commit was not confirmed, and may have landed: {error}"
            raise
        if growth is None:
            return None
        self._hand_out(growth)
        return growth.checkpoint

    def _hand_out(self, growth: LogGrowth) -> None:
        """What follows a checkpoint's commit: confirmed on the standby, its tiles mirrored, recorded, published. A
        step that fails here (no standby confirms, a full disk) leaves the checkpoint signed and not handed out:
        `_catch_up` finishes it at the next turns, and until then `status` says why."""
        try:
            # Read back, it is confirmed on the standby: a checkpoint handed out and then lost in a failover would
            # be signed again over other entries.
            self.latest_signed()
            self._mirror_tiles(growth)
            for record in self._records:
                record.record_signed(growth.checkpoint)
            self.publish()
        except Exception as error:
            self._unpublished = f"checkpoint {growth.checkpoint.size} is signed but not published yet: {error}"
            raise
        self._unpublished = None

    def _mirror_tiles(self, growth: LogGrowth) -> None:
        if self._mirror is None:
            return
        try:
            self._mirror.write(growth)
        except OSError:
            # Not handed out while the directory lacks its tiles (recovery would need them): the next turns write
            # them again, and the checkpoint is published once they are there.
            log.error(
                "the log's tiles directory could not be written for checkpoint %d",
                growth.checkpoint.size,
                exc_info=True,
            )
            raise

    def caught_up(self) -> bool:
        """Whether every checkpoint signed was handed out (else the sequencer's turns go on): this process's last
        turn finished past its commit, and the database publishes its latest checkpoint (where no witness listed
        must cosign it first: their turns go on for it), whichever instance signed it."""
        return self._unpublished is None and not self._published_behind()

    def _published_behind(self) -> bool:
        if self.witnesses:
            return False
        latest = self._store.latest_checkpoint(confirmed=False)
        published = self._store.published_checkpoint()
        return latest is not None and (published is None or published.size < latest.size)

    def _catch_up(self) -> None:
        """Hand out the latest checkpoint signed if it was not whole: a turn that failed past its commit, in this
        instance or another (the tiles directory all instances share, behind the database, says so; with none, this
        process's last turn does). Before anything newer is signed: a tiles directory never misses a range."""
        mirrored = self._mirror.signed() if self._mirror is not None else None
        if self._mirror is None and self._unpublished is None and not self._published_behind():
            return
        latest = self.latest_signed()
        if latest is None or (self._mirror is not None and mirrored is not None and mirrored.size >= latest.size):
            return
        if self._guard is not None:
            self._guard.check(latest, self._root_at)  # only a tree that extends what was handed out is handed out
        start = mirrored.size if mirrored is not None else 0
        tiles, bundles = tiles_between(self._store, start, latest.size) if self._mirror is not None else ({}, {})
        self._hand_out(LogGrowth(tiles, bundles, [], latest))
        log.warning("the public log caught up: checkpoint %d is handed out", latest.size)

    def _refuse_a_retired_key(self) -> None:
        assert self._signer is not None
        if self._retirement_checked:
            return
        retired = [r for r in self._store.log_retirements() if r.verifier_key == self._signer.verifier.vkey]
        if retired:
            raise KeyMismatch(
                f"this key's log was retired, succeeded by {retired[0].successor_key}: set LOG_SIGNING_KEY to "
                "the successor's key"
            )
        self._retirement_checked = True

    def status(self) -> str | None:
        """Whether the log signs ("ok") or why it does not; None where this process does not sign."""
        if self._guard is None or self._signer is None:
            return None
        latest = self._store.latest_checkpoint(confirmed=False)  # a look, never a checkpoint handed out
        refusal = self._key_refusal(latest)
        if refusal is not None:
            return f"it signs nothing: {refusal}"
        self._guard.check_quietly(latest, self._root_at)
        if self._guard.status == "ok" and self._unpublished is not None:
            return f"it cannot publish: {self._unpublished}"
        return self._guard.status

    def key_refusal(self) -> str | None:
        """Why this process's key cannot sign the log its database holds (retired, or another key's log); None."""
        if self._signer is None:
            return None
        return self._key_refusal(self._store.latest_checkpoint(confirmed=False))

    def _key_refusal(self, latest: SignedCheckpoint | None) -> str | None:
        try:
            self._refuse_a_retired_key()
            if latest is not None:
                self._check_signer(latest)
        except KeyMismatch as error:
            return str(error)
        return None

    def _check_signer(self, latest: SignedCheckpoint) -> None:
        """KeyMismatch unless this log's key (or, for a successor, the retired log's) signed `latest`."""
        assert self._signer is not None
        if self._signed_here(latest):
            return
        # A log that succeeds a retired one signs on from the retired log's surviving tree.
        if not predecessor_signed(latest.note, self._signer.verifier, self._store.log_retirements()):
            raise KeyMismatch(
                f"its database holds a log whose checkpoint {latest.size} another key signed, not "
                f"{self._signer.verifier.vkey}: set LOG_SIGNING_KEY to the log's key (or LOG_SIGNING_KEY_FILE, or "
                "put its key file back in the data directory)"
            )

    def has_pending(self) -> bool:
        """Whether entries wait to be integrated (by this process's sequencer or another's)."""
        return self._store.has_pending_entries()

    def publish(self) -> None:
        """Publish the newest checkpoint every witness listed here has cosigned (at once when none is listed); one
        published, by any instance, stays the least that is served."""
        self._store.publish_checkpoint(sorted({w.name for w in self.witnesses}))
        published = self._store.published_checkpoint() if self._records else None
        if published is not None:
            for record in self._records:
                record.record_published(published)

    def _integrate(
        self, latest: SignedCheckpoint | None, pending: Sequence[PendingEntry], partial: Mapping[int, bytes]
    ) -> LogGrowth | None:
        assert self._signer is not None
        if self._guard is not None:
            self._guard.check(latest, self._root_at)
        if latest is not None:
            self._check_signer(latest)
            if not pending:
                return None
        size = latest.size if latest is not None else 0
        entries = [p.entry.entry for p in pending]
        tiles, bundles = grown(size, partial, entries)
        new_size = size + len(entries)
        edge = {(a.level, a.index): partial[a.level] for a in partial_tiles(size)}
        edge.update({(a.level, a.index): hashes for a, hashes in tiles.items()})
        root = tree_hash(new_size, tile_subtrees(lambda level, index: edge.get((level, index), b"")))
        note = sign_note(Checkpoint(self._signer.name, new_size, root).text, self._signer)
        return LogGrowth(
            {(a.level, a.index): hashes for a, hashes in tiles.items()},
            bundles,
            [(size + i, p.entry) for i, p in enumerate(pending)],
            SignedCheckpoint(new_size, root, note),
        )

    def checkpoint(self) -> SignedCheckpoint:
        """The largest checkpoint published: the database's, or the one recorded beside the key when the database
        has only an older one (restored from a backup): what was served is never taken back."""
        published = self._store.published_checkpoint()
        heard = self._guard.largest_heard() if self._guard is not None else None
        try:
            recorded = [record.published() for record in self._records]
        except RecordUnreadable as error:
            raise LogBehind(
                f"the log's record of what it published cannot be read, and nothing older is served: {error}"
            ) from None
        for kept in [*recorded, heard]:
            if kept is not None and (published is None or kept.size > published.size) and self._signed_here(kept):
                published = kept
        if published is None:
            raise LogNotStarted("the log has no checkpoint yet: its sequencer signs the first within a second")
        return published

    def latest_signed(self) -> SignedCheckpoint | None:
        """The latest checkpoint signed, whether or not the witnesses have cosigned it yet."""
        return self._store.latest_checkpoint()

    def tile(self, address: TileAddress) -> bytes:
        """A tile or bundle as C2SP tlog-tiles serves it: a full one, or the first `width` of a partial one. Read
        where the games are read (a replica), and from the log's store when that one does not have it whole yet."""
        wanted = address.width if address.width is not None else TILE_WIDTH
        for tiles in self._tile_sources:
            stored, count = stored_tile(tiles, address)
            if count >= wanted:
                break
        if count < wanted or not self._signed_over(address, wanted):
            stored, count = self._mirrored(address, wanted)
            if count < wanted:
                raise TileNotFound(f"the log has no {address.path} (yet)")
        if address.level == ENTRIES:
            return bundle_prefix(stored, wanted)
        return stored[: wanted * 32]

    def _signed_over(self, address: TileAddress, width: int) -> bool:
        """Whether the latest checkpoint (confirmed on the standby before it is read) covers the tile: a tile of
        entries written but not yet safe from a failover could come back different, and a full one is cached for
        a year."""
        latest = self.latest_signed()
        return latest is not None and covered(address, width) <= latest.size

    def _mirrored(self, address: TileAddress, width: int) -> tuple[bytes, int]:
        """The tile as the tiles directory has it, under the checkpoint published: what is served while the
        database lacks it (restored behind the log, until `osmosis log recover`), so that clients and monitors
        holding that checkpoint can still check it."""
        if self._mirror is None or not self._records:
            return b"", 0
        try:
            published = self.checkpoint().size
        except LogNotStarted:
            return b"", 0
        if covered(address, width) > published:
            return b"", 0
        for candidate in (address, TileAddress(address.level, address.index)):
            stored = self._mirror.read(candidate)
            if stored:
                count = len(bundle_entries(stored)) if address.level == ENTRIES else len(stored) // 32
                if count >= width:
                    return stored, count
        return b"", 0

    def consistency(self, old_size: int, new_size: int) -> list[bytes]:
        """A consistency proof between two sizes up to the latest checkpoint's."""
        latest = self.latest_signed()
        if latest is None:
            raise LogNotStarted("the log has no checkpoint yet: its sequencer signs the first within a second")
        if 0 < old_size <= new_size and new_size > latest.size and self._served_covers(new_size):
            raise LogBehind(
                f"the log's database lacks entries of the checkpoint it serves ({new_size}): it is being recovered, "
                "and proves nothing until then"
            )
        if not 0 < old_size <= new_size <= latest.size:
            raise TileNotFound(
                f"no consistency proof from {old_size} to {new_size}: sizes run from 1 to the "
                f"latest checkpoint's, {latest.size}, the first no larger than the second"
            )
        return consistency_proof(old_size, new_size, self._subtrees())

    def _served_covers(self, size: int) -> bool:
        try:
            return size <= self.checkpoint().size
        except (LogNotStarted, LogBehind):
            return False

    def game_proofs(self, game_id: UUID) -> GameProofs:
        game = self._games.load_game(game_id)
        subjects, dealt = [game_id], []
        if game.deal.get("kind") == "sealed":
            subjects.append(UUID(game.deal["sealed_deal_id"]))
            dealt = [DEAL_SEALED]
        if game.deal.get("kind") == "daily":
            subjects.append(daily_deal_id(game.deal["day"], game.variant or ""))
            dealt = [DAILY_DEAL_OPENED]
        # A daily game's creation and end are pending until its day closes: then they are logged, with its seeds.
        expected = [*dealt, GAME_CREATED, *([GAME_ENDED] if game.status != "playing" else [])]
        published = self.checkpoint()
        latest = self.latest_signed()
        if latest is None or latest.size < published.size:
            raise LogBehind(
                f"the log's database lacks entries of its published checkpoint ({published.size}): it is being "
                "recovered, and proves nothing until then"
            )
        subtrees = self._subtrees()
        leaves = []
        for index, kind in self._store.leaves_of(subjects):
            if index < published.size:
                entry = bundle_entries(self._store.read_bundle(index // TILE_WIDTH))[index % TILE_WIDTH]
                leaves.append(LeafProof(index, kind, entry, inclusion_proof(index, published.size, subtrees)))
        logged = {leaf.kind for leaf in leaves}
        return GameProofs(published, leaves, [kind for kind in expected if kind not in logged])

    def retirements(self) -> list[Retirement]:
        """The logs this server retired, each with its final checkpoint and its successor's key."""
        return self._store.log_retirements()

    def _signed_here(self, checkpoint: SignedCheckpoint) -> bool:
        """Whether this log's key signed `checkpoint` (a record or a tiles directory may hold a retired log's)."""
        if self._signer is None:
            return False
        if checkpoint.note not in self._ours:
            if len(self._ours) > 16:  # a note a checkpoint: only the last few are asked about again
                self._ours.clear()
            try:
                open_note(checkpoint.note, self._signer.verifier)
                self._ours[checkpoint.note] = True
            except ValueError:
                self._ours[checkpoint.note] = False
        return self._ours[checkpoint.note]

    def creation_logged(self, game_id: UUID) -> int | None:
        """The index of the log's entry of the game's creation, if the log has one."""
        return next((index for index, kind in self._store.leaves_of([game_id]) if kind == GAME_CREATED), None)

    def _subtrees(self) -> Subtree:
        return tile_subtrees(self._store.read_tile)

    def _root_at(self, size: int) -> bytes:
        return tree_hash(size, self._subtrees())
