"""Acting on a game: each action decided by the rules on the game as it stands, written whole, once."""

import json
import threading
from uuid import uuid4

import pytest

from server.game.commands import Act, Draw, Hint, Idempotency, NewGame, NumberedDeal, Resign
from server.game.errors import VersionConflict
from server.log.audit import verify_log
from server.rules import Card, IllegalAction, Move, preset
from server.runtime.composition import compose
from server.service.errors import Forbidden, GameNotFound

RULES = preset("osmosis-draw-one")


@pytest.fixture
def game(cases):
    made = cases.creating.handle(NewGame(RULES, NumberedDeal(3))).outcome
    return made.game.id, made.player_token


def test_a_draw_appends_its_event_and_moves_the_game_on(cases, store, game):
    game_id, token = game
    taken = cases.acting.handle(Draw(game_id, token)).outcome

    assert taken.game.version == 2 and [event.kind for event in taken.events] == ["cards_dealt"]
    assert store.load_game(game_id) == taken.game
    assert json.loads(taken.game.document)["state"]["stock_count"] == 35 - 1


def test_an_action_with_another_games_token_is_forbidden_and_changes_nothing(cases, store, game):
    game_id, _ = game
    other_token = cases.creating.handle(NewGame(RULES)).outcome.player_token

    with pytest.raises(Forbidden):
        cases.acting.handle(Draw(game_id, other_token))
    assert store.load_game(game_id).version == 1


def test_an_action_on_a_version_that_passed_is_refused(cases, game):
    game_id, token = game
    cases.acting.handle(Draw(game_id, token, versions=frozenset({1})))

    with pytest.raises(VersionConflict):
        cases.acting.handle(Draw(game_id, token, versions=frozenset({1})))
    assert cases.acting.handle(Draw(game_id, token, versions=frozenset({1, 2}))).outcome.game.version == 3


def test_an_illegal_move_is_refused_in_the_rules_words(cases, store, game):
    game_id, token = game
    state = json.loads(store.load_game(game_id).document)
    playable = {action["card"] for action in state["legal_actions"] if action["kind"] == "move"}
    unplayable = next(card for card in ("KS", "KH", "KD", "KC") if card not in playable)

    with pytest.raises(IllegalAction, match=f"{unplayable} is not in play"):
        cases.acting.handle(Act(game_id, token, Move(Card.parse(unplayable))))
    assert store.load_game(game_id).version == 1


def test_an_action_on_a_game_that_does_not_exist_is_not_found(cases, game):
    with pytest.raises(GameNotFound):
        cases.acting.handle(Draw(uuid4(), game[1]))


def test_a_retried_action_gets_the_first_reply_and_lands_once(cases, store, game):
    game_id, token = game
    key = Idempotency("draw-1", "fingerprint")
    first = cases.acting.handle(Draw(game_id, token, idempotency=key))
    retry = cases.acting.handle(Draw(game_id, token, idempotency=key))

    assert retry.outcome is None and retry.reply == first.reply
    assert store.load_game(game_id).version == 2


def test_a_burst_of_actions_from_many_threads_all_land_one_after_another(store, game):
    game_id, token = game
    services = [compose(store) for _ in range(4)]
    landed: list[int] = []

    def draw_five(cases):
        for _ in range(5):
            landed.append(cases.acting.handle(Draw(game_id, token)).outcome.game.version)

    threads = [threading.Thread(target=draw_five, args=(cases,)) for cases in services]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(landed) == list(range(2, 22))
    events = store.load_events(game_id, 0, None)
    assert [event.seq for event in events] == list(range(1, len(events) + 1))
    audit, _ = verify_log(
        RULES,
        store.load_game(game_id).commitment,
        events,
        seeds=(store.load_for_action(game_id)[1].server_seed, ""),
        game_id=str(game_id),
    )
    assert audit.valid


def test_resigning_ends_the_game_and_reveals_its_seeds(cases, game):
    game_id, token = game
    taken = cases.acting.handle(Resign(game_id, token)).outcome

    assert [event.kind for event in taken.events] == ["game_resigned", "seeds_revealed"]
    assert taken.game.status == "resigned"
    assert cases.verifying.verification(game_id)["valid"]


def test_a_hint_is_appended_to_the_log_and_counted(cases, store, game):
    game_id, token = game
    taken = cases.acting.handle(Hint(game_id, token)).outcome

    assert [event.kind for event in taken.events] == ["hint_given"] and taken.hint is not None
    assert store.load_game(game_id).hints == 1
    assert cases.verifying.verification(game_id)["valid"]
