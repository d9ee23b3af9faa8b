"""Server-sent event streams and long polls: the HTTP side of the live tier (server/live.py).

A stream subscribes to the hub before it reads anything from the log, so that nothing committed between
its reads and its first change is missed; it then sends what the hub brings, and reads the log again only
when a change came without its events or after a gap.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from ..documents import to_json
from ..events import SEEDS_REVEALED
from ..live import Change, Hub, Subscription
from ..service import GameService

RETRY = "retry: 2000\n\n"
KEEP_ALIVE = ": keep-alive\n\n"
SHUTDOWN = ": the server is stopping: reconnect\nretry: 1000\n\n"
"""The last message of every stream when the server stops: an EventSource reconnects a second later, to
another server or this one restarted, and resumes at Last-Event-ID."""
FALLEN_BEHIND = ": this connection fell behind: reconnect\nretry: 1000\n\n"
KEEP_ALIVE_SECONDS = 15
STREAM_SECONDS = 1800
"""How long one stream stays open; EventSource reconnects by itself, resuming at Last-Event-ID."""
LOG_PAGE = 1000


def event_message(event: dict[str, Any]) -> str:
    return f"id: {event['seq']}\ndata: {to_json(event)}\n\n"


def game_message(document: str) -> str:
    return f"event: game\ndata: {document}\n\n"


def feed_message(game_id: str, event: dict[str, Any]) -> str:
    return f"data: {to_json({'game_id': game_id, **event})}\n\n"


def game_stream(service: GameService, hub: Hub, game_id: UUID, after: int) -> Iterator[str]:
    """One game: the game as it is now, its events after `after`, then each new event as it commits;
    ends after the game's last event."""
    with hub.subscribe([str(game_id)]) as subscription:
        _, document = service.get_game(game_id)
        messages, position, ended = from_log(service, game_id, after, event_message)
        yield RETRY + game_message(document) + "".join(messages)
        if ended:
            return
        for changes in _waited(subscription):
            if isinstance(changes, str):
                yield changes
                continue
            catch_up, subscription.overflowed = subscription.overflowed, False
            messages, position, ended = _follow(service, str(game_id), changes, position, event_message, catch_up)
            if messages:
                yield "".join(messages)
            if ended:
                return


def feed_stream(service: GameService, hub: Hub, game_ids: list[UUID] | None, variant: str | None) -> Iterator[str]:
    """Many games: with `game_ids`, each as it is now and then its new events; without, every new event of
    every game (of `variant`). Every event names its game."""
    keys = None if game_ids is None else [str(game_id) for game_id in game_ids]
    with hub.subscribe(keys, variant) as subscription:
        positions: dict[str, int] = {}
        opening = [RETRY]
        for game_id in game_ids or ():
            version, document = service.get_game(game_id)
            opening.append(game_message(document))
            positions[str(game_id)] = version
        yield "".join(opening)
        for changes in _waited(subscription):
            if isinstance(changes, str):
                yield changes
                continue
            if keys is None:
                if subscription.overflowed:
                    yield FALLEN_BEHIND
                    return
                yield "".join(_every_event(service, changes))
                continue
            catch_up, subscription.overflowed = subscription.overflowed, False
            messages = []
            for key in sorted(positions if catch_up else {change.game_id for change in changes}):
                def message(event: dict[str, Any], key: str = key) -> str:
                    return feed_message(key, event)

                mine = [change for change in changes if change.game_id == key]
                found, positions[key], _ = _follow(service, key, mine, positions[key], message, catch_up)
                messages += found
            if messages:
                yield "".join(messages)


def _waited(subscription: Subscription) -> Iterator[list[Change] | str]:
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


def wait_for_events(service: GameService, hub: Hub, game_id: UUID, after: int, limit: int,
                    wait: float) -> tuple[list[dict[str, Any]], int | None]:
    """A long poll: the events after `after`, waiting up to `wait` seconds for the first if there is none."""
    if wait <= 0:
        return service.list_events(game_id, after, limit)
    with hub.subscribe([str(game_id)]) as subscription:
        events, next_after = service.list_events(game_id, after, limit)
        deadline = time.monotonic() + wait
        while not events and not subscription.stopped and (remaining := deadline - time.monotonic()) > 0:
            if any(change.version > after for change in subscription.wait(remaining)):
                events, next_after = service.list_events(game_id, after, limit)
    return events, next_after


def _follow(service: GameService, game_id: str, changes: list[Change], position: int, message: Any,
            catch_up: bool) -> tuple[list[str], int, bool]:
    """The messages for the events of `changes` after `position`: from the changes themselves when they
    carry them and follow on, else (or when the connection must `catch_up`) from the log. Returns them,
    the new position, and whether the game is over."""
    if catch_up:
        return from_log(service, UUID(game_id), position, message)
    messages: list[str] = []
    ended = False
    for change in changes:
        if change.version <= position:
            continue
        fresh = [event for event in change.events if event["seq"] > position]
        if not fresh or fresh[0]["seq"] != position + 1:
            found, position, ended = from_log(service, UUID(game_id), position, message)
            messages += found
        else:
            messages += [message(event) for event in fresh]
            position, ended = fresh[-1]["seq"], fresh[-1]["kind"] == SEEDS_REVEALED
        if ended:
            break
    return messages, position, ended


def from_log(service: GameService, game_id: UUID, after: int, message: Any) -> tuple[list[str], int, bool]:
    """The messages for every event after `after` in the log, the last seq, and whether the game is over."""
    messages: list[str] = []
    position, ended = after, False
    while True:
        events, next_after = service.list_events(game_id, position, LOG_PAGE)
        messages += [message(event) for event in events]
        if events:
            position, ended = events[-1]["seq"], events[-1]["kind"] == SEEDS_REVEALED
        if next_after is None:
            return messages, position, ended


def _every_event(service: GameService, changes: list[Change]) -> Iterator[str]:
    for change in changes:
        if change.events:
            yield from (feed_message(change.game_id, event) for event in change.events)
        else:  # told without its events: the game as it is now says what they did
            yield game_message(service.get_game(UUID(change.game_id))[1])
