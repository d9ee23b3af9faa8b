"""Retries with an Idempotency-Key on the use cases alone: the first reply again, byte for byte, and nothing written
twice; a key reused for another request refused; a stranger learning nothing of a key."""

import json

import pytest

from server.game.change import Reply
from server.game.commands import Draw, Idempotency, NewGame, NumberedDeal, Resign
from server.rules import preset
from server.service.errors import Forbidden, IdempotencyKeyReused

RULES = preset("osmosis-draw-one")


@pytest.fixture
def game(cases):
    made = cases.creating.handle(NewGame(RULES, NumberedDeal(3))).outcome
    return made.game.id, made.player_token


def test_a_key_used_for_another_action_is_refused_and_writes_nothing(cases, store, game):
    game_id, token = game
    cases.acting.handle(Draw(game_id, token, idempotency=Idempotency("k", "draw")))

    with pytest.raises(IdempotencyKeyReused):
        cases.acting.handle(Resign(game_id, token, idempotency=Idempotency("k", "resign")))
    assert [event.kind for event in store.load_events(game_id, 0, None)] == ["game_created", "cards_dealt"]


def test_a_retry_stating_the_version_its_first_request_moved_past_gets_the_first_reply(cases, store, game):
    game_id, token = game
    key = Idempotency("k", "draw at 1")
    first = cases.acting.handle(Draw(game_id, token, versions=frozenset({1}), idempotency=key))
    retry = cases.acting.handle(Draw(game_id, token, versions=frozenset({1}), idempotency=key))

    assert retry.reply == first.reply
    assert first.reply.status == 200 and json.loads(first.reply.text)["game"]["version"] == 2
    assert retry.outcome is None
    assert store.load_game(game_id).version == 2


def test_a_stranger_retrying_anothers_key_is_refused_before_learning_whether_it_was_used(cases, game):
    game_id, token = game
    key = Idempotency("k", "draw")
    cases.acting.handle(Draw(game_id, token, idempotency=key))

    with pytest.raises(Forbidden):
        cases.acting.handle(Draw(game_id, "not the token", idempotency=key))
    with pytest.raises(Forbidden):
        cases.acting.handle(Draw(game_id, "not the token", idempotency=Idempotency("unused", "draw")))


def test_a_retried_sealed_deal_is_the_same_deal(cases):
    key = Idempotency("k", "seal")

    def sealed(made) -> Reply:
        return Reply(201, f'{{"id": "{made.deal.id}"}}')

    first = cases.sealing.create_sealed_deal(key, sealed)
    retry = cases.sealing.create_sealed_deal(key, sealed)

    assert retry.reply == first.reply and retry.outcome is None


def test_the_same_key_on_two_games_is_two_requests(cases, game):
    game_id, token = game
    other = cases.creating.handle(NewGame(RULES, NumberedDeal(4))).outcome
    key = Idempotency("k", "draw")

    cases.acting.handle(Draw(game_id, token, idempotency=key))
    landed = cases.acting.handle(Draw(other.game.id, other.player_token, idempotency=key))

    assert landed.outcome is not None and landed.outcome.game.version == 2
