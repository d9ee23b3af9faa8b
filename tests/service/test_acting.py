"""Acting on a game: each action decided by the rules on the game as it stands, written whole, once."""

import json
import threading
from uuid import uuid4

import pytest

from server.log.audit import verify_log
from server.rules import Card, IllegalAction, Move, preset
from server.service.errors import Forbidden, GameNotFound, VersionConflict
from server.service.games import GameService
from server.service.idempotency import Idempotency
from server.service.outcomes import Reply

RULES = preset("osmosis-draw-one")


def answer(taken) -> Reply:
    return Reply(200, json.dumps({"version": taken.game.version}))


@pytest.fixture
def game(service):
    made = service.create_game(RULES, deal_number=3).outcome
    return made.game.id, made.player_token


def test_a_draw_appends_its_event_and_moves_the_game_on(service, store, game):
    game_id, token = game
    taken = service.draw(game_id, token, None, None).outcome

    assert taken.game.version == 2 and [event.kind for event in taken.events] == ["cards_dealt"]
    assert store.load_game(game_id) == taken.game
    assert json.loads(taken.game.document)["state"]["stock_count"] == 35 - 1


def test_an_action_with_another_games_token_is_forbidden_and_changes_nothing(service, store, game):
    game_id, _ = game
    other_token = service.create_game(RULES).outcome.player_token

    with pytest.raises(Forbidden):
        service.draw(game_id, other_token, None, None)
    assert store.load_game(game_id).version == 1


def test_an_action_on_a_version_that_passed_is_refused(service, game):
    game_id, token = game
    service.draw(game_id, token, frozenset({1}), None)

    with pytest.raises(VersionConflict):
        service.draw(game_id, token, frozenset({1}), None)
    assert service.draw(game_id, token, frozenset({1, 2}), None).outcome.game.version == 3


def test_an_illegal_move_is_refused_in_the_rules_words(service, store, game):
    game_id, token = game
    state = json.loads(store.load_game(game_id).document)
    playable = {action["card"] for action in state["legal_actions"] if action["kind"] == "move"}
    unplayable = next(card for card in ("KS", "KH", "KD", "KC") if card not in playable)

    with pytest.raises(IllegalAction, match=f"{unplayable} is not in play"):
        service.act(game_id, token, Move(Card.parse(unplayable)), None, None)
    assert store.load_game(game_id).version == 1


def test_an_action_on_a_game_that_does_not_exist_is_not_found(service, game):
    with pytest.raises(GameNotFound):
        service.draw(uuid4(), game[1], None, None)


def test_a_retried_action_gets_the_first_reply_and_lands_once(service, store, game):
    game_id, token = game
    key = Idempotency("draw-1", "fingerprint")
    first = service.draw(game_id, token, None, key, answer)
    retry = service.draw(game_id, token, None, key, answer)

    assert retry.outcome is None and retry.reply == first.reply
    assert store.load_game(game_id).version == 2


def test_a_burst_of_actions_from_many_threads_all_land_one_after_another(store, game):
    game_id, token = game
    services = [GameService(store) for _ in range(4)]
    landed: list[int] = []

    def draw_five(service):
        for _ in range(5):
            landed.append(service.draw(game_id, token, None, None).outcome.game.version)

    threads = [threading.Thread(target=draw_five, args=(service,)) for service in services]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(landed) == list(range(2, 22))
    events = store.load_events(game_id, 0, None)
    assert [event.seq for event in events] == list(range(1, len(events) + 1))
    audit, _ = verify_log(RULES, store.load_game(game_id).commitment, events,
                          seeds=(store.load_for_action(game_id)[1].server_seed, ""), game_id=str(game_id))
    assert audit.valid


def test_resigning_ends_the_game_and_reveals_its_seeds(service, game):
    game_id, token = game
    taken = service.resign(game_id, token, None, None).outcome

    assert [event.kind for event in taken.events] == ["game_resigned", "seeds_revealed"]
    assert taken.game.status == "resigned"
    assert service.verification(game_id)["valid"]


def test_a_hint_is_appended_to_the_log_and_counted(service, store, game):
    game_id, token = game
    taken = service.hint(game_id, token, None, None).outcome

    assert [event.kind for event in taken.events] == ["hint_given"] and taken.hint is not None
    assert store.load_game(game_id).hints == 1
    assert service.verification(game_id)["valid"]
