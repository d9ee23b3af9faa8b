"""The game ports (GameReads, GameWrites): games and their log, each change written whole or not at all, from the
version it was decided on."""

import itertools
import random
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from uuid import uuid4

import pytest

from server.game.commands import Draw, Hint, NewGame, NumberedDeal, Undo
from server.game.errors import VersionConflict
from server.game.records import Owner, PlayerResult, PublicEntry
from server.log import events as ev
from server.log import public_entries
from server.log.deal_record import game_opening
from server.rules import Rules, preset
from server.runtime.composition import compose
from server.service.errors import GameNotFound, IdempotencyConflict
from server.service.records import GamesPage, Joining
from server.service.sources import Sources
from tests.service.players import Clock
from tests.store.records import EPOCH, a_creation, a_game, a_player, a_response, an_action
from tests.store.test_public_log_port import sequence_all


def created(store, **kwargs):
    record, secret, events = a_game(**kwargs)
    store.create_game(a_creation(record, secret, events), None)
    return record, secret, events


def test_a_created_game_reads_back_as_written(port_store):
    record, secret, events = created(port_store)

    assert port_store.load_game(record.id) == record
    assert port_store.load_document(record.id) == (1, record.document)
    assert port_store.load_for_action(record.id) == (record, secret)
    assert port_store.load_events(record.id, 0, None) == events


def test_a_document_comes_back_byte_for_byte(port_store):
    record, _, _ = created(port_store)

    assert " : " in record.document and port_store.load_document(record.id)[1] == record.document


@pytest.mark.parametrize("read", ["load_game", "load_document", "load_for_action"])
def test_reading_a_game_that_does_not_exist_raises_game_not_found(port_store, read):
    with pytest.raises(GameNotFound):
        getattr(port_store, read)(uuid4())


def test_a_write_lands_only_on_the_version_it_was_decided_on(port_store):
    record, secret, _ = created(port_store)
    first, stale = an_action(record), an_action(record)

    assert port_store.write(first, 1) is True
    assert port_store.write(stale, 1) is False

    game, now = port_store.load_for_action(record.id)
    assert game == first.game and now.state_text == first.state_text and now.token_hash == secret.token_hash
    assert [event.seq for event in port_store.load_events(record.id, 0, None)] == [1, 2]


def test_the_write_that_reveals_the_seeds_stores_the_revealed_deal(port_store):
    record, _, _ = created(port_store)
    played = an_action(record)
    assert port_store.write(played, 1)
    assert port_store.load_game(record.id).deal == record.deal

    revealed = an_action(played.game, deal={**record.deal, "server_seed": "00" * 32, "client_seed": "c"})
    assert port_store.write(revealed, 2)

    assert port_store.load_game(record.id) == revealed.game


def ended(record):
    """The game's end for the public log: an entry of its own (the log holds each entry once)."""
    return PublicEntry(
        record.id,
        public_entries.GAME_ENDED,
        public_entries.game_ended(record.id, "won", 2, "2" * 64, 52, b"\2" * 32, "c"),
    )


@pytest.mark.parametrize(
    "snapshot, entry, result, kept",
    list(itertools.product((False, True), repeat=4)),
    ids=lambda part: "with" if part else "without",
)
def test_a_write_lands_every_part_its_change_has_and_no_other(port_store, snapshot, entry, result, kept):
    player, key, token = a_player()
    port_store.create_player(Joining(player, key, token), None)
    record, secret, events = a_game()
    owned = replace(record, owner=Owner(player.id, player.name, player.kind))
    port_store.create_game(a_creation(owned, secret, events), None)
    change = replace(
        an_action(owned, snapshot=snapshot),
        public_entries=(ended(owned),) if entry else (),
        result=PlayerResult(owned.id, player.id, player.kind, "osmosis", None, True, 52, 0, 1, EPOCH, EPOCH)
        if result
        else None,
    )
    response = a_response() if kept else None

    assert port_store.write(change, owned.version, response)
    assert not port_store.write(change, owned.version, a_response() if kept else None), "moved past its version"
    assert port_store.load_game(owned.id).version == owned.version + 1
    assert (owned.version + 1 in port_store.load_snapshots(owned.id)) is snapshot
    assert (owned.id in port_store.unverified_results(100_000)) is result
    if kept:
        assert port_store.find_response(response.scope, response.key_hash).status == response.status
    logged = [leaf for _, leaf in sequence_all(port_store) if leaf.subject == owned.id]
    assert logged == ([ended(owned)] if entry else [])


def test_a_write_of_a_game_that_does_not_exist_lands_nowhere(port_store):
    record, _, _ = a_game()

    assert port_store.write(an_action(record), 1) is False
    with pytest.raises(GameNotFound):
        port_store.load_game(record.id)


def test_a_write_whose_reply_key_is_taken_writes_nothing(port_store):
    record, _, _ = created(port_store)
    response = a_response(scope=f"game:{record.id}")
    assert port_store.write(an_action(record), 1, response)
    moved = port_store.load_game(record.id)

    with pytest.raises(IdempotencyConflict):
        port_store.write(an_action(moved), 2, response)

    assert port_store.load_game(record.id) == moved
    assert len(port_store.load_events(record.id, 0, None)) == 2


def test_a_locked_game_holds_off_every_other_write_until_its_unit_of_work_ends(port_store):
    record, _, _ = created(port_store)
    landed = []
    elsewhere = threading.Thread(target=lambda: landed.append(port_store.write(an_action(record), 1)))

    with port_store.locked_game(record.id) as locked:
        assert locked.game == record
        elsewhere.start()
        time.sleep(0.3)
        assert landed == []
        locked.write(an_action(locked.game), None)
    elsewhere.join(timeout=10)

    assert landed == [False]
    assert port_store.load_game(record.id).version == 2


def test_a_locked_games_write_refuses_a_game_that_moved_since_it_was_read(port_store):
    record, _, _ = created(port_store)
    with port_store.locked_game(record.id) as locked:
        locked.write(an_action(locked.game), None)
        with pytest.raises(VersionConflict):
            locked.write(an_action(locked.game), None)


def test_locking_a_game_that_does_not_exist_raises_game_not_found(port_store):
    with pytest.raises(GameNotFound), port_store.locked_game(uuid4()):
        pass


def test_events_are_read_by_range_and_limit(port_store):
    record, _, _ = created(port_store)
    for version in range(1, 6):
        assert port_store.write(an_action(port_store.load_game(record.id)), version)

    def seqs(*args, **kwargs):
        return [event.seq for event in port_store.load_events(record.id, *args, **kwargs)]

    assert seqs(0, None) == [1, 2, 3, 4, 5, 6]
    assert seqs(2, 2) == [3, 4]
    assert seqs(2, None, upto=4) == [3, 4]
    assert seqs(6, None) == []
    with pytest.raises(GameNotFound):
        port_store.load_events(uuid4(), 0, None)


def test_time_travel_starts_at_the_latest_snapshot_at_or_before_the_event(port_store):
    record, _, _ = created(port_store)
    for version in range(1, 8):
        assert port_store.write(an_action(port_store.load_game(record.id), snapshot=version in (2, 5)), version)

    assert port_store.load_snapshots(record.id) == {3: "position at 3", 6: "position at 6"}
    early = port_store.load_time_travel(record.id, 2)
    assert early.snapshot is None and [event.seq for event in early.events] == [1, 2, 3, 4]
    late = port_store.load_time_travel(record.id, 6)
    assert late.snapshot == (6, "position at 6") and [event.seq for event in late.events] == [6, 7, 8]
    assert late.rules == record.rules and late.deal == record.deal
    with pytest.raises(GameNotFound):
        port_store.load_time_travel(uuid4(), 1)


def test_games_are_listed_newest_first_a_page_at_a_time_by_status_and_variant(port_store):
    at = EPOCH - timedelta(days=1000)
    ours = [
        created(port_store, created_at=at + timedelta(seconds=i), status=status, variant=variant)[0]
        for i, (status, variant) in enumerate([("won", "peek"), ("playing", "peek"), ("won", None)] * 2)
    ]
    last = max(ours, key=lambda game: game.created_at)
    before = (last.created_at + timedelta(microseconds=1), last.id)

    def listed(**kwargs):
        games = port_store.list_games(GamesPage(100, before, **kwargs))
        return [game.id for game in games if game in ours]

    newest_first = [game.id for game in reversed(ours)]
    assert listed() == newest_first
    assert listed(status="won") == [game.id for game in reversed(ours) if game.status == "won"]
    assert listed(status="won", variant="peek") == [ours[3].id, ours[0].id]
    page = port_store.list_games(GamesPage(2, (ours[4].created_at, ours[4].id)))
    assert [game.id for game in page] == [ours[3].id, ours[2].id]


def test_games_made_at_the_same_moment_are_told_apart_by_id(port_store):
    at = EPOCH - timedelta(days=9000)
    ours = sorted((created(port_store, created_at=at)[0] for _ in range(3)), key=lambda game: game.id)

    page = port_store.list_games(GamesPage(3, (at, ours[2].id)))

    assert [game.id for game in page][:2] == [ours[1].id, ours[0].id]


def test_versions_are_read_for_the_games_that_exist(port_store):
    one, _, _ = created(port_store)
    other, _, _ = created(port_store)
    assert port_store.write(an_action(other), 1)

    assert port_store.read_versions([str(one.id), str(other.id), str(uuid4())]) == {str(one.id): 1, str(other.id): 2}


def test_the_latest_action_an_undo_takes_back_is_the_one_the_rules_fold_leaves_on_top(port_store):
    cases = compose(port_store)
    made = cases.creating.handle(NewGame(preset("osmosis-draw-one"), NumberedDeal(3))).outcome
    game_id, token = made.game.id, made.player_token
    commands = {"d": Draw, "u": Undo, "h": Hint}
    # Undos one after another, an action and its undo again and again, hints between: every way back.
    for letter in "ddhduuhdddhuuduuddudhuduuudd":
        cases.acting.handle(commands[letter](game_id, token))
    record, secret = port_store.load_for_action(game_id)
    events = port_store.load_events(game_id, 0, None)
    opening = game_opening(Rules.from_mapping(record.rules), secret.server_seed, secret.client_seed, record.deal)

    for upto in range(1, len(events) + 1):
        on_top: list = []
        for _ in ev.positions(opening, events[:upto], on_top):
            pass
        assert port_store.latest_action(game_id, upto) == (on_top[-1][0] if on_top else None), upto


def test_the_games_acted_on_since_a_moment_are_those_moved_past_their_deal_since(port_store):
    clock = Clock(datetime(2031, 5, 1, 12, tzinfo=UTC) + timedelta(seconds=random.randrange(10**8)))
    cases = compose(port_store, sources=Sources(clock=clock))
    rules = preset("osmosis-draw-one")
    made = [cases.creating.handle(NewGame(rules, NumberedDeal(3))).outcome for _ in range(3)]
    cases.acting.handle(Draw(made[0].game.id, made[0].player_token))
    clock.now += timedelta(minutes=10)
    cases.acting.handle(Draw(made[1].game.id, made[1].player_token))

    ids = {change.game.id for change in made}
    acted = port_store.list_games(GamesPage(100, acted_since=clock.now - timedelta(minutes=5)))
    assert [game.id for game in acted if game.id in ids] == [made[1].game.id]
    since_the_start = port_store.list_games(GamesPage(100, acted_since=clock.now - timedelta(minutes=15)))
    assert {game.id for game in since_the_start if game.id in ids} == {made[0].game.id, made[1].game.id}
