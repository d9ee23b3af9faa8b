"""The Statistics port: results recorded by the write that reveals a game, counted once verified valid, summed
and ranked alike on PostgreSQL and in memory (the lower bound of the win rate as the service computes it)."""

import secrets
from dataclasses import replace
from datetime import date, timedelta

import pytest

from server.game.records import Owner, PlayerResult
from server.service.players.stats import wilson_interval
from server.service.records import Joining
from tests.store.records import EPOCH, a_creation, a_game, a_player, an_action


def a_day():
    return date(2400, 1, 1) + timedelta(days=secrets.randbelow(300_000))


def finished(store, player, variant, won, daily=None, hints=0, actions=10, valid=True):
    record, secret, events = a_game(variant=variant)
    owned = replace(record, owner=Owner(player.id, player.name, player.kind), daily=daily)
    store.create_game(a_creation(owned, secret, events), None)
    result = PlayerResult(
        owned.id, player.id, player.kind, variant, daily, won, 52 if won else 30, hints, actions, EPOCH, EPOCH
    )
    assert store.write(replace(an_action(owned), result=result), 1)
    store.mark_verified(owned.id, valid)
    return owned.id


def signed_up(store, kind="human"):
    player, key, token = a_player(kind)
    store.create_player(Joining(player, key, token), None)
    return player


def test_only_valid_results_are_summed_with_the_best_win_of_fewest_actions_without_hints(port_store):
    player = signed_up(port_store)
    finished(port_store, player, "peek", won=True, actions=50)
    best = finished(port_store, player, "peek", won=True, actions=40)
    finished(port_store, player, "peek", won=True, actions=30, hints=1)
    finished(port_store, player, "peek", won=False)
    finished(port_store, player, "peek", won=True, actions=20, valid=False)

    (sums,) = port_store.load_player_stats(player.id)
    assert (sums.variant, sums.games, sums.wins, sums.best_actions, sums.best_game) == ("peek", 4, 3, 40, best)
    assert best not in port_store.unverified_results(100_000)


def test_the_all_time_board_ranks_by_the_services_lower_bound_with_enough_games(port_store):
    variant = f"v{secrets.token_hex(4)}"
    players = {}
    for wins, games in ((3, 4), (1, 4), (0, 4), (4, 3)):
        player = signed_up(port_store)
        for n in range(games):
            finished(port_store, player, variant, won=n < wins)
        players[player.id] = (wins, games)

    board = port_store.all_time_board(variant, "human", 4, None, 10)
    assert [row.player_id for row in board] == sorted(
        (pid for pid, (w, g) in players.items() if g >= 4), key=lambda pid: -wilson_interval(*players[pid])[0]
    )
    for row in board:
        assert row.lower_bound == pytest.approx(wilson_interval(row.wins, row.games)[0], abs=1e-9)
    assert port_store.all_time_board(variant, "human", 4, board[0].key, 10) == board[1:]
    assert port_store.all_time_board(variant, "bot", 1, None, 10) == []


def test_a_days_board_is_in_its_order_a_page_after_a_row(port_store):
    day, variant = a_day(), f"v{secrets.token_hex(4)}"
    made = [
        finished(port_store, signed_up(port_store), variant, won=won, daily=day, hints=hints, actions=actions)
        for won, hints, actions in ((False, 0, 5), (True, 1, 10), (True, 0, 90), (True, 0, 60))
    ]
    finished(port_store, signed_up(port_store, "bot"), variant, won=True, daily=day)

    board = port_store.daily_board(day, variant, "human", None, 10)
    assert [row.game_id for row in board] == [made[3], made[2], made[1], made[0]]
    assert port_store.daily_board(day, variant, "human", board[1].key, 10) == board[2:]
    assert len(port_store.daily_board(day, variant, "bot", None, 10)) == 1
