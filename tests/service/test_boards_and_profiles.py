"""The boards and players' pages on the use cases alone: a result counts once its game verifies, a day's board is
published when the day closes, ranking only the players who had joined before its deal opened (as the public log
shows), and the statistics made again from the logs are the ones counted as the games ended."""

import json
from datetime import timedelta

import pytest

from server.game.commands import Act, NewGame, NumberedDeal, Resign, TodaysDeal
from server.rules import action_from_dict, preset
from server.runtime.composition import compose
from server.service.errors import DayNotClosed, PlayerNotFound
from server.service.public_log.log import PublicLog
from server.service.sources import Sources
from server.transparency.notes import generate_signer
from tests.service.players import Clock, player

RULES = preset("peek")


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def cases(store, clock):
    public_log = PublicLog(store, store, generate_signer("osmosis.test/boards"), spacing=0)
    return compose(store, sources=Sources(clock=clock), public_log=public_log)


def play_to_the_end(cases, game_id, caller):
    """Plays the first move offered, else what the stock offers, until the game ends: some cards go home."""
    while True:
        document = json.loads(cases.queries.get_game(game_id)[1])
        if document["status"] != "playing":
            return document
        offered = document["legal_actions"]
        chosen = next((action for action in offered if action["kind"] == "move"), offered[0])
        cases.acting.handle(Act(game_id, caller, action_from_dict(chosen)))


def close_the_day(cases, clock):
    clock.now += timedelta(days=1)
    while cases.chores.turn():
        pass


def test_a_days_board_waits_for_the_close_then_ranks_cards_home_first(cases, clock):
    ann, bob = player(cases, "ann"), player(cases, "bob")
    cases.public_log.sequence()  # both joined, in the log, before the day's deal opens
    games = {}
    for caller in (ann, bob):
        games[caller.player.name] = cases.creating.handle(NewGame(RULES, TodaysDeal(), owner=caller)).outcome.game
    cases.public_log.sequence()  # the deal's opening, after them
    played = play_to_the_end(cases, games["ann"].id, ann)
    resigned = cases.acting.handle(Resign(games["bob"].id, bob)).outcome.game
    day = games["ann"].daily

    with pytest.raises(DayNotClosed):
        cases.boards.daily(day, "peek", "human", 10, None)
    close_the_day(cases, clock)
    board = cases.boards.daily(day, "peek", "human", 10, None)

    assert played["score"] > resigned.score
    assert [(row["player"]["name"], row["score"]) for row in board["rows"]] == [
        ("ann", played["score"]),
        ("bob", resigned.score),
    ]


def test_a_player_who_joined_after_the_days_deal_opened_is_not_ranked_that_day(cases, clock):
    early = player(cases, "early")
    cases.public_log.sequence()
    cases.creating.handle(NewGame(RULES, TodaysDeal(), owner=early))  # the day's deal opens
    cases.public_log.sequence()
    late = player(cases, "late")
    cases.public_log.sequence()
    game = cases.creating.handle(NewGame(RULES, TodaysDeal(), owner=late)).outcome.game
    cases.acting.handle(Resign(game.id, late))

    close_the_day(cases, clock)

    assert [row["player"]["name"] for row in cases.boards.daily(game.daily, "peek", "human", 10, None)["rows"]] == [
        "early"
    ]


def test_a_players_page_counts_their_finished_games_once_verified_and_a_rebuild_agrees(cases):
    dana = player(cases, "dana")
    made = cases.creating.handle(NewGame(RULES, NumberedDeal(1), owner=dana)).outcome.game
    cases.acting.handle(Resign(made.id, dana))
    before = cases.profiles.profile("dana")["stats"]

    while cases.chores.turn():
        pass
    counted = cases.profiles.profile("dana")["stats"]

    assert before == []
    assert [(stats["variant"], stats["games"], stats["wins"]) for stats in counted] == [("peek", 1, 0)]
    assert counted[0]["ranked"] == {"games": 0, "wins": 0}  # a numbered deal can be looked up: it is not ranked
    assert cases.profiles.rebuild() == 1
    assert cases.profiles.profile("dana")["stats"] == counted


def test_a_page_of_no_such_player_is_not_found(cases):
    with pytest.raises(PlayerNotFound):
        cases.profiles.profile("nobody")
