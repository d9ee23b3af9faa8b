"""The public log recovered from its tiles directory after a restore: the entries the database lacks come back,
checked to make the published checkpoint's tree, the entries integrated before the loss leave the pending list,
the log signs again consistently with what it published, and a game the restore lost is known to have been."""

from dataclasses import replace

import pytest

from server.game.commands import NewGame
from server.log.public_entries import GAME_CREATED
from server.rules import preset
from server.runtime.composition import compose
from server.runtime.log_files import CheckpointFile, TileDirectory
from server.service.public_log.guard import ForkGuard, LogRefused
from server.service.public_log.log import PublicLog
from server.service.public_log.recovery import RecoveryError, recover
from server.transparency.merkle import verify_consistency
from server.transparency.notes import COSIGNATURE_V1, cosign, generate_signer, parse_note
from server.transparency.tiles import TILE_WIDTH
from tests.memory_store import MemoryStore, backup_of

SIGNER = generate_signer("recovery.example/log")


class Server:
    """One process of the log: its database (a store), its record beside the key, its tiles directory."""

    def __init__(self, store, tmp_path):
        self.store = store
        self.record = CheckpointFile(tmp_path / "log-checkpoints.json")
        self.tiles = TileDirectory(tmp_path / "tiles")
        guard = ForkGuard(SIGNER.verifier, [("the record", self.record), ("the tiles", self.tiles)])
        self.log = PublicLog(
            store, store, SIGNER, spacing=0, records=[self.record, self.tiles], guard=guard, mirror=self.tiles
        )
        self.cases = compose(store, public_log=self.log)

    def play(self, games):
        return [self.cases.creating.handle(NewGame(preset("peek"))).outcome.game.id for _ in range(games)]

    def recover(self):
        return recover(self.store, SIGNER.verifier, self.tiles, [self.record.signed(), self.record.published()])


@pytest.fixture
def lost(tmp_path):
    """A server whose database was restored from a backup older than its last checkpoint: (the server, the games
    the restore lost, the checkpoint it published, the database as it was before the loss)."""
    server = Server(MemoryStore(), tmp_path)
    server.play(2)
    server.log.sequence()
    server.play(1)  # pending when the backup is taken, logged before the loss
    backup = backup_of(server.store)
    lost_games = server.play(TILE_WIDTH + 3)  # across a bundle's end
    published = server.log.sequence()
    original = server.store
    return Server(backup, tmp_path), lost_games, published, original


def test_recovery_brings_back_every_entry_and_the_log_signs_on_from_its_checkpoint(lost):
    server, lost_games, published, original = lost
    server.play(1)  # a game played since the restore
    with pytest.raises(LogRefused):
        server.log.sequence()

    recovered = server.recover()

    assert (recovered.to_size, recovered.pending_taken) == (published.size, 1)
    assert server.store._leaves == original._leaves
    assert server.store._tiles == original._tiles and server.store._bundles == original._bundles
    assert server.store.published_checkpoint().note == published.note
    grown = server.log.sequence()
    assert grown.size == published.size + 1, "only the game played since the restore is new"
    proof = server.log.consistency(published.size, grown.size)
    verify_consistency(published.size, grown.size, published.root, grown.root, proof)
    assert server.log.creation_logged(lost_games[-1]) is not None
    assert [kind for _, kind in server.store.leaves_of([lost_games[0]])] == [GAME_CREATED]


def test_recovery_twice_changes_nothing(lost):
    server, _, published, _ = lost
    server.recover()
    again = server.recover()
    assert (again.from_size, again.to_size, again.pending_taken) == (published.size, published.size, 0)


def test_tiles_that_do_not_make_the_published_tree_are_refused(lost, tmp_path):
    server, _, published, _ = lost
    bundle = tmp_path / "tiles" / "tile" / "entries" / "000"
    data = bundle.read_bytes()
    bundle.write_bytes(data[:-2] + b"}}")  # the last entry of the first bundle altered
    size_before = server.store.latest_checkpoint().size
    with pytest.raises(RecoveryError, match=f"do not make the tree of the checkpoint of size {published.size}"):
        server.recover()
    assert server.store.latest_checkpoint().size == size_before


def test_tiles_lost_too_leave_the_log_to_be_retired(lost, tmp_path):
    server, _, _, _ = lost
    for bundle in (tmp_path / "tiles" / "tile" / "entries").rglob("*"):
        if bundle.is_file():
            bundle.unlink()
    with pytest.raises(RecoveryError, match="the entries are gone; retire the log"):
        server.recover()


def test_the_last_partial_bundle_is_read_from_a_wider_one_when_the_exact_width_is_missing(lost, tmp_path):
    server, _, published, original = lost
    last = published.size // TILE_WIDTH
    exact = tmp_path / "tiles" / "tile" / "entries" / f"{last:03d}.p" / str(published.size % TILE_WIDTH)
    wider = exact.with_name(str(published.size % TILE_WIDTH + 2))
    wider.write_bytes(exact.read_bytes() + (2).to_bytes(2, "big") + b"{}" + (2).to_bytes(2, "big") + b"{}")
    exact.unlink()
    assert server.recover().to_size == published.size
    assert server.store._bundles[last] == original._bundles[last]


def test_recovery_keeps_only_the_cosignatures_of_the_witnesses_configured_that_verify(lost):
    server, _, published, _ = lost
    witness, stranger = generate_signer("w1.example", COSIGNATURE_V1), generate_signer("w2.example", COSIGNATURE_V1)
    text = parse_note(published.note).text
    genuine = cosign(text, witness, 1_700_000_000)
    forged = replace(genuine, signature=genuine.signature[:-1] + bytes([genuine.signature[-1] ^ 1])).line
    unknown = cosign(text, stranger, 1_700_000_000).line
    genuine = genuine.line
    cosigned = replace(published, cosignatures=(forged, unknown, genuine))
    server.tiles._published.path.unlink()  # the tiles directory (or a mirror) says these were cosigned
    server.record.path.unlink()
    server.tiles.record_published(cosigned)

    recover(server.store, SIGNER.verifier, server.tiles, [], witnesses=[witness.verifier])

    assert server.store.published_checkpoint().cosignatures == (genuine,)
