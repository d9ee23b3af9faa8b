"""Reading: games a page at a time, the position after any event, the feed, replays and analyses."""

import json
from datetime import timedelta

import pytest

from server.game.commands import Draw, Hint, NewGame, NumberedDeal, Resign
from server.log.replay import verify
from server.rules import preset
from server.runtime.composition import compose
from server.service.errors import EventNotFound, GameNotOver
from server.service.feed import FEED_START
from server.service.sources import Sources
from server.solver import SOLVER_VERSION
from server.solver.analysis import ANALYSIS_BUDGET
from tests.service.players import Clock

RULES = preset("osmosis-draw-one")


def played(cases, draws):
    made = cases.creating.handle(NewGame(RULES, NumberedDeal(5))).outcome
    for _ in range(draws):
        cases.acting.handle(Draw(made.game.id, made.player_token))
    return made.game.id, made.player_token


def test_games_are_listed_a_page_at_a_time_newest_first(cases):
    ids = [cases.creating.handle(NewGame(RULES)).outcome.game.id for _ in range(5)]

    first, cursor = cases.queries.list_games(3, None)
    second, last = cases.queries.list_games(3, cursor)

    assert [game["id"] for game in first + second] == [str(game_id) for game_id in reversed(ids)]
    assert last is None


def test_the_position_after_an_event_is_the_one_the_game_showed_then(cases, store):
    game_id, token = played(cases, 0)
    shown = {}
    for _ in range(40):
        taken = cases.acting.handle(Draw(game_id, token)).outcome
        shown[taken.game.version] = json.loads(taken.game.document)["state"]

    assert store.load_snapshots(game_id)  # 40 actions pass a snapshot
    for seq in (2, 31, 33, 41):
        assert cases.queries.state_at(game_id, seq)["state"] == shown[seq]
    with pytest.raises(EventNotFound):
        cases.queries.state_at(game_id, 42)


def test_the_feed_gives_every_event_after_where_a_reader_stands(cases):
    head = cases.queries.feed_head()
    game_id, _ = played(cases, 2)

    entries = cases.queries.read_feed(head.position, 100)

    assert [(entry.event["game_id"], entry.event["seq"]) for entry in entries] == [
        (str(game_id), seq) for seq in (1, 2, 3)
    ]
    assert cases.queries.read_feed(FEED_START, 100)[-1] == entries[-1]


def test_a_finished_games_replay_verifies_offline_and_its_analysis_is_worked_out_once(cases, store):
    game_id, token = played(cases, 3)
    with pytest.raises(GameNotOver):
        cases.analyses.analysis(game_id)
    cases.acting.handle(Resign(game_id, token))

    assert verify(cases.queries.replay(game_id)).valid
    analysis = cases.analyses.analysis(game_id)
    assert json.loads(analysis)["game_id"] == str(game_id)
    assert store.load_analysis(game_id, SOLVER_VERSION, ANALYSIS_BUDGET) == analysis
    assert cases.analyses.analysis(game_id) == analysis


def test_events_are_read_a_page_at_a_time(cases):
    game_id, _ = played(cases, 4)

    page, after = cases.queries.list_events(game_id, 0, 3)
    rest, end = cases.queries.list_events(game_id, after, 3)

    assert [event["seq"] for event in page + rest] == [1, 2, 3, 4, 5] and end is None


def test_the_games_being_played_now_are_those_acted_on_within_the_time_asked(store):
    clock = Clock()
    cases = compose(store, sources=Sources(clock=clock))
    left, _ = played(cases, 2)  # acted on twenty minutes ago
    clock.now += timedelta(minutes=20)
    dealt, _ = played(cases, 0)  # a table only dealt, never acted on
    clock.now += timedelta(seconds=1)
    hinted, token = played(cases, 0)
    cases.acting.handle(Hint(hinted, token))
    clock.now += timedelta(seconds=1)
    recent, _ = played(cases, 1)
    clock.now += timedelta(seconds=1)
    over, token = played(cases, 1)
    cases.acting.handle(Resign(over, token))

    listed, _ = cases.queries.list_games(10, None, status="playing", acted_within=600)
    assert [game["id"] for game in listed] == [str(recent), str(hinted)]
    everyone, _ = cases.queries.list_games(10, None, status="playing")
    assert {str(left), str(dealt)} <= {game["id"] for game in everyone}
    clock.now += timedelta(minutes=9)
    assert [game["id"] for game in cases.queries.list_games(10, None, acted_within=600)[0]] == [
        str(over),
        str(recent),
        str(hinted),
    ]
