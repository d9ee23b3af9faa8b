"""The DailyDeals port: a day's deal of a preset opened once (its entry recorded once), whoever opens it first;
the daily games of a player; what the close of a day has left to do."""

import secrets
import threading
from dataclasses import replace
from datetime import date, timedelta
from uuid import uuid4

from server.game.contests import day_closes_at
from server.game.records import Owner, PublicEntry
from server.log import public_entries
from server.service.records import DailyDeal, Joining
from tests.store.records import EPOCH, a_creation, a_game, a_player, an_action


def a_deal(day, variant="peek"):
    seed = secrets.token_bytes(32)
    deal = DailyDeal(day, variant, uuid4(), seed, secrets.token_hex(32), EPOCH)
    entry = PublicEntry(
        deal.id,
        public_entries.DAILY_DEAL_OPENED,
        public_entries.daily_deal_opened(deal.id, day.isoformat(), variant, deal.commitment),
    )
    return deal, entry


def a_day():
    return date(2200, 1, 1) + timedelta(days=secrets.randbelow(300_000))


def test_a_deal_is_opened_once_and_every_later_opening_finds_the_first(port_store):
    day = a_day()
    first, entry = a_deal(day)

    assert port_store.open_daily_deal(first, entry) == first
    assert port_store.open_daily_deal(a_deal(day)[0], entry) == first
    assert port_store.load_daily_deals(day) == [first]
    assert port_store.load_daily_deals(day + timedelta(days=1)) == []


def test_of_openings_at_once_one_wins_and_all_find_it(port_store):
    day = a_day()
    contenders = [a_deal(day, "osmosis") for _ in range(6)]
    found = []
    start = threading.Barrier(len(contenders))

    def open_it(deal, entry):
        start.wait()
        found.append(port_store.open_daily_deal(deal, entry))

    threads = [threading.Thread(target=open_it, args=contender) for contender in contenders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(found) == 6 and len(set(found)) == 1 and found[0] in [deal for deal, _ in contenders]


def test_a_players_daily_games_and_the_unrevealed_ones_of_closed_days_are_found(port_store):
    player, key, token = a_player()
    port_store.create_player(Joining(player, key, token), None)
    day = a_day()
    record, secret, events = a_game()
    game = replace(record, daily=day, variant="peek", owner=Owner(player.id, player.name, player.kind))
    port_store.create_game(a_creation(game, secret, events), None)

    assert port_store.daily_games_of(player.id, day) == {"peek": game.id}
    assert port_store.load_audience(game.id) == (day_closes_at(day), player.id)
    assert game.id not in port_store.unrevealed_daily_games(day, 1000)
    assert game.id in port_store.unrevealed_daily_games(day + timedelta(days=1), 100_000)
    assert port_store.write(an_action(game, deal={**game.deal, "server_seed": "00" * 32}), 1)
    assert game.id not in port_store.unrevealed_daily_games(day + timedelta(days=1), 100_000)


def test_the_close_takes_the_games_of_the_oldest_accounts_first(port_store):
    """However many accounts one client makes on the day, the games of the players made before are closed first."""
    day = a_day()
    games = []
    for hours in (48, 0, 24):  # accounts made two days, no time and one day before the test's epoch
        player, key, token = a_player()
        player = replace(player, created_at=EPOCH - timedelta(hours=hours))
        port_store.create_player(Joining(player, key, replace(token, player_id=player.id)), None)
        record, secret, events = a_game()
        game = replace(record, daily=day, variant="peek", owner=Owner(player.id, player.name, player.kind))
        port_store.create_game(a_creation(game, secret, events), None)
        games.append(game.id)

    waiting = [
        game_id for game_id in port_store.unrevealed_daily_games(day + timedelta(days=1), 100_000) if game_id in games
    ]
    assert waiting == [games[0], games[2], games[1]]
