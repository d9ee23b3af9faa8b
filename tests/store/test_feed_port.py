"""The Feed port: every game's events in one order, the same for every reader, each event once."""

from server.service.feed import FEED_START
from tests.store.records import a_creation, a_game, an_action
from tests.waiting import until


def entries_after(store, position):
    entries, _ = store.read_feed(position, 10_000)
    return entries


def written_by(store, record, position):
    """The game's entries in the feed after `position`, once the feed has reached them: it reaches an event once
    every transaction begun before it has ended, in any database of the server (another test's, in a parallel
    run), and the tests wait for that."""
    return [entry for entry in entries_after(store, position) if entry.event["game_id"] == str(record.id)]


def test_events_written_after_the_head_follow_it_in_the_order_they_landed(port_store):
    head = port_store.feed_head()
    (one, *one_rest), (other, *other_rest) = a_game(variant="peek"), a_game(variant=None)
    port_store.create_game(a_creation(one, *one_rest), None)
    port_store.create_game(a_creation(other, *other_rest), None)
    assert port_store.write(an_action(one), 1)

    def ours():
        return [
            entry
            for entry in entries_after(port_store, head.position)
            if entry.event["game_id"] in (str(one.id), str(other.id))
        ]

    until(lambda: len(ours()) == 3, seconds=30)
    ours = ours()

    assert [(entry.event["game_id"], entry.event["seq"]) for entry in ours] == [
        (str(one.id), 1),
        (str(other.id), 1),
        (str(one.id), 2),
    ]
    assert [entry.variant for entry in ours] == ["peek", None, "peek"]
    assert ours[2].event == {
        "game_id": str(one.id),
        "seq": 2,
        "kind": "cards_dealt",
        "data": {"cards": ["AS"], "at": 2},
        "hash": f"{2:064x}",
    }
    positions = [entry.position for entry in ours]
    assert positions == sorted(positions) and positions[0] > head.position


def test_the_feed_is_read_a_page_at_a_time_from_where_the_last_page_ended(port_store):
    head = port_store.feed_head()
    record, secret, events = a_game()
    port_store.create_game(a_creation(record, secret, events), None)
    for version in range(1, 5):
        assert port_store.write(an_action(port_store.load_game(record.id)), version)
    until(lambda: len(written_by(port_store, record, head.position)) == 5, seconds=30)

    whole = entries_after(port_store, head.position)
    paged, position = [], head.position
    while page := port_store.read_feed(position, 2)[0]:
        assert len(page) <= 2
        paged += page
        position = page[-1].position

    assert paged == whole and [entry.event["seq"] for entry in whole if entry.event["game_id"] == str(record.id)] == [
        1,
        2,
        3,
        4,
        5,
    ]


def test_the_head_stands_at_the_last_event_and_says_what_had_committed_by_then(port_store):
    record, secret, events = a_game()
    port_store.create_game(a_creation(record, secret, events), None)
    until(lambda: written_by(port_store, record, FEED_START), seconds=30)

    head = port_store.feed_head()

    assert entries_after(port_store, head.position) == []
    written = [entry for entry in entries_after(port_store, FEED_START) if entry.event["game_id"] == str(record.id)]
    assert written and written[-1].position <= head.position
    assert head.committed_before(written[-1].position.tx)
    assert not head.committed_before(head.xmax)
