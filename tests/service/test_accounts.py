"""Players' accounts on the ports in memory: names and their keys, tokens and their form, scopes."""

import pytest

from server.runtime.composition import compose
from server.service.errors import Forbidden, NameTaken, Unauthorized
from server.service.players import names, tokens
from server.service.players.names import NameReserved
from server.service.sources import Sources


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("alice", "ALICE"),
        ("alice", "a1ice"),
        ("alice", "aIice"),
        ("alice", "al1ce"),
        ("bob-2", "bob_2"),
        ("room0", "roomo"),
        ("\uff21lice", "alice"),
    ],
)
def test_look_alike_names_share_a_key(one, other):
    assert names.name_key(one) == names.name_key(other)


@pytest.mark.parametrize(("one", "other"), [("alice", "alicia"), ("bob", "bab"), ("room8", "roomb")])
def test_different_names_have_different_keys(one, other):
    assert names.name_key(one) != names.name_key(other)


@pytest.mark.parametrize("name", ["admin", "r00t", "SYSTEM", "osm0sis", "Y0U", "Player"])
def test_reserved_words_and_their_look_alikes_are_refused(name):
    with pytest.raises(NameReserved, match="reserved"):
        names.normalised(name)


def test_tokens_have_their_form_and_a_checksum_that_catches_a_typo():
    token = tokens.new_token()
    assert tokens.well_formed(token) and len(token) == 40
    typo = token[:10] + ("A" if token[10] != "A" else "B") + token[11:]
    assert not tokens.well_formed(typo)
    assert not tokens.well_formed(token[:-1])
    assert len({tokens.new_token() for _ in range(1000)}) == 1000


def test_a_token_is_found_by_its_hash_and_opens_only_what_its_scopes_allow(cases, store):
    made = cases.accounts.sign_up("carol", "human", None).outcome
    caller = cases.accounts.authenticate(made.secret)
    assert caller.player == made.player
    assert all(made.secret not in repr(token) for token in store.list_tokens(made.player.id))

    play_only = cases.accounts.add_token(caller, "bot", ["play"], None).outcome
    bot = cases.accounts.authenticate(play_only.secret)
    with pytest.raises(Forbidden):
        cases.accounts.tokens(bot)
    assert cases.accounts.revoke_token(caller, play_only.token.id)
    with pytest.raises(Unauthorized):
        cases.accounts.authenticate(play_only.secret)


def test_a_malformed_token_is_refused_before_any_lookup(cases, store, monkeypatch):
    monkeypatch.setattr(store, "authenticate", lambda *_: pytest.fail("looked up"))
    with pytest.raises(Unauthorized):
        cases.accounts.authenticate("osm_" + "A" * 36)


def test_a_name_is_one_players_only(cases):
    cases.accounts.sign_up("dave", "human", None)
    with pytest.raises(NameTaken):
        cases.accounts.sign_up("DAVE", "bot", None)


def test_a_reply_kept_for_retries_is_forgotten_by_the_upkeep_a_day_later(store):
    from datetime import UTC, datetime, timedelta

    from server.game.change import Reply
    from server.game.commands import Idempotency
    from server.service.games.idempotency import KEPT_FOR

    class Clock:
        now = datetime.now(UTC)

        def __call__(self):
            return self.now

    clock = Clock()
    cases = compose(store, sources=Sources(clock=clock))
    key = Idempotency("a key", "its request")

    first = cases.accounts.sign_up("erin", "human", key, lambda made: Reply(201, '{"made": 1}'))
    assert cases.accounts.sign_up("erin", "human", key).reply == first.reply
    clock.now += KEPT_FOR - timedelta(minutes=1)
    cases.chores.turn()
    assert cases.accounts.sign_up("erin", "human", key).reply == first.reply
    clock.now += timedelta(minutes=2)
    assert cases.chores.turn() >= 1
    with pytest.raises(NameTaken):
        cases.accounts.sign_up("erin", "human", key, lambda made: Reply(201, "{}"))
