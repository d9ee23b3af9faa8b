"""The public log's state outside its database, in files a restore of the database does not reach.

`CheckpointFile`: the largest checkpoint the log signed and the largest it published, one small JSON file beside
the signing key (`OSMOSIS_DATA_DIR/log-checkpoints-<key id>.json`), written before a checkpoint is offered to a witness
or served. `TileDirectory`: the log's tiles and entry bundles as they are made, its published checkpoint, in the
layout C2SP tlog-tiles serves (`LOG_TILES_DIR`, which nginx can serve as static files, and which is backed up apart
from the database, as tessera's POSIX driver and Go's sumdb mirrors keep theirs), and the record of the checkpoints
signed and published (`.published.json`) that every instance sharing the directory reads before it signs.
`record_place`: the id of the place a deployment's record is kept, which the first sequencer claims in the
database (service/public_log/guard.py).

Each file is written whole (a new file, flushed to disk, renamed over the old one), under a lock on a file beside
it, and never made smaller: two processes recording at once leave the larger."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..service.public_log.guard import RecordUnreadable, checkpoint_of, published_checkpoint_of
from ..service.records import LogGrowth, SignedCheckpoint
from ..transparency.notes import Verifier
from ..transparency.tiles import ENTRIES, TILE_WIDTH, TileAddress, bundle_entries

MAX_TILE_BYTES = 256 * (2 + 0xFFFF)
"""The largest entry bundle: 256 entries of at most 65,535 bytes, each after its 2-byte length."""


class LogFileError(RecordUnreadable):
    """A file of the log's state that cannot be read as one."""


def write_whole(path: Path, data: bytes) -> None:
    """`path` holding `data`, or as it was: never half written, on disk when this returns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}.draft")
    with open(draft, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    os.replace(draft, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def _grows(kept: SignedCheckpoint | None, checkpoint: SignedCheckpoint) -> bool:
    return kept is None or (checkpoint.size, len(checkpoint.cosignatures)) > (kept.size, len(kept.cosignatures))


class CheckpointFile:
    """The CheckpointRecord in one JSON file: {"signed": {"note"}, "published": {"note", "cosignatures"}}."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int] | None = None
        self._kept: dict[str, SignedCheckpoint] = {}

    def signed(self) -> SignedCheckpoint | None:
        return self._read().get("signed")

    def published(self) -> SignedCheckpoint | None:
        return self._read().get("published")

    def record_signed(self, checkpoint: SignedCheckpoint) -> None:
        self._record("signed", SignedCheckpoint(checkpoint.size, checkpoint.root, checkpoint.note))

    def record_published(self, checkpoint: SignedCheckpoint) -> None:
        self._record("published", checkpoint)

    def _record(self, which: str, checkpoint: SignedCheckpoint) -> None:
        with _locked(self.path):
            kept = dict(self._read())
            if _grows(kept.get(which), checkpoint):
                kept[which] = checkpoint
                self._write(kept)

    def _write(self, kept: dict[str, SignedCheckpoint]) -> None:
        document = {
            which: {"note": checkpoint.note, "cosignatures": list(checkpoint.cosignatures)}
            for which, checkpoint in kept.items()
        }
        write_whole(self.path, json.dumps(document, indent=1).encode())

    def _read(self) -> dict[str, SignedCheckpoint]:
        try:
            status = self.path.stat()
            seen = (status.st_mtime_ns, status.st_ino)
            if seen != self._seen:
                self._kept = self._parse(self.path.read_bytes())
                self._seen = seen
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise LogFileError(f"{self.path} cannot be read: {error}") from None
        return self._kept

    def _parse(self, data: bytes) -> dict[str, SignedCheckpoint]:
        try:
            document: dict[str, Any] = json.loads(data)
            return {
                which: checkpoint_of(kept["note"], tuple(kept.get("cosignatures", ())))
                for which, kept in document.items()
                if which in ("signed", "published")
            }
        except (ValueError, KeyError, TypeError) as error:
            # Never read as "nothing was signed": that is what would let the log fork.
            raise LogFileError(f"{self.path} is not the log's record of its checkpoints: {error}") from None


def record_of(data_dir: Path, verifier: Verifier) -> CheckpointFile:
    """The record of the checkpoints of the log of `verifier`'s key, in the data directory beside the key: one file
    a key, so that a log's record is never taken for another's."""
    return CheckpointFile(data_dir / f"log-checkpoints-{verifier.key_id:08x}.json")


class TileDirectory:
    """The log's tiles, bundles and published checkpoint as files (a CheckpointRecord of what was published)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._published = CheckpointFile(root / ".published.json")

    def write(self, growth: LogGrowth) -> None:
        """The tiles and bundles one sequencing made, each as a full file or a partial one (`.p/<width>`)."""
        for (level, index), hashes in growth.tiles.items():
            width = len(hashes) // 32
            self._write_tile(TileAddress(level, index, None if width == TILE_WIDTH else width), hashes)
        for index, bundle in growth.bundles.items():
            width = len(bundle_entries(bundle))
            self._write_tile(TileAddress(ENTRIES, index, None if width == TILE_WIDTH else width), bundle)

    def read(self, address: TileAddress) -> bytes | None:
        """A tile or bundle as written, or None (also when the directory cannot be read: it is only a copy)."""
        try:
            return (self.root / address.path).read_bytes()
        except OSError:
            return None

    def signed(self) -> SignedCheckpoint | None:
        return self._published.signed()

    def published(self) -> SignedCheckpoint | None:
        return self._published.published()

    def record_signed(self, checkpoint: SignedCheckpoint) -> None:
        self._published.record_signed(checkpoint)

    def record_published(self, checkpoint: SignedCheckpoint) -> None:
        self._published.record_published(checkpoint)
        with _locked(self._published.path):
            if self._published.published() == checkpoint:
                write_whole(self.root / "checkpoint", (checkpoint.note + "".join(checkpoint.cosignatures)).encode())

    def _write_tile(self, address: TileAddress, data: bytes) -> None:
        path = self.root / address.path
        if not path.exists() or path.stat().st_size < len(data):
            write_whole(path, data)


PLACE_FILE = "log-record-place"


def record_place(directory: Path) -> str:
    """The id of `directory` as the place of a log's record: made there once (by one of the processes starting at
    once), the same for every instance that shares the directory."""
    path = directory / PLACE_FILE
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{PLACE_FILE}.{os.getpid()}")
        draft.write_text(f"{uuid.uuid4()}\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process made it first
        finally:
            draft.unlink()
    try:
        return str(uuid.UUID(path.read_text().strip()))
    except (OSError, ValueError) as error:
        raise LogFileError(f"{path} is not the id of the place of the log's record: {error}") from None


class TileUrl:
    """The log's tiles and checkpoint where a URL serves them (the server's /log, or a static mirror of
    LOG_TILES_DIR): a TileSource to recover from."""

    def __init__(self, base: str, timeout: float = 30.0) -> None:
        self.base = base.rstrip("/")
        self._timeout = timeout

    def read(self, address: TileAddress) -> bytes | None:
        return self._get(address.path)

    def published(self) -> SignedCheckpoint | None:
        text = self._get("checkpoint")
        return published_checkpoint_of(text.decode()) if text is not None else None

    def _get(self, path: str) -> bytes | None:
        try:
            with urllib.request.urlopen(f"{self.base}/{path}", timeout=self._timeout) as response:
                return bytes(response.read(MAX_TILE_BYTES))
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return None
            raise OSError(f"{self.base}/{path} answered {error.code}") from None
