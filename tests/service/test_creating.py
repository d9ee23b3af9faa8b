"""Creating games and sealed deals: the deal the request names, once however often it is retried."""

import json
from uuid import uuid4

import pytest

from server.game.commands import FromSealedDeal, Idempotency, NewGame, NumberedDeal, Resign
from server.log.replay import verify
from server.rules import commitment, deal_number_seed, preset
from server.runtime.composition import compose
from server.service.errors import IdempotencyKeyReused, SealedDealNotFound, SealedDealUsed
from server.service.records import GamesPage

RULES = preset("osmosis-draw-one")


def opening_of(made) -> dict:
    return json.loads(made.game.document)["state"]


def test_a_game_from_a_deal_number_is_that_numbers_deal_for_everyone(cases):
    one = cases.creating.handle(NewGame(RULES, NumberedDeal(7))).outcome
    other = cases.creating.handle(NewGame(RULES, NumberedDeal(7))).outcome
    eighth = cases.creating.handle(NewGame(RULES, NumberedDeal(8))).outcome

    assert opening_of(one) == opening_of(other) != opening_of(eighth)
    assert one.game.commitment == commitment(deal_number_seed(7))
    assert one.game.deal == {"kind": "number", "deal_number": 7}
    assert one.player_token != other.player_token


def test_a_random_deal_commits_to_a_seed_it_does_not_show(cases, store):
    made = cases.creating.handle(NewGame(RULES)).outcome
    secret = store.load_for_action(made.game.id)[1]

    assert made.game.commitment == commitment(secret.server_seed)
    assert secret.server_seed.hex() not in made.game.document
    assert made.player_token not in made.game.document and secret.token_hash != made.player_token


def test_a_retried_creation_gets_the_first_reply_and_its_token_and_makes_no_second_game(cases, store):
    key = Idempotency("key-1", "fingerprint")
    first = cases.creating.handle(NewGame(RULES, idempotency=key))
    retry = cases.creating.handle(NewGame(RULES, idempotency=key))

    assert retry.outcome is None and retry.reply == first.reply
    assert retry.player_token == first.player_token == first.outcome.player_token
    assert len(store.list_games(GamesPage(10))) == 1


def test_a_key_used_for_another_request_is_refused(cases):
    cases.creating.handle(NewGame(RULES, idempotency=Idempotency("key-1", "one request")))

    with pytest.raises(IdempotencyKeyReused):
        cases.creating.handle(NewGame(RULES, idempotency=Idempotency("key-1", "another request")))


def test_a_sealed_deal_makes_one_game_whose_log_reveals_the_sealed_seed_at_its_end(cases, store):
    sealed = cases.sealing.create_sealed_deal(None).outcome.deal
    made = cases.creating.handle(NewGame(RULES, FromSealedDeal(sealed.id, "mine"))).outcome

    with pytest.raises(SealedDealUsed):
        cases.creating.handle(NewGame(RULES, FromSealedDeal(sealed.id)))
    assert made.game.commitment == sealed.commitment
    assert cases.sealing.get_sealed_deal(sealed.id)["game_id"] == str(made.game.id)
    assert "server_seed" not in cases.sealing.get_sealed_deal(sealed.id)

    cases.acting.handle(Resign(made.game.id, made.player_token))

    revealed = store.load_events(made.game.id, 0, None)[-1].data
    assert revealed == {"server_seed": sealed.server_seed.hex(), "client_seed": "mine"}
    assert verify(cases.queries.replay(made.game.id)).valid


def test_a_game_from_a_sealed_deal_that_does_not_exist_is_refused(cases):
    with pytest.raises(SealedDealNotFound):
        cases.creating.handle(NewGame(RULES, FromSealedDeal(uuid4())))


def test_a_new_game_is_told_to_whoever_follows_changes(store):
    told = []

    class Sink:
        def changed(self, game_id, version, events_json):
            told.append((game_id, version, [event["kind"] for event in json.loads(events_json)]))

    cases = compose(store, changes=Sink())
    made = cases.creating.handle(NewGame(RULES)).outcome

    assert told == [(str(made.game.id), 1, ["game_created"])]
