"""The hub's notifications to other processes: a lone change goes out at once, a burst in few round trips."""

import json
import time

from server.live.hub import PAYLOAD_LIMIT, Change, Hub, decode, notice
from tests.waiting import until


class RecordingFeed:
    """Publishes into a list; nothing listens."""

    def __init__(self) -> None:
        self.published: list[list[str]] = []

    def publish_changes(self, payloads):
        self.published.append(list(payloads))

    def listen_for_changes(self, on_change, on_listening, stopped):
        stopped.wait()


def test_a_lone_change_is_published_at_once():
    feed = RecordingFeed()
    hub = Hub(feed, publish_spacing=10.0)
    try:
        started = time.monotonic()
        hub.changed("g1", 2, '[{"seq":2}]')
        until(lambda: feed.published)
        assert time.monotonic() - started < 2.0  # not held for the spacing: nothing was published before it
    finally:
        hub.stop()
    assert [decode(payload).version for payload in feed.published[0]] == [2]


def test_changes_within_the_spacing_go_out_together_in_order_after_it():
    feed = RecordingFeed()
    hub = Hub(feed, publish_spacing=0.5)
    try:
        hub.changed("g1", 2, "[]")
        until(lambda: feed.published)
        for version in range(3, 13):
            hub.changed("g1", version, "[]")
        time.sleep(0.2)
        assert len(feed.published) == 1, "a change published before the spacing passed"
        until(lambda: len(feed.published) == 2)
    finally:
        hub.stop()
    assert [decode(payload).version for payload in feed.published[1]] == list(range(3, 13))


def test_a_notice_carries_the_events_as_the_write_holds_them_and_reads_back():
    events_json = '[{"seq":3,"kind":"card_played","data":{"card":"AH","to":"F1"},"hash":"ab"}]'
    change = decode(notice("hub1", "g1", 3, events_json))
    assert change == Change(
        "g1", 3, ({"seq": 3, "kind": "card_played", "data": {"card": "AH", "to": "F1"}, "hash": "ab"},), "hub1"
    )


def test_a_notice_too_large_for_postgresql_goes_without_its_events():
    events_json = json.dumps([{"seq": 3, "kind": "hint_given", "data": {"text": "é" * PAYLOAD_LIMIT}, "hash": "ab"}])
    payload = notice("hub1", "g1", 3, events_json)
    assert len(payload.encode()) <= PAYLOAD_LIMIT
    assert decode(payload) == Change("g1", 3, (), "hub1")


def test_a_connection_here_gets_the_change_with_its_events_and_the_others_the_notice():
    feed = RecordingFeed()
    hub = Hub(feed)
    try:
        with hub.subscribe(["g1"]) as following:
            hub.changed("g1", 2, '[{"seq":2,"kind":"cards_dealt","data":{},"hash":"cd"}]')
            hub.changed("g2", 5, "[]")
            received = following.wait(2.0)
        until(lambda: sum(len(batch) for batch in feed.published) == 2)
    finally:
        hub.stop()
    assert [(c.game_id, c.version, c.events) for c in received] == [
        ("g1", 2, ({"seq": 2, "kind": "cards_dealt", "data": {}, "hash": "cd"},))
    ]
    assert [decode(payload).game_id for batch in feed.published for payload in batch] == ["g1", "g2"]
