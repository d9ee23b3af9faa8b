"""The use cases that only read: a game, pages of games and events, time travel, replays, and the feed of every
game's events. Games are read from the read store (ports.GameReads: a replica's may serve them); the feed from the
store written to, whose notices and snapshots the live hub follows."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from ...game.contests import still_private
from ...log.replay import export
from ...rules import PRESET_DESCRIPTIONS, PRESETS
from ..errors import GameNotFound
from ..feed import FeedEntry, FeedPosition, FeedStart
from ..ports import Feed, GameReads
from ..records import Audience, GamesPage
from .cursors import decode_cursor, encode_cursor
from .documents import game_view, position_after
from .positions import position_after_event

PUBLIC_GAMES_KEPT = 65_536
"""Games this process knows anyone may read, kept so that their reads need no check of who reads."""


def variants() -> list[dict[str, Any]]:
    """The presets, as GET /variants lists them."""
    return [
        {"name": name, "description": PRESET_DESCRIPTIONS[name], "rules": rules.to_dict()}
        for name, rules in PRESETS.items()
    ]


class GameQueries:
    def __init__(self, games: GameReads, feed: Feed, clock: Callable[[], datetime]) -> None:
        self._games = games
        self._feed = feed
        self._clock = clock
        self._public: OrderedDict[UUID, None] = OrderedDict()
        self._public_lock = threading.Lock()

    def readable(self, game_id: UUID, viewer: UUID | None) -> None:
        """Raises GameNotFound unless `viewer` (the player calling, None for anyone) may read the game: every
        game but a contest game (a daily deal's, a competition's) before its contest closes, which is its player's
        alone (to anyone else it is a game that does not exist, whatever it is asked)."""
        with self._public_lock:
            if game_id in self._public:
                self._public.move_to_end(game_id)
                return
        private_until, owner = self._games.load_audience(game_id)
        if still_private(private_until, self._clock()):
            if owner is None or owner != viewer:
                raise GameNotFound(game_id)
            return
        with self._public_lock:  # a game once public stays public
            self._public[game_id] = None
            if len(self._public) > PUBLIC_GAMES_KEPT:
                self._public.popitem(last=False)

    def versions(self, game_ids: Collection[UUID]) -> dict[str, int]:
        """The version of each of these games that exists and anyone may read, by id."""
        found = self._feed.read_versions([str(game_id) for game_id in game_ids])
        return {game_id: version for game_id, version in found.items() if self._anyones(UUID(game_id))}

    def _anyones(self, game_id: UUID) -> bool:
        try:
            self.readable(game_id, None)
        except GameNotFound:
            return False
        return True

    def get_game(self, game_id: UUID) -> tuple[int, str]:
        """The game's version, and the game as JSON text, as stored when it last changed."""
        return self._games.load_document(game_id)

    def list_games(
        self,
        limit: int,
        cursor: str | None,
        status: str | None = None,
        variant: str | None = None,
        viewer: UUID | None = None,
        player_id: UUID | None = None,
        acted_within: int | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Newest first, of this status, variant and player if given, acted on within `acted_within` seconds if
        given (the games being played now), that `viewer` may read (see `readable`); the second value is the cursor
        of the next page, None on the last page."""
        before = decode_cursor(cursor) if cursor else None
        now = self._clock()
        audience = Audience(now, viewer)
        acted_since = None if acted_within is None else now - timedelta(seconds=acted_within)
        records = self._games.list_games(
            GamesPage(limit + 1, before, status, variant, audience, player_id, acted_since)
        )
        page = records[:limit]
        next_cursor = encode_cursor(page[-1]) if len(records) > limit else None
        return [game_view(record) for record in page], next_cursor

    def feed_head(self) -> FeedStart:
        """Where the feed of every game's events stands now."""
        return self._feed.feed_head()

    def read_feed(self, after: FeedPosition, limit: int) -> list[FeedEntry]:
        """The feed's events after `after`, in its order, as far as it shows them now."""
        return self._feed.read_feed(after, limit)[0]

    def list_events(self, game_id: UUID, after: int, limit: int) -> tuple[list[dict[str, Any]], int | None]:
        """Events with seq > `after`; the second value is the `after` of the next page, if any."""
        events = self._games.load_events(game_id, after, limit + 1)
        page = events[:limit]
        return [event.to_dict() for event in page], page[-1].seq if len(events) > limit else None

    def state_at(self, game_id: UUID, seq: int) -> dict[str, Any]:
        """The public view and legal actions right after event `seq`, as the live game showed them; the
        events one action appends all show the position after that action (events.positions).

        Folds the events since the nearest snapshot (positions.py), so the cost stays small however long the game.
        """
        event, state = position_after_event(self._games, game_id, seq)
        return position_after(game_id, seq, event.hash, state)

    def replay(self, game_id: UUID) -> dict[str, Any]:
        """The game's `osmosis-replay/1` export (the seeds in it only once the game is over)."""
        game = self._games.load_game(game_id)
        return export(game_view(game), self._games.load_events(game_id, 0, None, upto=game.version))
