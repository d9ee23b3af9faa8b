"""The SealedDeals port: a sealed deal is kept until it makes one game, and makes one only."""

import secrets
from uuid import uuid4

import pytest

from server.service.errors import GameNotFound, IdempotencyConflict, SealedDealNotFound, SealedDealUsed
from server.service.records import SealedDeal
from tests.store.records import EPOCH, a_creation, a_game, a_response


def a_sealed_deal() -> SealedDeal:
    return SealedDeal(uuid4(), EPOCH, secrets.token_bytes(32), "d" * 64, None)


def test_a_sealed_deal_reads_back_as_written(port_store):
    deal = a_sealed_deal()
    port_store.create_sealed_deal(deal, None)

    assert port_store.load_sealed_deal(deal.id) == deal


def test_a_sealed_deal_that_does_not_exist_is_not_found(port_store):
    with pytest.raises(SealedDealNotFound):
        port_store.load_sealed_deal(uuid4())


def test_a_sealed_deal_makes_one_game_only(port_store):
    deal = a_sealed_deal()
    port_store.create_sealed_deal(deal, None)
    first, second = a_game(), a_game()

    port_store.create_game(a_creation(*first), None, sealed_deal_id=deal.id)
    with pytest.raises(SealedDealUsed):
        port_store.create_game(a_creation(*second), None, sealed_deal_id=deal.id)

    assert port_store.load_sealed_deal(deal.id).game_id == first[0].id
    with pytest.raises(GameNotFound):
        port_store.load_game(second[0].id)


def test_a_sealed_deal_whose_reply_key_is_taken_is_not_kept(port_store):
    response = a_response(scope="deals")
    port_store.create_sealed_deal(a_sealed_deal(), response)
    deal = a_sealed_deal()

    with pytest.raises(IdempotencyConflict):
        port_store.create_sealed_deal(deal, response)

    with pytest.raises(SealedDealNotFound):
        port_store.load_sealed_deal(deal.id)
