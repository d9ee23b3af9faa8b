"""Games a process last wrote: their next action there skips the read, and is right even when stale."""

import json
from uuid import UUID

import pytest

from server.game.change import Game
from server.game.commands import Act, Draw, NewGame, NumberedDeal
from server.game.errors import VersionConflict
from server.rules import Card, Move, RulesError, from_text, preset
from server.runtime.composition import compose
from server.service.errors import Forbidden
from server.service.games.acting import Acting
from server.service.games.recent_games import RecentGames
from server.service.ports import at_once
from server.service.sources import utc_now
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


def new_game(cases, deal_number=3):
    game = body_of(cases.creating.handle(NewGame(preset("osmosis-draw-one"), NumberedDeal(deal_number))))
    return UUID(game["id"]), game["player_token"]


def test_actions_on_a_game_this_process_last_wrote_need_no_read_and_store_what_they_return(store):
    counting = CountingStore(store)
    cases = compose(counting)
    game_id, token = new_game(cases)

    for _ in range(3):
        result = cases.acting.handle(Draw(game_id, token))

    assert counting.reads == 0
    assert body_of(result)["game"]["version"] == 4
    version, document = compose(store).queries.get_game(game_id)
    assert version == 4
    assert json.loads(document) == body_of(result)["game"]
    assert compose(store).verifying.verification(game_id)["valid"]


def test_an_action_after_another_process_moved_the_game_is_decided_on_the_stored_game(store):
    counting = CountingStore(store)
    here, elsewhere = compose(counting), compose(store)
    game_id, token = new_game(here)
    elsewhere.acting.handle(Draw(game_id, token))

    result = here.acting.handle(Draw(game_id, token, versions=frozenset({2}), idempotency=None))

    assert counting.reads == 1
    assert body_of(result)["game"]["version"] == 3
    assert body_of(result)["game"]["state"]["stock_count"] == 35 - 2
    assert compose(store).verifying.verification(game_id)["valid"]


def test_a_move_only_the_stored_game_allows_lands_though_the_kept_game_would_refuse_it(store):
    counting = CountingStore(store)
    here, elsewhere = compose(counting), compose(store)
    for deal_number in range(100):
        game_id, token = new_game(here, deal_number)
        dealt = body_of(elsewhere.acting.handle(Draw(game_id, token)))
        just_dealt = dealt["events"][0]["data"]["cards"]
        playable = [a for a in dealt["game"]["legal_actions"] if a["kind"] == "move" and a["card"] in just_dealt]
        if playable:
            break
    else:
        pytest.fail("no deal among the first 100 lets the first dealt card be played")
    result = here.acting.handle(Act(game_id, token, Move(Card.parse(playable[0]["card"]))))

    assert counting.reads == 1
    assert body_of(result)["events"][0]["kind"] == "card_played"
    assert body_of(result)["game"]["version"] == 3


@pytest.mark.parametrize("capacity, reads", [(0, 2), (1, 1), (2, 0)])
def test_a_process_keeps_at_most_recent_games_games(store, capacity, reads):
    counting = CountingStore(store)
    cases = compose(counting, recent_games=capacity)
    first, first_token = new_game(cases)
    second, second_token = new_game(cases)

    cases.acting.handle(Draw(second, second_token))
    cases.acting.handle(Draw(first, first_token))

    assert counting.reads == reads


def test_a_refused_action_leaves_the_game_kept_so_the_next_action_needs_no_read(store):
    counting = CountingStore(store)
    cases = compose(counting)
    game_id, token = new_game(cases)
    illegal = next(
        card
        for card in ("AS", "AH", "AD", "AC", "KS")
        if card not in json.dumps(body_of(cases.acting.handle(Draw(game_id, token)))["game"]["legal_actions"])
    )
    reads_before = counting.reads

    with pytest.raises(RulesError):
        cases.acting.handle(Act(game_id, token, Move(Card.parse(illegal))))
    with pytest.raises(VersionConflict):
        cases.acting.handle(Draw(game_id, token, versions=frozenset({1}), idempotency=None))
    with pytest.raises(Forbidden):
        cases.acting.handle(Draw(game_id, "not the token"))
    reads_after_refusals = counting.reads
    result = cases.acting.handle(Draw(game_id, token, versions=frozenset({2}), idempotency=None))

    assert counting.reads == reads_after_refusals
    # Refused on the kept game, the illegal move and the version are checked on the stored game too (the
    # kept one could be stale); the token cannot be.
    assert reads_after_refusals - reads_before == 2
    assert body_of(result)["game"]["version"] == 3
    assert compose(store).verifying.verification(game_id)["valid"]


def test_a_refused_action_does_not_put_back_an_older_game_over_a_newer_one(store):
    counting = CountingStore(store)
    recent = RecentGames(1024)
    acting = Acting(counting, recent, None, at_once, utc_now)
    game_id, token = new_game(compose(store))
    game, secret = store.load_for_action(game_id)
    kept = Game(game, secret, from_text(secret.state_text))  # the game at version 1, as its creation kept it
    acting.handle(Draw(game_id, token))  # reads, lands at version 2 and keeps that

    recent.keep(game_id, kept, unless_newer=True)
    reads = counting.reads
    acting.handle(Draw(game_id, token, versions=frozenset({2})))

    assert counting.reads == reads  # decided on the kept version 2, not on the version 1 given back
