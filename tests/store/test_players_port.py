"""The Players port: players made whole with their first token, names unique by key, tokens found by hash while
live, their use noted, counted and revoked."""

import contextlib
import threading
from dataclasses import replace
from datetime import timedelta

import pytest

from server.game.records import GameKeys, Owner
from server.service.errors import IdempotencyConflict, NameTaken, PlayerNotFound, TooManyTokens
from server.service.records import GamesPage, Joining
from tests.store.records import EPOCH, a_creation, a_game, a_player, a_response, a_token


def signed_up(store, kind="human"):
    player, key, token = a_player(kind)
    store.create_player(Joining(player, key, token), None)
    return player, key, token


def test_a_player_is_found_by_the_key_of_its_name_and_by_its_tokens_hash(port_store):
    player, key, token = signed_up(port_store, "bot")

    assert port_store.load_player(key) == player
    caller = port_store.authenticate(token.token_hash, EPOCH)
    assert (caller.player, caller.token.id, caller.token.scopes) == (player, token.id, ("play", "account"))
    assert port_store.authenticate("0" * 64, EPOCH) is None
    with pytest.raises(PlayerNotFound):
        port_store.load_player(key + "x")


def test_a_second_player_with_a_taken_key_is_refused_and_writes_nothing(port_store):
    player, key, _ = signed_up(port_store)
    other, _, other_token = a_player()

    with pytest.raises(NameTaken):
        port_store.create_player(
            Joining(replace(other, name=player.name.upper()), key, other_token), a_response("players")
        )

    assert port_store.authenticate(other_token.token_hash, EPOCH) is None
    assert port_store.load_player(key) == player


def test_of_concurrent_sign_ups_with_one_key_exactly_one_wins(port_store):
    _, key, _ = a_player()
    contenders = [a_player() for _ in range(8)]
    outcomes = []
    start = threading.Barrier(len(contenders))

    def sign_up(player, token):
        start.wait()
        try:
            port_store.create_player(Joining(player, key, token), None)
            outcomes.append(player)
        except NameTaken:
            outcomes.append(None)

    threads = [threading.Thread(target=sign_up, args=(player, token)) for player, _, token in contenders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    winners = [player for player in outcomes if player is not None]
    assert len(winners) == 1
    assert port_store.load_player(key) == winners[0]


def test_a_sign_up_whose_reply_key_is_kept_already_writes_nothing(port_store):
    response = a_response("players")
    signed = a_player()
    port_store.create_player(Joining(*signed), response)
    player, key, token = a_player()

    with pytest.raises(IdempotencyConflict):
        port_store.create_player(Joining(player, key, token), response)

    with pytest.raises(PlayerNotFound):
        port_store.load_player(key)


def test_a_revoked_token_opens_nothing_and_only_its_player_revokes_it(port_store):
    player, _, token = signed_up(port_store)
    stranger, _, _ = signed_up(port_store)

    assert not port_store.revoke_token(stranger.id, token.id, EPOCH)
    assert port_store.authenticate(token.token_hash, EPOCH) is not None
    assert port_store.revoke_token(player.id, token.id, EPOCH)
    assert not port_store.revoke_token(player.id, token.id, EPOCH)
    assert port_store.authenticate(token.token_hash, EPOCH) is None
    assert port_store.list_tokens(player.id) == []


def test_a_tokens_use_is_noted_at_most_once_a_minute(port_store):
    player, _, token = signed_up(port_store)
    first = EPOCH + timedelta(hours=1)

    port_store.authenticate(token.token_hash, first)
    port_store.authenticate(token.token_hash, first + timedelta(seconds=30))
    assert port_store.list_tokens(player.id)[0].last_used_at == first
    port_store.authenticate(token.token_hash, first + timedelta(seconds=61))
    assert port_store.list_tokens(player.id)[0].last_used_at == first + timedelta(seconds=61)


def test_live_tokens_are_listed_oldest_first_and_counted_against_the_most_allowed(port_store):
    player, _, first = signed_up(port_store)
    second = a_token(player, ("play",), EPOCH + timedelta(seconds=1))
    port_store.add_token(second, 2, None)

    with pytest.raises(TooManyTokens):
        port_store.add_token(a_token(player), 2, None)
    assert [token.id for token in port_store.list_tokens(player.id)] == [first.id, second.id]
    port_store.revoke_token(player.id, first.id, EPOCH)
    port_store.add_token(a_token(player), 2, None)
    assert len(port_store.list_tokens(player.id)) == 2


def test_tokens_added_at_once_never_pass_the_most_allowed(port_store):
    player, _, _ = signed_up(port_store)
    start = threading.Barrier(6)

    def add():
        start.wait()
        with contextlib.suppress(TooManyTokens):
            port_store.add_token(a_token(player), 3, None)

    threads = [threading.Thread(target=add) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(port_store.list_tokens(player.id)) == 3


def test_a_players_game_reads_back_with_its_owner_who_opens_it(port_store):
    player, _, _ = signed_up(port_store)
    record, secret, events = a_game(created_at=EPOCH + timedelta(days=3650))  # the newest game of every test's
    owned = replace(record, owner=Owner(player.id, player.name, player.kind))
    port_store.create_game(a_creation(owned, secret, events), None)

    assert port_store.load_game(owned.id) == owned
    assert port_store.load_for_action(owned.id)[0].owner == owned.owner
    assert port_store.list_games(GamesPage(1))[0].owner == owned.owner
    keys, _ = port_store.find_token_and_response(owned.id, f"game:{owned.id}", "0" * 64)
    assert keys == GameKeys(secret.token_hash, player.id)
