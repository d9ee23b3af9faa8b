"""Games a process last wrote: their next action there skips the read, and is right even when stale."""

import json
from uuid import UUID

import pytest

from server.rules import Card, Move, RulesError, preset
from server.service.errors import Forbidden, VersionConflict
from server.service.games import GameService
from tests.api.helpers import body_of


class CountingStore:
    """The real store, counting the actions that had to read the game first."""

    def __init__(self, store):
        self._store = store
        self.reads = 0

    def __getattr__(self, name):
        return getattr(self._store, name)

    def load_for_action(self, game_id):
        self.reads += 1
        return self._store.load_for_action(game_id)


def new_game(service, deal_number=3):
    game = body_of(service.create_game(preset("osmosis-draw-one"), deal_number=deal_number))
    return UUID(game["id"]), game["player_token"]


def test_actions_on_a_game_this_process_last_wrote_need_no_read_and_store_what_they_return(store):
    counting = CountingStore(store)
    service = GameService(counting)
    game_id, token = new_game(service)

    for _ in range(3):
        result = service.draw(game_id, token, None, None)

    assert counting.reads == 0
    assert body_of(result)["game"]["version"] == 4
    version, document = GameService(store).get_game(game_id)
    assert version == 4
    assert json.loads(document) == body_of(result)["game"]
    assert GameService(store).verification(game_id)["valid"]


def test_an_action_after_another_process_moved_the_game_is_decided_on_the_stored_game(store):
    counting = CountingStore(store)
    here, elsewhere = GameService(counting), GameService(store)
    game_id, token = new_game(here)
    elsewhere.draw(game_id, token, None, None)

    result = here.draw(game_id, token, versions=frozenset({2}), idempotency=None)

    assert counting.reads == 1
    assert body_of(result)["game"]["version"] == 3
    assert body_of(result)["game"]["state"]["stock_count"] == 35 - 2
    assert GameService(store).verification(game_id)["valid"]


def test_a_move_only_the_stored_game_allows_lands_though_the_kept_game_would_refuse_it(store):
    counting = CountingStore(store)
    here, elsewhere = GameService(counting), GameService(store)
    for deal_number in range(100):
        game_id, token = new_game(here, deal_number)
        dealt = body_of(elsewhere.draw(game_id, token, None, None))
        just_dealt = dealt["events"][0]["data"]["cards"]
        playable = [a for a in dealt["game"]["legal_actions"] if a["kind"] == "move" and a["card"] in just_dealt]
        if playable:
            break
    else:
        pytest.fail("no deal among the first 100 lets the first dealt card be played")
    result = here.act(game_id, token, Move(Card.parse(playable[0]["card"])), None, None)

    assert counting.reads == 1
    assert body_of(result)["events"][0]["kind"] == "card_played"
    assert body_of(result)["game"]["version"] == 3


@pytest.mark.parametrize("capacity, reads", [(0, 2), (1, 1), (2, 0)])
def test_a_process_keeps_at_most_recent_games_games(store, capacity, reads):
    counting = CountingStore(store)
    service = GameService(counting, recent_games=capacity)
    first, first_token = new_game(service)
    second, second_token = new_game(service)

    service.draw(second, second_token, None, None)
    service.draw(first, first_token, None, None)

    assert counting.reads == reads


def test_a_refused_action_leaves_the_game_kept_so_the_next_action_needs_no_read(store):
    counting = CountingStore(store)
    service = GameService(counting)
    game_id, token = new_game(service)
    illegal = next(card for card in ("AS", "AH", "AD", "AC", "KS") if card not in json.dumps(
        body_of(service.draw(game_id, token, None, None))["game"]["legal_actions"]))
    reads_before = counting.reads

    with pytest.raises(RulesError):
        service.act(game_id, token, Move(Card.parse(illegal)), None, None)
    with pytest.raises(VersionConflict):
        service.draw(game_id, token, versions=frozenset({1}), idempotency=None)
    with pytest.raises(Forbidden):
        service.draw(game_id, "not the token", None, None)
    reads_after_refusals = counting.reads
    result = service.draw(game_id, token, versions=frozenset({2}), idempotency=None)

    assert counting.reads == reads_after_refusals
    # Refused on the kept game, the illegal move and the version are checked on the stored game too (the
    # kept one could be stale); the token cannot be.
    assert reads_after_refusals - reads_before == 2
    assert body_of(result)["game"]["version"] == 3
    assert GameService(store).verification(game_id)["valid"]


def test_a_refused_action_does_not_put_back_an_older_game_over_a_newer_one(store):
    counting = CountingStore(store)
    service = GameService(counting)
    game_id, token = new_game(service)
    kept = service._recent.take(game_id)
    service.draw(game_id, token, None, None)  # reads, lands at version 2 and keeps that

    service._recent.keep(game_id, kept, unless_newer=True)
    reads = counting.reads
    service.draw(game_id, token, versions=frozenset({2}), idempotency=None)

    assert counting.reads == reads  # decided on the kept version 2, not on the version 1 given back
