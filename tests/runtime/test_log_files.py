"""The log's state outside its database: the record of its checkpoints only grows and is never read as empty when
it cannot be read; the tiles directory holds every tile and bundle as the database does, and the checkpoint
published, in the layout C2SP tlog-tiles serves."""

import functools
import json
import multiprocessing
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from server.game.commands import NewGame
from server.rules import preset
from server.runtime.composition import compose
from server.runtime.log_files import CheckpointFile, LogFileError, TileDirectory, TileUrl
from server.service.public_log.guard import ForkGuard, checkpoint_of
from server.service.public_log.log import PublicLog, published_note
from server.transparency.notes import Checkpoint, generate_signer, sign_note
from server.transparency.tiles import ENTRIES, TILE_WIDTH, TileAddress, bundle_entries
from tests.memory_store import MemoryStore

SIGNER = generate_signer("files.example/log")


def checkpoint(size):
    return checkpoint_of(sign_note(Checkpoint(SIGNER.name, size, bytes([size % 256]) * 32).text, SIGNER))


def test_the_record_only_grows(tmp_path):
    record = CheckpointFile(tmp_path / "log-checkpoints.json")
    assert record.signed() is None and record.published() is None
    record.record_signed(checkpoint(5))
    record.record_signed(checkpoint(3))
    assert record.signed() == checkpoint(5)
    record.record_published(checkpoint(4))
    assert record.published() == checkpoint(4)
    assert CheckpointFile(record.path).signed() == checkpoint(5), "read back by another process"


def _record_many(path, sizes):
    record = CheckpointFile(path)
    for size in sizes:
        record.record_signed(checkpoint(size))


def test_processes_recording_at_once_leave_the_largest(tmp_path):
    path = tmp_path / "log-checkpoints.json"
    processes = [
        multiprocessing.get_context("fork").Process(target=_record_many, args=(path, range(start, 400, 4)))
        for start in range(4)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(30)
    assert CheckpointFile(path).signed().size == 399


@pytest.mark.parametrize("content", [b"", b"{", b'{"signed": {"note": "not a note"}}', b'{"signed": 3}'])
def test_a_record_that_cannot_be_read_is_an_error_never_nothing_signed(tmp_path, content):
    path = tmp_path / "log-checkpoints.json"
    path.write_bytes(content)
    with pytest.raises(LogFileError, match="is not the log's record"):
        CheckpointFile(path).signed()


def test_the_tiles_directory_holds_what_the_database_holds(tmp_path):
    store = MemoryStore()
    directory = TileDirectory(tmp_path / "tiles")
    record = CheckpointFile(tmp_path / "log-checkpoints.json")
    guard = ForkGuard(SIGNER.verifier, [("record", record), ("tiles", directory)])
    log = PublicLog(store, store, SIGNER, spacing=0, records=[record, directory], guard=guard, mirror=directory)
    cases = compose(store, public_log=log)
    size = 0
    for games in (1, 300, 2):
        for _ in range(games):
            cases.creating.handle(NewGame(preset("peek")))
        size = log.sequence().size
    assert size > TILE_WIDTH

    for (level, index), hashes in store._tiles.items():
        width = len(hashes) // 32
        assert directory.read(TileAddress(level, index, None if width == TILE_WIDTH else width)) == hashes
    for index, bundle in store._bundles.items():
        width = len(bundle_entries(bundle))
        assert directory.read(TileAddress(ENTRIES, index, None if width == TILE_WIDTH else width)) == bundle
    assert (tmp_path / "tiles" / "tile" / "0" / "000").stat().st_size == TILE_WIDTH * 32
    assert (tmp_path / "tiles" / "checkpoint").read_text() == published_note(log.checkpoint())
    assert json.loads(record.path.read_text())["signed"]["note"] == store.latest_checkpoint().note


def test_tiles_served_over_http_are_a_source_as_the_directory_is(tmp_path):
    store = MemoryStore()
    directory = TileDirectory(tmp_path / "tiles")
    log = PublicLog(store, store, SIGNER, spacing=0, records=[directory], mirror=directory)
    cases = compose(store, public_log=log)
    for _ in range(5):
        cases.creating.handle(NewGame(preset("peek")))
    log.sequence()
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path / "tiles"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        served = TileUrl(f"http://127.0.0.1:{server.server_port}/")
        assert served.published() == directory.published()
        assert served.read(TileAddress(ENTRIES, 0, 5)) == directory.read(TileAddress(ENTRIES, 0, 5)) is not None
        assert served.read(TileAddress(ENTRIES, 7)) is None
    finally:
        server.shutdown()
        server.server_close()
