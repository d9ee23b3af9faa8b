"""Server-sent event streams and long polls: the HTTP side of the live tier (server/live/).

A stream subscribes to the hub before it reads anything from the log, so that nothing committed between
its reads and its first change is missed; it then sends what its following (live/following.py) finds in
each change, which reads the log only when a change came without its events or after a gap.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar
from uuid import UUID

from ...game.document import to_json
from ...live.following import FeedFollowing, GameFollowing
from ...live.hub import Hub
from ...service.competitions.watching import WATCH_SECONDS, Watching, changes
from ...service.feed import FeedEntry, FeedPosition
from ...service.games.queries import GameQueries

RETRY = "retry: 2000\n\n"
KEEP_ALIVE = ": keep-alive\n\n"
SHUTDOWN = ": the server is stopping: reconnect\nretry: 1000\n\n"
"""The last message of every stream when the server stops: an EventSource reconnects a second later, to
another server or this one restarted, and resumes at Last-Event-ID."""
FALLEN_BEHIND = ": this connection fell behind: reconnect\nretry: 1000\n\n"
KEEP_ALIVE_SECONDS = 15
STREAM_SECONDS = 1800
"""How long one stream stays open; EventSource reconnects by itself, resuming at Last-Event-ID."""
T = TypeVar("T")


def event_message(event: dict[str, Any]) -> str:
    return f"id: {event['seq']}\ndata: {to_json(event)}\n\n"


def event_messages(events: list[dict[str, Any]]) -> str:
    return "".join(map(event_message, events))


def is_over(document: str) -> bool:
    """Whether the game of this document is over: then its log is whole, and its stream has nothing to wait for."""
    status: str = json.loads(document)["status"]
    return status != "playing"


def game_message(document: str) -> str:
    return f"event: game\ndata: {document}\n\n"


def game_stream(queries: GameQueries, hub: Hub, game_id: UUID, after: int) -> Iterator[str]:
    """One game: the game as it is now, its events after `after`, then each new event as it commits;
    ends after the game's last event."""
    with hub.subscribe([str(game_id)]) as subscription:
        _, document = queries.get_game(game_id)
        following = GameFollowing(str(game_id), after)
        yield RETRY + game_message(document) + event_messages(following.from_log(queries))
        if following.ended or is_over(document):
            return
        for changes in _waited(subscription):
            if isinstance(changes, str):
                yield changes
                continue
            catch_up, subscription.overflowed = subscription.overflowed, False
            if events := following.follow(queries, changes, catch_up):
                yield event_messages(events)
            if following.ended:
                return


def feed_stream(
    queries: GameQueries, hub: Hub, game_ids: list[UUID] | None, variant: str | None, after: FeedPosition | None
) -> Iterator[str]:
    """Many games: every event of every game (of `variant`), or only of `game_ids`, in the feed's order,
    each message's id its position, from `after` on (the Last-Event-ID). Without `after`: from now on, and
    with `game_ids` each game as it is now first. Every event names its game."""
    with hub.follow_feed() as subscription:
        following = FeedFollowing(queries, game_ids, variant, after)
        opening = [RETRY]
        if after is None:
            for game_id in game_ids or ():
                following.shown[str(game_id)], document = queries.get_game(game_id)
                opening.append(game_message(document))
        yield "".join(opening)
        if after is not None:  # a reconnection: what came since, before anything new
            yield from map(feed_messages, following.from_log())
        for batches in _waited(subscription):
            if isinstance(batches, str):
                yield batches
                continue
            catch_up, subscription.overflowed = subscription.overflowed, False
            yield from map(feed_messages, following.follow(batches, catch_up))


def feed_messages(entries: list[FeedEntry]) -> str:
    return "".join(map(feed_message, entries))


def feed_message(entry: FeedEntry) -> str:
    return f"id: {entry.position}\ndata: {to_json(entry.event)}\n\n"


def competition_stream(
    watching: Watching, competition_id: UUID, sleep: Callable[[float], object] = time.sleep
) -> Iterator[str]:
    """A competition: its standings now (`event: standings`), then what changes as it comes (`entered`, `withdrawn`,
    `started`, `progress`, `finished`, `timed_out`, `closed`, `amended`), looked at every WATCH_SECONDS; ends once
    its results are final, or after STREAM_SECONDS."""
    seen = watching.standings(competition_id)
    yield RETRY + f"event: standings\ndata: {to_json(seen)}\n\n"
    deadline, quiet_since = time.monotonic() + STREAM_SECONDS, time.monotonic()
    while seen["competition"]["status"] != "final" and time.monotonic() < deadline:
        sleep(WATCH_SECONDS)
        now = watching.standings(competition_id)
        told = changes(seen, now)
        seen = now
        if told:
            quiet_since = time.monotonic()
            yield "".join(f"event: {kind}\ndata: {to_json(data)}\n\n" for kind, data in told)
        elif time.monotonic() - quiet_since >= KEEP_ALIVE_SECONDS:
            quiet_since = time.monotonic()
            yield KEEP_ALIVE


class _Waiting(Protocol[T]):
    stopped: bool

    def wait(self, timeout: float) -> list[T]: ...


def _waited(subscription: _Waiting[T]) -> Iterator[list[T] | str]:
    """What a stream waits for: each batch of changes as it comes, a keep-alive while none does, and the
    shutdown message if the server stops; ends after STREAM_SECONDS."""
    deadline = time.monotonic() + STREAM_SECONDS
    while True:
        changes = subscription.wait(min(KEEP_ALIVE_SECONDS, max(0.0, deadline - time.monotonic())))
        if subscription.stopped:
            yield SHUTDOWN
            return
        if changes:
            yield changes
        elif time.monotonic() >= deadline:
            return
        else:
            yield KEEP_ALIVE


def wait_for_events(
    queries: GameQueries, hub: Hub, game_id: UUID, after: int, limit: int, wait: float
) -> tuple[list[dict[str, Any]], int | None]:
    """A long poll: the events after `after`, waiting up to `wait` seconds for the first if there is none."""
    if wait <= 0:
        return queries.list_events(game_id, after, limit)
    with hub.subscribe([str(game_id)]) as subscription:
        events, next_after = queries.list_events(game_id, after, limit)
        deadline = time.monotonic() + wait
        while not events and not subscription.stopped and (remaining := deadline - time.monotonic()) > 0:
            if any(change.version > after for change in subscription.wait(remaining)):
                events, next_after = queries.list_events(game_id, after, limit)
    return events, next_after
