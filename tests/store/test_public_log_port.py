"""The PublicLogStore port's contract: pending entries recorded by the games' own writes, sequenced once each, in
order, by one sequencer at a time; tiles, bundles and checkpoints as the sequencing wrote them."""

import threading
from dataclasses import replace
from uuid import uuid4

from server.game.records import PublicEntry
from server.log import public_entries
from server.service.public_log.log import PublicLog
from server.service.records import SealedDeal
from server.transparency.merkle import inclusion_proof, leaf_hash, tree_hash, verify_inclusion
from server.transparency.notes import generate_signer, open_checkpoint
from server.transparency.tiles import bundle_entries, tile_subtrees
from tests.store.records import EPOCH, a_creation, a_game, an_action

SIGNER = generate_signer("osmosis.test/contract-log")


def sequence_all(store):
    """Sequence until nothing is pending: the leaves integrated, as (index, entry)."""
    leaves = []
    while (growth := store.sequence(1000, 0.0, PublicLog(store, store, SIGNER)._integrate)) is not None:
        leaves += growth.leaves
    return leaves


def created(record):
    return PublicEntry(
        record.id,
        public_entries.GAME_CREATED,
        public_entries.game_created(record.id, record.variant, record.rules, record.deal, record.commitment),
    )


def test_entries_recorded_by_writes_are_sequenced_once_each_in_their_order(port_store):
    sequence_all(port_store)
    assert not port_store.has_pending_entries()
    record, secret, events = a_game()
    port_store.create_game(a_creation(record, secret, events, created(record)), None)
    assert port_store.has_pending_entries()
    deal = SealedDeal(uuid4(), EPOCH, b"\1" * 32, "d" * 64, None)
    sealed = PublicEntry(deal.id, public_entries.DEAL_SEALED, public_entries.deal_sealed(deal.id, deal.commitment))
    port_store.create_sealed_deal(deal, None, sealed)
    ended = PublicEntry(
        record.id,
        public_entries.GAME_ENDED,
        public_entries.game_ended(record.id, "won", 2, "2" * 64, 52, b"\2" * 32, "c"),
    )
    assert port_store.write(replace(an_action(record), public_entries=(ended,)), record.version)
    # At a version the game has left: writes nothing, records nothing.
    assert not port_store.write(replace(an_action(record), public_entries=(ended,)), record.version)

    leaves = sequence_all(port_store)
    assert not port_store.has_pending_entries()
    assert [entry for _, entry in leaves] == [created(record), sealed, ended]
    first = leaves[0][0]
    assert [index for index, _ in leaves] == [first, first + 1, first + 2]
    assert sequence_all(port_store) == []
    assert port_store.leaves_of([record.id]) == [(first, "game_created"), (first + 2, "game_ended")]
    assert port_store.leaves_of([deal.id, uuid4()]) == [(first + 1, "deal_sealed")]


def test_tiles_bundles_and_checkpoints_are_as_the_sequencing_wrote_them(port_store):
    for _ in range(300):  # past a full tile and bundle
        record, secret, events = a_game()
        port_store.create_game(a_creation(record, secret, events, created(record)), None)
    sequence_all(port_store)
    latest = port_store.latest_checkpoint()
    checkpoint, _, _ = open_checkpoint(latest.note, SIGNER.verifier)
    assert (checkpoint.size, checkpoint.root) == (latest.size, latest.root)
    subtrees = tile_subtrees(port_store.read_tile)
    assert tree_hash(latest.size, subtrees) == latest.root
    index = latest.size - 1
    entry = bundle_entries(port_store.read_bundle(index // 256))[index % 256]
    verify_inclusion(index, latest.size, leaf_hash(entry), inclusion_proof(index, latest.size, subtrees), latest.root)
    assert len(port_store.read_tile(0, 0)) == 256 * 32
    assert port_store.read_tile(5, 0) == b"" and port_store.read_bundle(10**12) == b""


def test_one_sequencer_at_a_time_and_checkpoints_spaced(port_store):
    sequence_all(port_store)
    record, secret, events = a_game()
    port_store.create_game(a_creation(record, secret, events, created(record)), None)
    inside, release = threading.Event(), threading.Event()
    log = PublicLog(port_store, port_store, SIGNER)

    def slow(latest, pending, partial):
        inside.set()
        release.wait(10)
        return log._integrate(latest, pending, partial)

    first = threading.Thread(target=port_store.sequence, args=(1000, 0.0, slow))
    first.start()
    assert inside.wait(10)
    assert port_store.sequence(1000, 0.0, log._integrate) is None, "a second sequencer ran beside the first"
    release.set()
    first.join()
    record, secret, events = a_game()
    port_store.create_game(a_creation(record, secret, events, created(record)), None)
    assert port_store.sequence(1000, 3600.0, log._integrate) is None, "a checkpoint less than an hour after the last"
    assert len(sequence_all(port_store)) == 1


def test_the_published_checkpoint_is_the_newest_cosigned_by_every_witness_named_and_never_goes_back(port_store):
    sequence_all(port_store)
    record, secret, events = a_game()
    port_store.create_game(a_creation(record, secret, events, created(record)), None)
    older = sequence_all(port_store) and port_store.latest_checkpoint()
    port_store.add_cosignature(older.size, "witness.test/a", "\u2014 witness.test/a AAAA\n")
    port_store.add_cosignature(older.size, "witness.test/a", "\u2014 witness.test/a BBBB\n")  # the first stays
    record, secret, events = a_game()
    port_store.create_game(a_creation(record, secret, events, created(record)), None)
    sequence_all(port_store)
    newest = port_store.latest_checkpoint()
    assert newest.size == older.size + 1 and newest.cosignatures == ()

    port_store.publish_checkpoint(["witness.test/a"])
    published = port_store.published_checkpoint()
    assert (published.size, published.cosignatures) == (older.size, ("\u2014 witness.test/a AAAA\n",))
    port_store.publish_checkpoint([])  # an instance that lists no witness publishes the newest
    assert port_store.published_checkpoint().size == newest.size
    port_store.publish_checkpoint(["witness.test/a"])  # and one that lists a witness never takes it back
    port_store.publish_checkpoint(["witness.test/a", "witness.test/nobody"])
    assert port_store.published_checkpoint().size == newest.size
    assert port_store.cosigned_size("witness.test/a") == older.size
    assert port_store.cosigned_size("witness.test/nobody") == 0
