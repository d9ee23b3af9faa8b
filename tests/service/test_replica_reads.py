"""Reads on a replica that lags (service/replicas.py), through the use cases: every answer is the primary's answer,
whatever the replica has replayed; the replica serves what it can tell is whole."""

import time
from dataclasses import replace
from datetime import date
from uuid import UUID, uuid4

import pytest

from server.game.commands import Draw, NewGame, NumberedDeal, Resign
from server.rules import preset
from server.runtime.composition import compose
from server.service.errors import GameNotFound, StoreUnavailable
from server.service.public_log.log import PublicLog
from server.service.records import GamesPage
from server.service.replicas import ReplicaReads
from server.transparency.notes import generate_signer
from server.transparency.tiles import ENTRIES, TileAddress

RULES = preset("osmosis-draw-one")


class LaggingCopy:
    """A replica of `primary` that has replayed it up to the moment `freeze` was called: the games then, each at its
    version then. It counts the reads it answered."""

    def __init__(self, primary) -> None:
        self._primary = primary
        self._versions: dict[UUID, int] = {}
        self._frozen_at: int | None = None  # None: it has replayed everything
        self.behind = False
        self.down = False
        self.answered: list[str] = []
        self.has_tiles = True

    def freeze(self) -> None:
        self._versions = {game.id: game.version for game in self._primary.list_games(GamesPage(10_000))}
        self._frozen_at = time.monotonic_ns()

    def catch_up(self) -> None:
        self.freeze()
        self._frozen_at = None

    def _known(self, game_id: UUID) -> int:
        if self.down:
            raise StoreUnavailable("the replica is unreachable")
        if game_id not in self._versions:
            raise GameNotFound(game_id)
        return self._versions[game_id]

    def load_events(self, game_id, after, limit, upto=None):
        version = self._known(game_id)
        self.answered.append("load_events")
        events = self._primary.load_events(game_id, after, None, min(upto or version, version))
        return events if limit is None else events[:limit]

    def load_time_travel(self, game_id, seq):
        version = self._known(game_id)
        self.answered.append("load_time_travel")
        travel = self._primary.load_time_travel(game_id, seq)
        travel.events[:] = [event for event in travel.events if event.seq <= version]
        return travel

    def list_games(self, page):
        if self.down:
            raise StoreUnavailable("the replica is unreachable")
        self.answered.append("list_games")
        listed = self._primary.list_games(replace(page, limit=10_000))
        return [game for game in listed if game.id in self._versions][: page.limit]

    def daily_board(self, *args):
        return self._answer("daily_board", *args)

    def all_time_board(self, *args):
        return self._answer("all_time_board", *args)

    def daily_board_rank(self, *args):
        return self._answer("daily_board_rank", *args)

    def all_time_board_rank(self, *args):
        return self._answer("all_time_board_rank", *args)

    def load_player_stats(self, *args):
        return self._answer("load_player_stats", *args)

    def read_tile(self, level, index):
        return self._answer("read_tile", level, index) if self.has_tiles else b""

    def read_bundle(self, index):
        return self._answer("read_bundle", index) if self.has_tiles else b""

    def _answer(self, name, *args):
        """What a replica caught up answers: the primary's, a moment behind."""
        if self.down:
            raise StoreUnavailable("the replica is unreachable")
        self.answered.append(name)
        return getattr(self._primary, name)(*args)

    def replay_behind(self, max_lag_bytes: int) -> bool:
        if self.down:
            raise StoreUnavailable("the replica is unreachable")
        return self.behind

    def replayed(self, position: str) -> bool:
        if self.down:
            raise StoreUnavailable("the replica is unreachable")
        return self._frozen_at is None or int(position) <= self._frozen_at

    def __getattr__(self, name):
        raise AssertionError(f"{name} must be read from the primary")


@pytest.fixture
def replica(store) -> LaggingCopy:
    return LaggingCopy(store)


@pytest.fixture
def reading(store, replica):
    return compose(store, ReplicaReads(replica, store))


def played(cases, draws: int):
    made = cases.creating.handle(NewGame(RULES, NumberedDeal(7))).outcome
    for _ in range(draws):
        cases.acting.handle(Draw(made.game.id, made.player_token))
    return made.game.id, made.player_token


def test_a_game_the_replica_has_not_replayed_is_read_from_the_primary_never_a_404(cases, reading, replica):
    replica.freeze()
    game_id, _ = played(cases, 3)

    assert reading.queries.list_events(game_id, 0, 50) == cases.queries.list_events(game_id, 0, 50)
    assert reading.queries.state_at(game_id, 4) == cases.queries.state_at(game_id, 4)
    assert reading.queries.replay(game_id) == cases.queries.replay(game_id)


def test_the_events_a_replica_lacks_at_the_end_are_read_from_the_primary(cases, reading, replica):
    game_id, token = played(cases, 2)
    replica.freeze()
    cases.acting.handle(Draw(game_id, token))

    assert reading.queries.list_events(game_id, 0, 50) == cases.queries.list_events(game_id, 0, 50)
    assert reading.queries.replay(game_id) == cases.queries.replay(game_id)
    assert reading.queries.state_at(game_id, 4) == cases.queries.state_at(game_id, 4)
    assert reading.verifying.verification(game_id) == cases.verifying.verification(game_id)


def test_what_the_replica_has_whole_is_read_there(cases, reading, replica):
    game_id, token = played(cases, 4)
    replica.freeze()
    cases.acting.handle(Draw(game_id, token))

    assert reading.queries.list_events(game_id, 0, 2) == cases.queries.list_events(game_id, 0, 2)  # a full page
    assert reading.queries.state_at(game_id, 3) == cases.queries.state_at(game_id, 3)
    assert replica.answered == ["load_events", "load_time_travel"]


def test_games_are_listed_from_the_replica_only_once_it_has_replayed_every_write_before_the_read(
    cases, reading, replica
):
    played(cases, 1)
    replica.freeze()
    newest, token = played(cases, 1)
    # Its stream looks well (streaming, a few bytes behind): its replay is delayed, or its stream has stalled.
    assert replica.behind is False

    listed, _ = reading.queries.list_games(10, None)
    assert listed[0]["id"] == str(newest) and listed[0]["status"] == "playing"
    cases.acting.handle(Resign(newest, token))
    assert reading.queries.list_games(10, None)[0][0]["status"] == "resigned"
    assert "list_games" not in replica.answered

    replica.catch_up()
    assert reading.queries.list_games(10, None) == cases.queries.list_games(10, None)
    assert replica.answered == ["list_games"]


def test_each_read_the_primary_answers_for_the_replica_is_told(cases, store, replica):
    fell_back = []
    reading = compose(store, ReplicaReads(replica, store, fell_back=fell_back.append))
    game_id, _ = played(cases, 1)
    replica.freeze()
    played(cases, 1)
    reading.queries.list_games(10, None)
    reading.queries.list_events(game_id, 0, 50)
    assert fell_back == ["list_games"], "the events of a game the replica has whole are its own"
    assert reading.health.standing()["reads"].startswith("primary: the replicas have not replayed the latest writes")


def test_a_replica_gone_costs_nothing_but_its_share_of_the_reads(cases, reading, replica):
    game_id, _ = played(cases, 2)
    replica.freeze()
    replica.down = True

    assert reading.queries.list_events(game_id, 0, 50) == cases.queries.list_events(game_id, 0, 50)
    assert reading.queries.list_games(10, None) == cases.queries.list_games(10, None)
    assert reading.health.readiness() is None
    assert reading.health.standing() == {"writes": "ok", "reads": "primary: the replicas cannot be reached"}


def test_the_server_says_where_its_reads_go(reading, replica):
    assert reading.health.standing()["reads"] == "replicas"
    replica.behind = True
    assert reading.health.standing()["reads"] == "primary: the replicas are behind"


def test_boards_and_a_player_s_sums_come_from_the_replica_only_while_it_is_caught_up(store, replica):
    def read_all(reads: ReplicaReads) -> list:
        day = date(2026, 11, 1)
        return [
            reads.daily_board(day, "osmosis", "players", None, 10),
            reads.all_time_board("osmosis", "players", 3, None, 10),
            reads.daily_board_rank(day, "osmosis", "players", (True, 52, 0, 10, 60, uuid4())),
            reads.all_time_board_rank("osmosis", "players", 3, (0.5, 4, uuid4())),
            reads.load_player_stats(uuid4()),
        ]

    caught_up = read_all(ReplicaReads(replica, store))
    assert replica.answered == [
        "daily_board",
        "all_time_board",
        "daily_board_rank",
        "all_time_board_rank",
        "load_player_stats",
    ]

    replica.answered.clear()
    replica.freeze()  # and the primary writes on: any write, a finished game's result among them
    assert read_all(ReplicaReads(replica, store)) == caught_up
    assert replica.answered == []


def test_the_log_s_tiles_come_from_the_replica_when_it_has_them_whole(store, replica):
    reads = ReplicaReads(replica, store)
    log = PublicLog(store, reads, generate_signer("replica.example/log"), spacing=0)
    cases = compose(store, reads, public_log=log)
    for _ in range(3):
        cases.creating.handle(NewGame(RULES))
    log.sequence()
    tile, bundle = TileAddress(0, 0, 3), TileAddress(ENTRIES, 0, 3)

    replica.has_tiles = False  # not replayed yet
    lagging = log.tile(tile), log.tile(bundle)
    assert replica.answered == []

    replica.has_tiles = True
    assert (log.tile(tile), log.tile(bundle)) == lagging
    assert replica.answered == ["read_tile", "read_bundle"]
