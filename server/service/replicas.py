"""Reads on a streaming replica (READ_DATABASE_URL), with the primary's answer wherever the replica's could be older
than what a client was already told.

A replica replays the primary's WAL a moment behind it. The game's past never changes (events are append-only), so
whatever part of it the replica has is the truth; only its end may be missing. Each read is served by the replica
when it can tell its answer is whole, and by the primary otherwise:

- a page of events that is full, or that reaches the game's version (the primary's, one key lookup), or the `upto`
  asked for; time travel to a seq the replica has;
- lists of games (the players' pages, the game list), the boards and a player's sums when the replica has replayed
  every write acknowledged before the read began: the primary's WAL position, read first, is behind where the
  replica has replayed to (read-your-writes by construction: a replica whose replay is paused, delayed or whose
  stream stalled never passes, however small its lag looks);
- tiles and entry bundles it has whole (the log checks, and asks the primary otherwise);
- never the game's current state, its audience, its secret or its snapshots: the primary's, always.

A replica that cannot be reached costs nothing but its share of the load: the primary answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from datetime import date, datetime
from typing import Protocol, TypeVar
from uuid import UUID

from ..game.records import GameRecord, GameSecret
from ..log.events import Event
from .errors import GameNotFound, StoreUnavailable
from .ports import BoardReads, GameReads, StatisticsReads, TileReads
from .records import AllTimeRow, DailyBoardRow, GamesPage, PlayerStats, TimeTravel

T = TypeVar("T")

STANDING_PATIENCE_SECONDS = 0.5
"""How long /readyz's look at the replicas waits for them to replay the writes made before it: a replica streaming
as it should is there within milliseconds; one that is not, is said to be behind."""


class Replica(GameReads, TileReads, BoardReads, StatisticsReads, Protocol):
    def replay_behind(self, max_lag_bytes: int) -> bool:
        """Whether replay is paused, its WAL receiver is not streaming, or it is more than this behind what it
        received (False on a primary)."""
        ...

    def replayed(self, position: str) -> bool:
        """Whether it has replayed the primary's WAL up to `position` (True on a primary)."""
        ...


class Primary(GameReads, TileReads, BoardReads, StatisticsReads, Protocol):
    def read_versions(self, game_ids: Collection[str]) -> dict[str, int]: ...

    def wal_position(self) -> str:
        """Where its WAL is now: every write acknowledged so far is before it."""
        ...


class ReplicaReads:
    def __init__(
        self,
        replica: Replica,
        primary: Primary,
        max_lag_bytes: int = 1 << 20,
        fell_back: Callable[[str], None] = lambda read: None,
    ) -> None:
        """`fell_back`: told the kind of each read the primary answered because the replica could not (a metric)."""
        self._replica = replica
        self._primary = primary
        self._max_lag_bytes = max_lag_bytes
        self._fell_back = fell_back

    def readiness(self) -> str | None:
        """Always ready: without its replica the server reads from its primary (whose readiness is the server's)."""
        return None

    def standing(self) -> dict[str, str]:
        try:
            behind = self._replica.replay_behind(self._max_lag_bytes)
            position = self._primary.wal_position()
            deadline = time.monotonic() + STANDING_PATIENCE_SECONDS
            while not behind and not self._replica.replayed(position):
                if time.monotonic() > deadline:
                    return {"reads": "primary: the replicas have not replayed the latest writes (stalled or delayed)"}
                time.sleep(0.02)
        except StoreUnavailable:
            return {"reads": "primary: the replicas cannot be reached"}
        return {"reads": "primary: the replicas are behind" if behind else "replicas"}

    def load_events(self, game_id: UUID, after: int, limit: int | None, upto: int | None = None) -> list[Event]:
        def whole(events: list[Event]) -> bool:
            if limit is not None and len(events) >= limit:
                return True
            last = events[-1].seq if events else after
            if upto is not None and last >= upto:
                return True
            version = self._primary.read_versions([str(game_id)]).get(str(game_id))
            return version is not None and last >= (version if upto is None else min(version, upto))

        return self._either("events", lambda store: store.load_events(game_id, after, limit, upto), whole)

    def load_time_travel(self, game_id: UUID, seq: int) -> TimeTravel:
        return self._either(
            "time_travel",
            lambda store: store.load_time_travel(game_id, seq),
            lambda travel: any(event.seq == seq for event in travel.events),
        )

    def list_games(self, page: GamesPage) -> list[GameRecord]:
        return self._with_every_write("list_games", lambda store: store.list_games(page))

    def daily_board(
        self, day: date, variant: str, kind: str, after: tuple[bool, int, int, int, int, UUID] | None, limit: int
    ) -> list[DailyBoardRow]:
        return self._with_every_write("boards", lambda store: store.daily_board(day, variant, kind, after, limit))

    def all_time_board(
        self, variant: str, kind: str, min_games: int, after: tuple[float, int, UUID] | None, limit: int
    ) -> list[AllTimeRow]:
        return self._with_every_write(
            "boards", lambda store: store.all_time_board(variant, kind, min_games, after, limit)
        )

    def daily_board_rank(self, day: date, variant: str, kind: str, key: tuple[bool, int, int, int, int, UUID]) -> int:
        return self._with_every_write("boards", lambda store: store.daily_board_rank(day, variant, kind, key))

    def all_time_board_rank(self, variant: str, kind: str, min_games: int, key: tuple[float, int, UUID]) -> int:
        return self._with_every_write("boards", lambda store: store.all_time_board_rank(variant, kind, min_games, key))

    def load_player_stats(self, player_id: UUID) -> list[PlayerStats]:
        return self._with_every_write("player_stats", lambda store: store.load_player_stats(player_id))

    def read_tile(self, level: int, index: int) -> bytes:
        return self._either("tiles", lambda store: store.read_tile(level, index), lambda _: True)

    def read_bundle(self, index: int) -> bytes:
        return self._either("tiles", lambda store: store.read_bundle(index), lambda _: True)

    def load_game(self, game_id: UUID) -> GameRecord:
        return self._primary.load_game(game_id)

    def load_document(self, game_id: UUID) -> tuple[int, str]:
        return self._primary.load_document(game_id)

    def load_for_action(self, game_id: UUID) -> tuple[GameRecord, GameSecret]:
        return self._primary.load_for_action(game_id)

    def load_snapshots(self, game_id: UUID) -> dict[int, str]:
        return self._primary.load_snapshots(game_id)

    def load_audience(self, game_id: UUID) -> tuple[datetime | None, UUID | None]:
        return self._primary.load_audience(game_id)

    def _with_every_write(self, kind: str, read: Callable[[Replica | Primary], T]) -> T:
        """The replica's answer when it has replayed every write acknowledged before this read; the primary's
        otherwise."""
        try:
            position = self._primary.wal_position()
            if self._replica.replayed(position):
                return read(self._replica)
        except StoreUnavailable:
            pass
        self._fell_back(kind)
        return read(self._primary)

    def _either(self, kind: str, read: Callable[[Replica | Primary], T], whole: Callable[[T], bool]) -> T:
        """The replica's answer if it has one and it is whole; the primary's otherwise."""
        try:
            answer = read(self._replica)
        except (GameNotFound, StoreUnavailable):
            answer = None
        if answer is not None and whole(answer):
            return answer
        self._fell_back(kind)
        return read(self._primary)
