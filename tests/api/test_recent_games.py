"""Games a process last wrote: their next action there skips the read, and is right even when stale."""

import json
from uuid import UUID

import pytest

from server.rules import Card, Move, preset
from server.service import GameService


class CountingStore:
    """The real store, counting the actions that had to read the game first."""

    def __init__(self, store):
        self._store = store
        self.reads = 0

    def __getattr__(self, name):
        return getattr(self._store, name)

    def act(self, game_id, decide):
        self.reads += 1
        return self._store.act(game_id, decide)


def new_game(service, deal_number=3):
    game = service.create_game(preset("osmosis-draw-one"), deal_number=deal_number).body
    return UUID(game["id"]), game["player_token"]


def test_actions_on_a_game_this_process_last_wrote_need_no_read_and_store_what_they_return(store):
    counting = CountingStore(store)
    service = GameService(counting)
    game_id, token = new_game(service)

    for _ in range(3):
        result = service.draw(game_id, token, None, None)

    assert counting.reads == 0
    assert result.body["game"]["version"] == 4
    version, document = GameService(store).get_game(game_id)
    assert version == 4
    assert json.loads(document) == result.body["game"]
    assert GameService(store).verification(game_id)["valid"]


def test_an_action_after_another_process_moved_the_game_is_decided_on_the_stored_game(store):
    counting = CountingStore(store)
    here, elsewhere = GameService(counting), GameService(store)
    game_id, token = new_game(here)
    elsewhere.draw(game_id, token, None, None)

    result = here.draw(game_id, token, expected_version=2, idempotency=None)

    assert counting.reads == 1
    assert result.body["game"]["version"] == 3
    assert result.body["game"]["state"]["stock_count"] == 35 - 2
    assert GameService(store).verification(game_id)["valid"]


def test_a_move_only_the_stored_game_allows_lands_though_the_kept_game_would_refuse_it(store):
    counting = CountingStore(store)
    here, elsewhere = GameService(counting), GameService(store)
    for deal_number in range(100):
        game_id, token = new_game(here, deal_number)
        dealt = elsewhere.draw(game_id, token, None, None).body
        just_dealt = dealt["events"][0]["data"]["cards"]
        playable = [a for a in dealt["game"]["legal_actions"] if a["kind"] == "move" and a["card"] in just_dealt]
        if playable:
            break
    else:
        pytest.fail("no deal among the first 100 lets the first dealt card be played")
    result = here.move(game_id, token, Move(Card.parse(playable[0]["card"])), None, None)

    assert counting.reads == 1
    assert result.body["events"][0]["kind"] == "card_played"
    assert result.body["game"]["version"] == 3


@pytest.mark.parametrize("capacity, reads", [(0, 2), (1, 1), (2, 0)])
def test_a_process_keeps_at_most_recent_games_games(store, capacity, reads):
    counting = CountingStore(store)
    service = GameService(counting, recent_games=capacity)
    first, first_token = new_game(service)
    second, second_token = new_game(service)

    service.draw(second, second_token, None, None)
    service.draw(first, first_token, None, None)

    assert counting.reads == reads
