"""The KeptResponses port: the first reply to a request with an Idempotency-Key, kept with what it made and
given back byte for byte to every retry."""

from dataclasses import replace
from uuid import uuid4

import pytest

from server.game.records import GameKeys
from server.service.errors import GameNotFound, IdempotencyConflict
from server.service.records import Joining
from tests.store.records import a_creation, a_game, a_response, an_action


def test_a_reply_kept_with_a_new_game_comes_back_byte_for_byte(port_store):
    response = a_response(body='{"b" : 2,"a":[1, 2.50]}', wrapped="00ff" * 8)
    port_store.create_game(a_creation(*a_game()), response)

    assert port_store.find_response(response.scope, response.key_hash) == response


def test_no_reply_is_found_for_a_key_never_used(port_store):
    assert port_store.find_response("games", "0" * 64) is None


def test_a_key_keeps_one_reply_and_the_game_of_a_second_is_not_made(port_store):
    response = a_response()
    first, second = a_game(), a_game()
    port_store.create_game(a_creation(*first), response)

    with pytest.raises(IdempotencyConflict):
        port_store.create_game(a_creation(*second), replace(response, body="{}"))

    assert port_store.find_response(response.scope, response.key_hash).body == response.body
    with pytest.raises(GameNotFound):
        port_store.load_game(second[0].id)


def test_the_token_and_the_reply_of_an_action_are_read_together(port_store):
    record, secret, events = a_game()
    port_store.create_game(a_creation(record, secret, events), None)
    scope = f"game:{record.id}"
    response = a_response(scope=scope)

    assert port_store.find_token_and_response(record.id, scope, response.key_hash) == (
        GameKeys(secret.token_hash, None),
        None,
    )
    assert port_store.write(an_action(record), 1, response)
    assert port_store.find_token_and_response(record.id, scope, response.key_hash) == (
        GameKeys(secret.token_hash, None),
        response,
    )


def test_the_token_of_a_game_that_does_not_exist_is_not_found(port_store):
    with pytest.raises(GameNotFound):
        port_store.find_token_and_response(uuid4(), "game:x", "0" * 64)


def test_a_retry_meets_the_conflict_of_its_key_before_any_other_of_its_write(port_store):
    """A retry sent while its first request is in flight writes the same thing: it must be told of the key kept (and
    be answered with its reply), not of the name it signs up being taken or the sealed deal used by the first."""
    from tests.store.records import a_player
    from tests.store.test_sealed_deals_port import a_sealed_deal

    player, key, token = a_player()
    response = a_response("players")
    port_store.create_player(Joining(player, key, token), response)
    with pytest.raises(IdempotencyConflict):
        port_store.create_player(Joining(player, key, replace(token, id=uuid4())), response)

    record, secret, events = a_game()
    deal = a_sealed_deal()
    port_store.create_sealed_deal(deal, None)
    kept = a_response("games")
    port_store.create_game(a_creation(record, secret, events), kept, deal.id)
    again, again_secret, again_events = a_game()
    with pytest.raises(IdempotencyConflict):
        port_store.create_game(a_creation(again, again_secret, again_events), kept, deal.id)


def test_replies_kept_before_a_time_are_forgotten_a_batch_at_a_time(port_store):
    from datetime import UTC, datetime, timedelta

    responses = [a_response() for _ in range(3)]
    for response in responses:
        port_store.create_game(a_creation(*a_game()), response)

    assert port_store.forget_responses(datetime.now(UTC) - timedelta(hours=1), 10) == 0
    assert port_store.find_response(responses[0].scope, responses[0].key_hash) == responses[0]
    later = datetime.now(UTC) + timedelta(hours=1)
    forgotten = port_store.forget_responses(later, 2)
    while port_store.forget_responses(later, 2):  # the session's other tests' replies too
        pass
    assert forgotten == 2
    assert all(port_store.find_response(r.scope, r.key_hash) is None for r in responses)
