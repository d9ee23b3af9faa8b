"""Following a game, or the feed of every game, from a place in the log: what each change or batch brings a
connection, and what it must read from the log because a change did not bring it (a gap, a change told
without its events, a reader too slow). One logic for every kind of follower: a stream held by its request,
a stream handed over to the pusher, the feed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol
from uuid import UUID

from ..log.events import SEEDS_REVEALED
from ..service.feed import FeedEntry, FeedPosition, FeedStart
from .hub import Change, FeedBatch

LOG_PAGE = 1000
"""Events read from the log at a time."""


class LogReader(Protocol):
    """What following reads of the log: see service.queries.GameQueries."""

    def list_events(self, game_id: UUID, after: int, limit: int) -> tuple[list[dict[str, Any]], int | None]: ...

    def read_feed(self, after: FeedPosition, limit: int) -> list[FeedEntry]: ...

    def feed_head(self) -> FeedStart: ...


class GameFollowing:
    """Where one connection is in a game's log (`position`, the seq of the last event it got), and whether
    the game has ended there."""

    def __init__(self, game_id: str, after: int) -> None:
        self.game_id = game_id
        self.position = after
        self.ended = False

    def take(self, change: Change) -> list[dict[str, Any]] | None:
        """The events of `change` that follow on from the position, which moves past them; none when the
        change is old news; None when its events do not follow on (a gap, or it came without them): then
        `from_log` reads them."""
        if change.version <= self.position:
            return []
        fresh = [event for event in change.events if event["seq"] > self.position]
        if not fresh or fresh[0]["seq"] != self.position + 1:
            return None
        self._passed(fresh)
        return fresh

    def from_log(self, reader: LogReader) -> list[dict[str, Any]]:
        """Every event after the position, read from the log; the position moves past them."""
        found: list[dict[str, Any]] = []
        while True:
            events, next_after = reader.list_events(UUID(self.game_id), self.position, LOG_PAGE)
            self._passed(events)
            found += events
            if next_after is None:
                return found

    def follow(self, reader: LogReader, changes: list[Change], catch_up: bool = False) -> list[dict[str, Any]]:
        """The events `changes` bring after the position, in order, reading from the log what they do not
        bring (all of it when the connection must `catch_up`: it missed changes); up to the game's end."""
        if catch_up:
            return self.from_log(reader)
        found: list[dict[str, Any]] = []
        for change in changes:
            fresh = self.take(change)
            found += self.from_log(reader) if fresh is None else fresh
            if self.ended:
                break
        return found

    def _passed(self, events: list[dict[str, Any]]) -> None:
        if events:
            self.position, self.ended = events[-1]["seq"], events[-1]["kind"] == SEEDS_REVEALED


class FeedFollowing:
    """One connection's place in the feed of every game (`position`), and which of its events it wants: of
    some games only, of one variant, none a game's document already showed, none committed before the
    connection came when it came without a place of its own."""

    def __init__(
        self, reader: LogReader, game_ids: list[UUID] | None, variant: str | None, after: FeedPosition | None
    ) -> None:
        self._reader = reader
        self._keys = None if game_ids is None else {str(game_id) for game_id in game_ids}
        self._variant = variant
        self._start: FeedStart | None = None
        """From now on: what had committed when the connection came is left out, beyond the head too."""
        if after is None:
            self._start = reader.feed_head()
            after = self._start.position
        self.position = after
        self.shown: dict[str, int] = {}
        """The version of each game whose document was sent: its events up to there are in it."""

    def from_log(self) -> Iterator[list[FeedEntry]]:
        """The events after the position, read from the log a page at a time, up to what it shows now."""
        while page := self._reader.read_feed(self.position, LOG_PAGE):
            if wanted := self._passed(page):
                yield wanted

    def follow(self, batches: list[FeedBatch], catch_up: bool = False) -> Iterator[list[FeedEntry]]:
        """The wanted events of `batches` after the position, reading from the log what this connection did
        not get (all of it when it must `catch_up`)."""
        for batch in batches:
            if catch_up or batch.after > self.position:  # the tail read something this connection did not get
                yield from self.from_log()
                catch_up = False
            if wanted := self._passed([entry for entry in batch.entries if entry.position > self.position]):
                yield wanted

    def _passed(self, entries: list[FeedEntry]) -> list[FeedEntry]:
        """The entries wanted of these, which the position moves past."""
        if not entries:
            return []
        self.position = entries[-1].position
        wanted = [entry for entry in entries if self._wanted(entry)]
        if self._start is not None and self.position.tx >= self._start.xmax:
            self._start = None  # everything from here on committed after the connection came
        return wanted

    def _wanted(self, entry: FeedEntry) -> bool:
        game_id = entry.position.game_id
        return (
            (self._keys is None or game_id in self._keys)
            and (self._variant is None or entry.variant == self._variant)
            and entry.position.seq > self.shown.get(game_id, 0)
            and (self._start is None or not self._start.committed_before(entry.position.tx))
        )
