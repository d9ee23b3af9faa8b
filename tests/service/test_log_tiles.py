"""The public log's tiles leave the server only under a checkpoint: what a failover could take back is never served."""

import pytest

from server.game.commands import NewGame
from server.rules import preset
from server.runtime.composition import compose
from server.runtime.log_files import CheckpointFile, TileDirectory
from server.service.errors import ReplicationUnconfirmed, TileNotFound
from server.service.public_log.guard import ForkGuard
from server.service.public_log.log import PublicLog
from server.transparency.notes import generate_signer
from server.transparency.tiles import ENTRIES, TILE_WIDTH, TileAddress, bundle_entries


def test_a_tile_no_checkpoint_covers_is_not_served_even_if_the_store_holds_it(store):
    log = PublicLog(store, store, generate_signer("tiles.example/log"), spacing=0)
    cases = compose(store, public_log=log)
    for _ in range(3):
        cases.creating.handle(NewGame(preset("peek")))
    assert log.sequence() is not None
    assert log.tile(TileAddress(0, 0, 3))  # under the checkpoint of 3
    # Hashes written by a sequencing whose commit a failover would lose: in the table, under no checkpoint.
    store._tiles[(0, 0)] += b"\0" * 32

    with pytest.raises(TileNotFound):
        log.tile(TileAddress(0, 0, 4))


class FailsOnce:
    """What fails once, right after a checkpoint's commit: the standby's confirmation, or the tiles directory."""

    def __init__(self, error):
        self.error, self.armed = error, False

    def __call__(self):
        if self.armed:
            self.armed = False
            raise self.error


@pytest.mark.parametrize("fault", ["no standby confirms", "the tiles directory is full"])
def test_a_checkpoint_whose_handing_out_failed_past_its_commit_is_published_by_the_next_turn(store, tmp_path, fault):
    signer = generate_signer("tiles.example/log")
    tiles, record = TileDirectory(tmp_path / "tiles"), CheckpointFile(tmp_path / "record.json")
    guard = ForkGuard(signer.verifier, [("the record", record), ("the tiles", tiles)])
    log = PublicLog(store, store, signer, spacing=0, records=[record, tiles], guard=guard, mirror=tiles)
    cases = compose(store, public_log=log)
    cases.creating.handle(NewGame(preset("peek")))
    first = log.sequence()
    fails = FailsOnce(ReplicationUnconfirmed("no standby") if fault == "no standby confirms" else OSError("full"))
    if fault == "no standby confirms":
        reading = store.latest_checkpoint
        store.latest_checkpoint = lambda confirmed=True: (confirmed and fails(), reading(confirmed=confirmed))[1]
    else:
        writing = tiles.write
        tiles.write = lambda growth: (fails(), writing(growth))
    for _ in range(TILE_WIDTH + 2):  # across a bundle's end, so that a whole tile is missed too
        cases.creating.handle(NewGame(preset("peek")))
    sequencing = store.sequence

    def committed_then_fault(*args):
        growth = sequencing(*args)
        fails.armed = True  # the checkpoint is committed: what follows fails once
        return growth

    store.sequence = committed_then_fault
    with pytest.raises((ReplicationUnconfirmed, OSError)):
        log.sequence()
    store.sequence = sequencing
    signed = store._checkpoints[-1]
    assert signed.size > first.size and store.published_checkpoint().size == first.size
    assert log.status().startswith(f"it cannot publish: checkpoint {signed.size} is signed but not published yet")
    assert not log.caught_up()

    assert log.sequence() is None  # nothing new to sign: the turn hands out what the last one could not
    assert log.caught_up() and log.status() == "ok"
    assert store.published_checkpoint().size == record.signed().size == tiles.signed().size == signed.size
    assert (tmp_path / "tiles" / "checkpoint").read_text().startswith(signed.note)
    for level, index in store._tiles:
        width = len(store._tiles[level, index]) // 32
        assert (
            tiles.read(TileAddress(level, index, None if width == TILE_WIDTH else width)) == store._tiles[level, index]
        ), (level, index)
    assert len(bundle_entries(tiles.read(TileAddress(ENTRIES, 1, signed.size - TILE_WIDTH)))) == signed.size - 256


def test_another_instance_signing_next_first_writes_what_the_shared_tiles_directory_missed(store, tmp_path):
    signer = generate_signer("tiles.example/log")
    tiles = TileDirectory(tmp_path / "tiles")

    def instance():
        guard = ForkGuard(signer.verifier, [("the tiles", tiles)])
        return PublicLog(store, store, signer, spacing=0, records=[tiles], guard=guard, mirror=tiles)

    first, second = instance(), instance()
    cases = compose(store, public_log=first)
    for _ in range(TILE_WIDTH + 2):
        cases.creating.handle(NewGame(preset("peek")))
    writing = tiles.write
    tiles.write = lambda growth: (_ for _ in ()).throw(OSError("the disk is full"))
    with pytest.raises(OSError):
        first.sequence()  # signed and committed; its tiles never written; and this instance goes away
    tiles.write = writing
    missed = store.latest_checkpoint()
    cases.creating.handle(NewGame(preset("peek")))

    grown = second.sequence()

    assert grown.size == missed.size + 1 and tiles.signed().size == grown.size
    assert tiles.read(TileAddress(0, 0)) == store._tiles[0, 0], "the whole tile the first instance missed"
    assert len(bundle_entries(tiles.read(TileAddress(ENTRIES, 0)))) == TILE_WIDTH
