"""The live tier: how a change of a game reaches every connection waiting for it, in any process.

A process that lands an action hands the change to its hub, which passes it at once to this process's
waiting connections on that game (event streams, long polls) and publishes it, events and all, to every
other process through PostgreSQL's LISTEN/NOTIFY. Each process listens on one connection of its own, so
a follower learns of an event a few milliseconds after it commits, whichever process it is connected to,
and without reading the database. Publishing happens after the action's own transaction, batched, so it
never holds up the actions' commits; one round trip at most every PUBLISH_SPACING_SECONDS carries every
change made meanwhile (a round trip a change cost an action a third of its CPU). A slow poll of the
versions of the games followed here catches up with whatever a lost notification (a listener reconnecting,
a publisher that died) did not bring.

The feed of many games reads the log itself instead: one reader per process (the tail) follows the log in
the feed's order (store.READ_FEED), woken by the same changes and notifications and by the poll, and hands
each batch it reads to every feed connection of the process. Batches say where they start, so a
connection that missed one (it read too slowly) reads what it missed from the log: every event once, each
game's in order, across any restart.

Under gunicorn's gevent workers the hub's threads and every waiting connection are greenlets: a follower
costs a socket and a few kilobytes, not a thread. The hub works the same with real threads (the tests).
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ..service.feed import FeedEntry, FeedPosition
from ..service.ports import ChangeNotices, Feed

log = logging.getLogger(__name__)

PAYLOAD_LIMIT = 7900
"""PostgreSQL refuses a notification of 8000 bytes or more: a change that would not fit is told without its
events, which its followers then read from the log."""
PENDING_LIMIT = 256
"""Changes (or feed batches) a connection may leave unread before it must catch up from the log instead."""
FEED_PAGE = 1000
"""Events the tail reads at a time."""
PUBLISH_SPACING_SECONDS = 0.025
"""The least time between two notifications' round trips of a process. A change after a quiet spell goes out at
once; under load, the changes of the next few milliseconds wait for one round trip together, which a follower in
another process does not notice and which costs the process a fraction of a round trip a change."""
PENDING_RECHECK_SECONDS = 0.02
"""How soon the tail reads again when committed events wait for an older transaction to end (doubling while
they wait, up to the poll's interval)."""


class ChangeFeed(Feed, ChangeNotices, Protocol):
    """What the hub needs of the store: the feed, and the notices of changes."""


@dataclass(frozen=True, slots=True)
class Change:
    """A game's new version and the events that made it; `events` is empty when they were not told (too
    large for a notification, or found by the poll): then they are in the log."""

    game_id: str
    version: int
    events: tuple[dict[str, Any], ...] = ()
    origin: str = ""
    """The hub that published it, so that a hub skips its own notifications."""


def notice(origin: str, game_id: str, version: int, events_json: str) -> str:
    """The notification of a change: its events as the action's write and reply carry them (`events_json`, a JSON
    array), or none when that would not fit."""
    head = f'{{"o":{json.dumps(origin)},"g":{json.dumps(game_id)},"n":{int(version)},"e":'
    payload = f"{head}{events_json}}}"
    return payload if len(payload.encode()) <= PAYLOAD_LIMIT else f"{head}[]}}"


def decode(payload: str) -> Change | None:
    try:
        fields = json.loads(payload)
        return Change(str(fields["g"]), int(fields["n"]), tuple(fields["e"]), str(fields["o"]))
    except (ValueError, KeyError, TypeError):
        log.warning("a change notification that is not one of ours: %.200s", payload)
        return None


T = TypeVar("T")


class Mailbox(Generic[T]):
    """What came for one waiting connection, until it reads it with `wait`; past PENDING_LIMIT unread, it is
    dropped and `overflowed` says so: the connection must then read what it missed from the log."""

    def __init__(self) -> None:
        self.overflowed = False
        self.stopped = False
        """The process is shutting down: the connection should end now."""
        self._pending: deque[T] = deque()
        self._arrived = threading.Event()

    def wait(self, timeout: float) -> list[T]:
        """What came since the last call, waiting up to `timeout` seconds for the first; nothing after the
        timeout, or at once once the hub stops."""
        if not self._pending and not self.stopped:
            self._arrived.wait(timeout)
        self._arrived.clear()
        arrived = []
        while self._pending:
            arrived.append(self._pending.popleft())
        return arrived

    def _deliver(self, item: T) -> None:
        if len(self._pending) >= PENDING_LIMIT:
            self.overflowed = True
            self._pending.clear()
        self._pending.append(item)
        self._arrived.set()

    def _stop(self) -> None:
        self.stopped = True
        self._arrived.set()


class Subscription(Mailbox[Change]):
    """One waiting connection's share of the changes: those of `game_ids`. With `on_change`, each change is
    passed to it at once, in the thread or greenlet that dispatches it (it must not block); without,
    changes wait for `wait`."""

    def __init__(self, game_ids: frozenset[str], on_change: Callable[[Change], None] | None = None) -> None:
        super().__init__()
        self.game_ids = game_ids
        self.on_change = on_change

    def _deliver(self, change: Change) -> None:
        if self.on_change is not None:
            self.on_change(change)
        else:
            super()._deliver(change)


@dataclass(frozen=True, slots=True)
class FeedBatch:
    """Every event of the feed after `after`, up to the last of `entries`, as the tail read them."""

    after: FeedPosition
    entries: tuple[FeedEntry, ...]


class FeedSubscription(Mailbox[FeedBatch]):
    """One feed connection's share of the tail's batches."""


class Hub:
    """This process's waiting connections, and the changes that reach them."""

    def __init__(
        self, feed: ChangeFeed, poll_seconds: float = 2.0, publish_spacing: float = PUBLISH_SPACING_SECONDS
    ) -> None:
        self._feed = feed
        self._poll_seconds = poll_seconds
        self._publish_spacing = publish_spacing
        self._origin = secrets.token_hex(8)
        self._lock = threading.Lock()
        self._by_game: dict[str, set[Subscription]] = {}
        self._feeds: set[FeedSubscription] = set()
        self._known: dict[str, int] = {}
        """The latest version passed on, of each game some connection here follows."""
        self._outbox: deque[str] = deque()
        """The notifications not yet published."""
        self._outbox_filled = threading.Event()
        self._poll_now = threading.Event()
        self._tail_now = threading.Event()
        self._stopped = threading.Event()
        self._threads: dict[str, threading.Thread] = {}
        self._on_stop: list[Callable[[], None]] = []

    def on_stop(self, stopping: Callable[[], None]) -> None:
        """Call `stopping` first thing when the hub stops (the pusher says goodbye to its connections)."""
        self._on_stop.append(stopping)

    # --- what the HTTP layer calls ----------------------------------------------------------------

    @contextmanager
    def subscribe(self, game_ids: Collection[str]) -> Iterator[Subscription]:
        """The changes of `game_ids`, for as long as the block runs.

        Subscribe before reading what the connection sends first, so that nothing committed between
        that read and the first change is missed."""
        subscription = self.open(game_ids)
        try:
            yield subscription
        finally:
            self.close(subscription)

    def open(self, game_ids: Collection[str], on_change: Callable[[Change], None] | None = None) -> Subscription:
        """A subscription that lasts until `close`: see `subscribe`."""
        self._start("listener", self._listen)
        subscription = Subscription(frozenset(game_ids), on_change)
        with self._lock:
            for game_id in subscription.game_ids:
                self._by_game.setdefault(game_id, set()).add(subscription)
            if self._stopped.is_set():
                subscription._stop()
        self._start("poller", self._poll)
        return subscription

    @contextmanager
    def follow_feed(self) -> Iterator[FeedSubscription]:
        """The tail's batches of the feed of every game, for as long as the block runs. Follow before
        reading the feed's position to start from, so that no batch after it is missed."""
        subscription = FeedSubscription()
        self._start("listener", self._listen)
        self._start("poller", self._poll)
        with self._lock:
            self._feeds.add(subscription)
            if self._stopped.is_set():
                subscription._stop()
        self._start("tail", self._tail)
        self._tail_now.set()
        try:
            yield subscription
        finally:
            with self._lock:
                self._feeds.discard(subscription)

    def close(self, subscription: Subscription) -> None:
        with self._lock:
            for game_id in subscription.game_ids:
                followers = self._by_game[game_id]
                followers.discard(subscription)
                if not followers:
                    del self._by_game[game_id]
                    self._known.pop(game_id, None)

    def stop(self) -> None:
        """The process is stopping: every waiting connection ends now, and every one that comes later."""
        for stopping in self._on_stop:
            stopping()
        self._stopped.set()
        self._outbox_filled.set()
        self._poll_now.set()
        self._tail_now.set()
        with self._lock:
            subscriptions: list[Subscription | FeedSubscription] = [
                *self._feeds,
                *(s for followers in self._by_game.values() for s in followers),
            ]
        for subscription in subscriptions:
            subscription._stop()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    # --- what the service calls -------------------------------------------------------------------

    def changed(self, game_id: str, version: int, events_json: str) -> None:
        """An action landed here, appending the events `events_json` holds: tell this process's connections at
        once, and every other process."""
        if game_id in self._by_game:  # its events are read back only for a connection here that follows it
            self._dispatch(Change(game_id, version, tuple(json.loads(events_json)), self._origin))
        if self._feeds:
            self._tail_now.set()
        self._start("publisher", self._publish)
        self._outbox.append(notice(self._origin, game_id, version, events_json))
        if not self._outbox_filled.is_set():  # set, the publisher clears it before it drains, so it takes this one
            self._outbox_filled.set()

    # --- inside -----------------------------------------------------------------------------------

    def _dispatch(self, change: Change) -> None:
        with self._lock:
            followers = self._by_game.get(change.game_id)
            if followers is None or change.version <= self._known.get(change.game_id, 0):
                return  # nobody here follows the game, or old news: passed on already, or a later change covers it
            self._known[change.game_id] = change.version
            targets = list(followers)
        for subscription in targets:
            subscription._deliver(change)

    def _start(self, name: str, run: Callable[[], None]) -> None:
        if name in self._threads:
            return
        with self._lock:
            if name not in self._threads:
                thread = threading.Thread(target=run, name=f"osmosis-live-{name}", daemon=True)
                self._threads[name] = thread
                thread.start()

    def _listen(self) -> None:
        def on_change(payload: str) -> None:
            change = decode(payload)
            if change is not None and change.origin != self._origin:
                self._dispatch(change)
                self._tail_now.set()

        def on_listening() -> None:
            self._poll_now.set()
            self._tail_now.set()

        self._feed.listen_for_changes(on_change, on_listening, self._stopped)

    def _publish(self) -> None:
        while not self._stopped.is_set():
            self._outbox_filled.wait()
            self._outbox_filled.clear()
            batch: list[str] = []
            while self._outbox and len(batch) < 500:
                batch.append(self._outbox.popleft())
            if self._outbox:
                self._outbox_filled.set()
            if batch:
                began = time.monotonic()
                try:
                    self._feed.publish_changes(batch)
                except Exception:  # the poll brings the followers elsewhere what this batch would have
                    log.warning("could not publish %d changes", len(batch), exc_info=True)
                if (rest := began + self._publish_spacing - time.monotonic()) > 0:
                    self._stopped.wait(rest)

    def _poll(self) -> None:
        while not self._stopped.is_set():
            self._poll_now.wait(self._poll_seconds)
            self._poll_now.clear()
            self._tail_now.set()
            with self._lock:
                followed = list(self._by_game)
            if not followed:
                continue
            try:
                versions = self._feed.read_versions(followed)
            except Exception:
                log.warning("could not read the versions of the games followed", exc_info=True)
                continue
            for game_id, version in versions.items():
                if version > self._known.get(game_id, 0):
                    self._dispatch(Change(game_id, version))

    def _tail(self) -> None:
        """Read the feed from the log whenever woken, and hand each batch to every feed connection here."""
        position: FeedPosition | None = None
        wait, pending = self._poll_seconds, False
        while not self._stopped.is_set():
            self._tail_now.wait(wait)
            self._tail_now.clear()
            with self._lock:
                feeds = list(self._feeds)
            if not feeds:
                position = None  # nobody reads: a connection that comes later starts from the head then
                continue
            was_pending = pending
            try:
                if position is None:
                    position = self._feed.feed_head().position
                while True:
                    entries, pending = self._feed.read_feed(position, FEED_PAGE)
                    if entries:
                        batch = FeedBatch(position, tuple(entries))
                        position = entries[-1].position
                        with self._lock:
                            feeds = list(self._feeds)
                        for subscription in feeds:
                            subscription._deliver(batch)
                    if len(entries) < FEED_PAGE:
                        break
            except Exception:
                log.warning("could not read the feed of events; reading again at the next poll", exc_info=True)
                wait, pending = self._poll_seconds, False
                continue
            # Events committed behind a transaction still running show once it ends: look again soon, then
            # less and less often for as long as they wait.
            if not pending:
                wait = self._poll_seconds
            elif not was_pending:
                wait = PENDING_RECHECK_SECONDS
            else:
                wait = min(wait * 2, self._poll_seconds)
