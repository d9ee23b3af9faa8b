"""PostgreSQL's store tells its process after each commit that gave the public log entries to integrate (the
sequencer waits for that instead of looking on a clock), and only then."""

from dataclasses import replace
from uuid import uuid4

import pytest

from server.game.errors import VersionConflict
from server.game.records import PublicEntry
from server.log import public_entries
from server.service.records import SealedDeal
from server.store import PostgresStore, migrate
from tests.store.records import EPOCH, a_creation, a_game, an_action
from tests.store.test_public_log_port import created


@pytest.fixture
def told(pool):
    store = PostgresStore(pool, migrate.head_revision())
    calls = []
    store.entries_logged = lambda: calls.append(store.has_pending_entries())
    return store, calls


def ended(record):
    return PublicEntry(
        record.id,
        public_entries.GAME_ENDED,
        public_entries.game_ended(record.id, "won", 2, "2" * 64, 52, b"\2" * 32, "c"),
    )


def test_each_write_with_entries_tells_once_committed_and_writes_without_tell_nothing(told):
    store, calls = told
    record, secret, events = a_game()
    store.create_game(a_creation(record, secret, events, created(record)), None)
    assert calls == [True]  # committed when told: the sequencer it wakes finds the entry
    other, other_secret, other_events = a_game()
    store.create_game(a_creation(other, other_secret, other_events), None)
    assert store.write(an_action(other), other.version)
    deal = SealedDeal(uuid4(), EPOCH, b"\1" * 32, "d" * 64, None)
    store.create_sealed_deal(deal, None)
    assert calls == [True]

    store.create_sealed_deal(
        replace(deal, id=uuid4()),
        None,
        PublicEntry(deal.id, public_entries.DEAL_SEALED, public_entries.deal_sealed(deal.id, "d")),
    )
    assert store.write(replace(an_action(record), public_entries=(ended(record),)), record.version)
    assert not store.write(replace(an_action(record), public_entries=(ended(record),)), record.version)
    assert calls == [True] * 3


def test_a_locked_write_tells_after_its_commit_and_a_refused_one_not_at_all(told):
    store, calls = told
    record, secret, events = a_game()
    store.create_game(a_creation(record, secret, events), None)
    with store.locked_game(record.id) as locked:
        locked.write(replace(an_action(record), public_entries=(ended(record),)), None)
        assert calls == []
    assert calls == [True]
    with pytest.raises(VersionConflict), store.locked_game(record.id) as locked:
        locked.write(replace(an_action(record), public_entries=(ended(record),)), None)
    assert calls == [True]
