"""A daily game before its day closes is its player's alone, on the use cases alone: to anyone else it does not
exist, in any read; once the day closes it is everyone's, seeds and all."""

from datetime import timedelta

import pytest

from server.game.commands import NewGame, Resign, TodaysDeal
from server.rules import preset
from server.runtime.composition import compose
from server.service.errors import DayNotClosed, GameNotFound
from server.service.sources import Sources
from tests.service.players import Clock, player

RULES = preset("peek")


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def cases(store, clock):
    return compose(store, sources=Sources(clock=clock))


@pytest.fixture
def daily(cases):
    owner = player(cases, "dana")
    game = cases.creating.handle(NewGame(RULES, TodaysDeal(), owner=owner)).outcome.game
    return owner, game


def test_before_the_close_only_its_player_may_read_it(cases, daily):
    owner, game = daily
    stranger = player(cases, "erin")

    cases.queries.readable(game.id, owner.player.id)
    for viewer in (None, stranger.player.id):
        with pytest.raises(GameNotFound):
            cases.queries.readable(game.id, viewer)


def test_before_the_close_it_is_listed_for_its_player_alone(cases, daily):
    owner, game = daily
    stranger = player(cases, "erin")

    def listed(viewer):
        return [entry["id"] for entry in cases.queries.list_games(50, None, viewer=viewer)[0]]

    assert str(game.id) in listed(owner.player.id)
    assert str(game.id) not in listed(None)
    assert str(game.id) not in listed(stranger.player.id)
    assert cases.queries.versions([game.id]) == {}


def test_the_days_page_shows_a_player_their_own_daily_game_and_no_one_elses(cases, daily):
    owner, game = daily
    stranger = player(cases, "erin")

    def mine(viewer):
        return {deal["variant"]: deal.get("your_game") for deal in cases.days.page(None, viewer)["deals"]}

    assert mine(owner)["peek"] == str(game.id)
    assert mine(stranger)["peek"] is None
    assert all(deal["server_seed"] is None for deal in cases.days.page(None, None)["deals"])


def test_its_analysis_waits_for_the_close_even_once_its_game_is_over(cases, daily):
    owner, game = daily
    cases.acting.handle(Resign(game.id, owner))

    with pytest.raises(DayNotClosed):
        cases.analyses.analysis(game.id)


def test_after_the_close_anyone_reads_it_with_its_seeds(cases, clock, daily):
    _, game = daily
    clock.now += timedelta(days=1)
    while cases.chores.turn():
        pass

    cases.queries.readable(game.id, None)
    assert "server_seed" in cases.queries.replay(game.id)["deal"]
    assert next(deal for deal in cases.days.page(game.daily, None)["deals"] if deal["variant"] == "peek")["server_seed"]
    assert cases.verifying.verification(game.id)["valid"]
