"""The hub's notifications to other processes: a lone change goes out at once, a burst in few round trips."""

import time

from server.live.hub import Hub, decode
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
        hub.changed("g1", 2, [{"seq": 2}])
        until(lambda: feed.published)
        assert time.monotonic() - started < 2.0  # not held for the spacing: nothing was published before it
    finally:
        hub.stop()
    assert [decode(payload).version for payload in feed.published[0]] == [2]


def test_changes_within_the_spacing_go_out_together_in_order_after_it():
    feed = RecordingFeed()
    hub = Hub(feed, publish_spacing=0.5)
    try:
        hub.changed("g1", 2, [])
        until(lambda: feed.published)
        for version in range(3, 13):
            hub.changed("g1", version, [])
        time.sleep(0.2)
        assert len(feed.published) == 1, "a change published before the spacing passed"
        until(lambda: len(feed.published) == 2)
    finally:
        hub.stop()
    assert [decode(payload).version for payload in feed.published[1]] == list(range(3, 13))
