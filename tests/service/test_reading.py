"""Reading: games a page at a time, the position after any event, the feed, replays and analyses."""

import json

import pytest

from server.log.replay import verify
from server.rules import preset
from server.service.errors import EventNotFound, GameNotOver
from server.service.feed import FEED_START
from server.solver import SOLVER_VERSION
from server.solver.analysis import ANALYSIS_BUDGET

RULES = preset("osmosis-draw-one")


def played(service, draws):
    made = service.create_game(RULES, deal_number=5).outcome
    for _ in range(draws):
        service.draw(made.game.id, made.player_token, None, None)
    return made.game.id, made.player_token


def test_games_are_listed_a_page_at_a_time_newest_first(service):
    ids = [service.create_game(RULES).outcome.game.id for _ in range(5)]

    first, cursor = service.list_games(3, None)
    second, last = service.list_games(3, cursor)

    assert [game["id"] for game in first + second] == [str(game_id) for game_id in reversed(ids)]
    assert last is None


def test_the_position_after_an_event_is_the_one_the_game_showed_then(service, store):
    game_id, token = played(service, 0)
    shown = {}
    for _ in range(40):
        taken = service.draw(game_id, token, None, None).outcome
        shown[taken.game.version] = json.loads(taken.game.document)["state"]

    assert store.load_snapshots(game_id)  # 40 actions pass a snapshot
    for seq in (2, 31, 33, 41):
        assert service.state_at(game_id, seq)["state"] == shown[seq]
    with pytest.raises(EventNotFound):
        service.state_at(game_id, 42)


def test_the_feed_gives_every_event_after_where_a_reader_stands(service):
    head = service.feed_head()
    game_id, _ = played(service, 2)

    entries = service.read_feed(head.position, 100)

    assert [(entry.event["game_id"], entry.event["seq"]) for entry in entries] == [(str(game_id), seq)
                                                                                   for seq in (1, 2, 3)]
    assert service.read_feed(FEED_START, 100)[-1] == entries[-1]


def test_a_finished_games_replay_verifies_offline_and_its_analysis_is_worked_out_once(service, store):
    game_id, token = played(service, 3)
    with pytest.raises(GameNotOver):
        service.analyses.analysis(game_id)
    service.resign(game_id, token, None, None)

    assert verify(service.replay(game_id)).valid
    analysis = service.analyses.analysis(game_id)
    assert json.loads(analysis)["game_id"] == str(game_id)
    assert store.load_analysis(game_id, SOLVER_VERSION, ANALYSIS_BUDGET) == analysis
    assert service.analyses.analysis(game_id) == analysis


def test_events_are_read_a_page_at_a_time(service):
    game_id, _ = played(service, 4)

    page, after = service.list_events(game_id, 0, 3)
    rest, end = service.list_events(game_id, after, 3)

    assert [event["seq"] for event in page + rest] == [1, 2, 3, 4, 5] and end is None
