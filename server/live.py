"""The live tier: how a change of a game reaches every connection waiting for it, in any process.

A process that lands an action hands the change to its hub, which passes it at once to this process's
waiting connections (event streams, long polls, the multi-game feed) and publishes it, events and all,
to every other process through PostgreSQL's LISTEN/NOTIFY. Each process listens on one connection of its
own, so a follower learns of an event a few milliseconds after it commits, whichever process it is
connected to, and without reading the database. Publishing happens after the action's own transaction,
batched, so it never holds up the actions' commits. A slow poll of the versions of the games followed
here catches up with whatever a lost notification (a listener reconnecting, a publisher that died) did
not bring.

Under gunicorn's gevent workers the hub's threads and every waiting connection are greenlets: a follower
costs a socket and a few kilobytes, not a thread. The hub works the same with real threads (the tests).
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger(__name__)

PAYLOAD_LIMIT = 7900
"""PostgreSQL refuses a notification of 8000 bytes or more: a change that would not fit is told without its
events, which its followers then read from the log."""
PENDING_LIMIT = 256
"""Changes a connection may leave unread before it is told to catch up from the log instead."""


class ChangeFeed(Protocol):
    """What the hub needs of the database: see PostgresStore."""

    def read_versions(self, game_ids: Collection[str]) -> dict[str, int]: ...

    def publish_changes(self, payloads: Sequence[str]) -> None: ...

    def listen_for_changes(self, on_change: Callable[[str], None], on_listening: Callable[[], None],
                           stopped: threading.Event) -> None: ...


@dataclass(frozen=True, slots=True)
class Change:
    """A game's new version and the events that made it; `events` is empty when they were not told (too
    large for a notification, or found by the poll): then they are in the log."""

    game_id: str
    variant: str | None
    version: int
    events: tuple[dict[str, Any], ...] = ()
    origin: str = ""
    """The hub that published it, so that a hub skips its own notifications."""


def encode(change: Change) -> str:
    payload = json.dumps({"o": change.origin, "g": change.game_id, "v": change.variant, "n": change.version,
                          "e": change.events}, separators=(",", ":"), ensure_ascii=False)
    if len(payload.encode()) <= PAYLOAD_LIMIT:
        return payload
    return json.dumps({"o": change.origin, "g": change.game_id, "v": change.variant, "n": change.version, "e": []},
                      separators=(",", ":"))


def decode(payload: str) -> Change | None:
    try:
        fields = json.loads(payload)
        return Change(str(fields["g"]), fields["v"], int(fields["n"]), tuple(fields["e"]), str(fields["o"]))
    except (ValueError, KeyError, TypeError):
        log.warning("a change notification that is not one of ours: %.200s", payload)
        return None


@dataclass(eq=False, slots=True)
class Subscription:
    """One waiting connection's share of the changes: those of `game_ids` (every game when None) of
    `variant` (any when None). With `on_change`, each change is passed to it at once, in the thread or
    greenlet that dispatches it (it must not block); without, changes wait for `wait`."""

    game_ids: frozenset[str] | None
    variant: str | None
    on_change: Callable[[Change], None] | None = None
    overflowed: bool = False
    """More changes came than the connection read: it must catch up from the log."""
    stopped: bool = False
    """The process is shutting down: the connection should end now."""
    _pending: deque[Change] = field(default_factory=deque)
    _arrived: threading.Event = field(default_factory=threading.Event)

    def wants(self, change: Change) -> bool:
        return ((self.game_ids is None or change.game_id in self.game_ids)
                and (self.variant is None or change.variant == self.variant))

    def wait(self, timeout: float) -> list[Change]:
        """The changes that came since the last call, waiting up to `timeout` seconds for the first; none
        after the timeout, or at once once the hub stops."""
        if not self._pending and not self.stopped:
            self._arrived.wait(timeout)
        self._arrived.clear()
        changes = []
        while self._pending:
            changes.append(self._pending.popleft())
        return changes

    def _deliver(self, change: Change) -> None:
        if self.on_change is not None:
            self.on_change(change)
            return
        if len(self._pending) >= PENDING_LIMIT:
            self.overflowed = True
            self._pending.clear()
        self._pending.append(change)
        self._arrived.set()

    def _stop(self) -> None:
        self.stopped = True
        self._arrived.set()


class Hub:
    """This process's waiting connections, and the changes that reach them."""

    def __init__(self, feed: ChangeFeed, poll_seconds: float = 2.0) -> None:
        self._feed = feed
        self._poll_seconds = poll_seconds
        self._origin = secrets.token_hex(8)
        self._lock = threading.Lock()
        self._by_game: dict[str, set[Subscription]] = {}
        self._everything: set[Subscription] = set()
        self._known: dict[str, int] = {}
        """The latest version passed on, of each game some connection here follows."""
        self._outbox: deque[str] = deque()
        self._outbox_filled = threading.Event()
        self._poll_now = threading.Event()
        self._stopped = threading.Event()
        self._threads: dict[str, threading.Thread] = {}
        self._on_stop: list[Callable[[], None]] = []

    def on_stop(self, stopping: Callable[[], None]) -> None:
        """Call `stopping` first thing when the hub stops (the pusher says goodbye to its connections)."""
        self._on_stop.append(stopping)

    # --- what the HTTP layer calls ----------------------------------------------------------------

    @contextmanager
    def subscribe(self, game_ids: Collection[str] | None = None, variant: str | None = None) -> Iterator[Subscription]:
        """The changes of `game_ids` (of every game when None) of `variant`, for as long as the block runs.

        Subscribe before reading what the connection sends first, so that nothing committed between
        that read and the first change is missed."""
        subscription = self.open(game_ids, variant)
        try:
            yield subscription
        finally:
            self.close(subscription)

    def open(self, game_ids: Collection[str] | None = None, variant: str | None = None,
             on_change: Callable[[Change], None] | None = None) -> Subscription:
        """A subscription that lasts until `close`: see `subscribe`."""
        self._start("listener", self._listen)
        subscription = Subscription(None if game_ids is None else frozenset(game_ids), variant, on_change)
        with self._lock:
            if subscription.game_ids is None:
                self._everything.add(subscription)
            for game_id in subscription.game_ids or ():
                self._by_game.setdefault(game_id, set()).add(subscription)
            if self._stopped.is_set():
                subscription._stop()
        if subscription.game_ids:
            self._start("poller", self._poll)
        return subscription

    def close(self, subscription: Subscription) -> None:
        with self._lock:
            self._everything.discard(subscription)
            for game_id in subscription.game_ids or ():
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
        with self._lock:
            subscriptions = [*self._everything, *(s for followers in self._by_game.values() for s in followers)]
        for subscription in subscriptions:
            subscription._stop()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    # --- what the service calls -------------------------------------------------------------------

    def changed(self, game_id: str, variant: str | None, version: int, events: Sequence[dict[str, Any]]) -> None:
        """An action landed here: tell this process's connections at once, and every other process."""
        change = Change(game_id, variant, version, tuple(events), self._origin)
        self._dispatch(change)
        self._start("publisher", self._publish)
        self._outbox.append(encode(change))
        self._outbox_filled.set()

    # --- inside -----------------------------------------------------------------------------------

    def _dispatch(self, change: Change, to_everything: bool = True) -> None:
        with self._lock:
            followers = self._by_game.get(change.game_id)
            if followers is not None:
                if change.version <= self._known.get(change.game_id, 0):
                    followers = None  # old news: it was passed on already, or a later change covers it
                else:
                    self._known[change.game_id] = change.version
            everything = [s for s in self._everything if s.wants(change)] if to_everything else []
            targets = [*(followers or ()), *everything]
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

        self._feed.listen_for_changes(on_change, self._poll_now.set, self._stopped)

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
                try:
                    self._feed.publish_changes(batch)
                except Exception:  # the poll brings the followers elsewhere what this batch would have
                    log.warning("could not publish %d changes", len(batch), exc_info=True)

    def _poll(self) -> None:
        while not self._stopped.is_set():
            self._poll_now.wait(self._poll_seconds)
            self._poll_now.clear()
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
                    self._dispatch(Change(game_id, None, version), to_everything=False)
