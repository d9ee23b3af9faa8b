"""The log's recovery and retirement on PostgreSQL: a database copied at a moment (a restore of a backup taken then,
made with CREATE DATABASE ... TEMPLATE) is brought back to the log the original went on to publish, from its tiles
directory: the same tiles, bundles, leaves and checkpoint, the entries integrated since taken off its pending list;
a log that moved meanwhile is not written over. A retirement is kept once, and the retired key signs no more."""

import os
from dataclasses import replace
from urllib.parse import urlsplit

import psycopg
import pytest
from psycopg import sql

from server.runtime.log_files import CheckpointFile, TileDirectory
from server.service.public_log.log import KeyMismatch, PublicLog
from server.service.public_log.recovery import RecoveryError, recover
from server.service.public_log.retirement import RetirementRefused, retire
from server.store import PostgresStore, migrate, open_pool
from server.transparency.notes import generate_signer
from server.transparency.tiles import partial_tiles
from tests.databases import BACKENDS, _with_database, drop_database, migrated_database
from tests.store.records import a_creation, a_game
from tests.store.test_public_log_port import created

SIGNER = generate_signer("osmosis.test/recovered-log")


def database_of(url):
    return urlsplit(url).path.lstrip("/")


def store_on(url):
    pool = open_pool(url, min_size=1, max_size=4, timeout=5, statement_timeout_ms=5000)
    pool.wait()
    return PostgresStore(pool, migrate.head_revision()), pool


def play(store, games):
    for _ in range(games):
        record, secret, events = a_game()
        store.create_game(a_creation(record, secret, events, created(record)), None)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_copy_from_before_is_recovered_to_the_published_log(backend, request, tmp_path):
    server_url = request.getfixturevalue("embedded_server_url") if backend == "embedded" else os.environ["DATABASE_URL"]
    original_url = migrated_database(server_url)
    copy_url = _with_database(original_url, database_of(original_url) + "_restored")
    tiles = TileDirectory(tmp_path / "tiles")
    record = CheckpointFile(tmp_path / "log-checkpoints.json")
    original, pool = store_on(original_url)
    log = PublicLog(original, original, SIGNER, spacing=0, records=[record, tiles], mirror=tiles)
    play(original, 300)
    log.sequence()
    play(original, 2)  # pending in the backup, logged before the loss
    pool.close()
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(database_of(copy_url)), sql.Identifier(database_of(original_url))
            )
        )
    original, pool = store_on(original_url)
    log = PublicLog(original, original, SIGNER, spacing=0, records=[record, tiles], mirror=tiles)
    play(original, 5)
    published = log.sequence()
    restored, restored_pool = store_on(copy_url)
    try:
        play(restored, 1)  # since the restore
        recovered = recover(restored, SIGNER.verifier, tiles, [record.signed(), record.published()])

        assert (recovered.to_size, recovered.pending_taken) == (published.size, 2)
        assert restored.published_checkpoint().note == published.note
        for address in partial_tiles(published.size):
            assert restored.read_tile(address.level, address.index) == original.read_tile(address.level, address.index)
        assert restored.read_tile(0, 0) == original.read_tile(0, 0)
        assert restored.read_bundle(1) == original.read_bundle(1)
        assert recover(restored, SIGNER.verifier, tiles, [published]).pending_taken == 0
        with pytest.raises(RecoveryError, match="grew from 3 meanwhile"):
            restored.recover_log(3, None, [])
        grown = PublicLog(restored, restored, SIGNER, spacing=0).sequence()
        assert grown.size == published.size + 1
    finally:
        restored_pool.close()
        pool.close()
        drop_database(server_url, copy_url)
        drop_database(server_url, original_url)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_retirement_is_kept_once_with_its_successor_s_first_entry_pending(backend, request):
    server_url = request.getfixturevalue("embedded_server_url") if backend == "embedded" else os.environ["DATABASE_URL"]
    url = migrated_database(server_url)
    store, pool = store_on(url)
    try:
        play(store, 3)
        last = PublicLog(store, store, SIGNER, spacing=0).sequence()
        successor = generate_signer("osmosis.test/recovered-log/2")
        retirement = retire(store, SIGNER, successor, last)
        assert [replace(r, retired_at=None) for r in store.log_retirements()] == [retirement]
        assert store.log_retirements()[0].retired_at is not None
        with pytest.raises(RetirementRefused):
            retire(store, SIGNER, generate_signer("osmosis.test/recovered-log/3"), last)
        grown = PublicLog(store, store, successor, spacing=0).sequence()
        assert grown.size == last.size + 1, "the successor's first entry, and the log goes on under its key"
        with pytest.raises(KeyMismatch, match="retired"):
            PublicLog(store, store, SIGNER, spacing=0).sequence()
    finally:
        pool.close()
        drop_database(server_url, url)
