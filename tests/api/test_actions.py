"""POST /games/{id}/actions: a legal action exactly as the game lists it (or a resignation), posted back."""

import random

import pytest

from server.rules import numbered_opening, preset
from server.solver.players import play_first_legal
from tests.api.helpers import create
from tests.api.helpers import play_first_legal as play_first_legal_through_moves_and_draws

PROBLEM = "application/problem+json"


def post_action(client, game, token, action, **extra):
    return client.post(f"/games/{game['id']}/actions", json={"action": action, **extra}, headers=token)


def events_of(client, game):
    return client.get(f"/games/{game['id']}/events?limit=1000").get_json()["events"]


def first_legal(game):
    moves = [action for action in game["legal_actions"] if action["kind"] == "move"]
    return moves[0] if moves else game["legal_actions"][0]


@pytest.mark.parametrize("variant", ["osmosis", "osmosis-draw-one", "peek", "osmosis-strict-waste"])
def test_a_bot_posting_each_chosen_legal_action_unchanged_plays_the_game_the_older_routes_play(client, variant):
    rules = preset(variant)

    def first_legal_wins(number):
        return play_first_legal(numbered_opening(rules, number)).status == "won"

    number = next(n for n in range(200) if first_legal_wins(n))
    game, token = create(client, variant=variant, deal_number=number)
    while game["status"] == "playing":
        response = post_action(client, game, token, first_legal(game), expected_version=game["version"])
        assert response.status_code == 200, response.get_json()
        assert response.headers["ETag"] == f'"{response.get_json()["game"]["version"]}"'
        game = response.get_json()["game"]
    twin, twin_token = create(client, variant=variant, deal_number=number)
    twin = play_first_legal_through_moves_and_draws(client, twin, twin_token)

    assert game["status"] == twin["status"] == "won"
    assert [(e["kind"], e["data"]) for e in events_of(client, game)[1:]] == [
        (e["kind"], e["data"]) for e in events_of(client, twin)[1:]
    ]


def test_random_legal_actions_posted_as_listed_are_always_accepted(client):
    rng = random.Random(7)
    for number in range(3):
        game, token = create(client, variant="osmosis-ablage", deal_number=number)
        while game["status"] == "playing":
            response = post_action(client, game, token, rng.choice(game["legal_actions"]))
            assert response.status_code == 200, response.get_json()
            game = response.get_json()["game"]
        assert game["legal_actions"] == []


def test_resign_is_an_action_too_and_reveals_the_seeds(client):
    game, token = create(client, deal_number=5)

    response = post_action(client, game, token, {"kind": "resign"})

    body = response.get_json()
    assert response.status_code == 200
    assert [event["kind"] for event in body["events"]] == ["game_resigned", "seeds_revealed"]
    assert body["game"]["status"] == "resigned" and body["game"]["deal"]["server_seed"]


def test_an_action_the_rules_refuse_is_409_naming_the_rule_and_changes_nothing(client):
    game, token = create(client, deal_number=5)

    redeal = post_action(client, game, token, {"kind": "redeal"})
    wrong_place = post_action(client, game, token, {"kind": "move", "card": "KS", "from": "R1", "to": "F1"})

    assert redeal.status_code == 409 and redeal.get_json()["rule"] == "stock-not-empty"
    assert wrong_place.status_code == 409 and wrong_place.get_json()["code"] == "illegal-action"
    assert client.get(f"/games/{game['id']}").get_json()["version"] == 1


def test_a_stale_expected_version_is_412_and_if_match_works_the_same(client):
    game, token = create(client, deal_number=5)
    assert post_action(client, game, token, {"kind": "deal"}).status_code == 200

    stale = post_action(client, game, token, {"kind": "deal"}, expected_version=1)
    stale_header = client.post(
        f"/games/{game['id']}/actions", json={"action": {"kind": "deal"}}, headers={**token, "If-Match": '"1"'}
    )

    assert stale.status_code == stale_header.status_code == 412
    assert client.get(f"/games/{game['id']}").get_json()["version"] == 2


def test_a_retry_with_the_same_key_gets_the_same_answer_and_lands_once(client):
    game, token = create(client, deal_number=5)
    headers = {**token, "Idempotency-Key": "b0e1c1d2-retry"}

    first = client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "deal"}}, headers=headers)
    again = client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "deal"}}, headers=headers)

    assert first.get_data() == again.get_data() and again.headers["Idempotent-Replayed"] == "true"
    assert client.get(f"/games/{game['id']}").get_json()["version"] == 2


@pytest.mark.parametrize(
    "body",
    [
        {"action": {"kind": {}}},
        {"action": {"kind": ["deal"]}},
        {"action": {"kind": None}},
        {"action": {"kind": 3}},
        {"action": {}},
        {"action": "deal"},
        {"action": ["deal"]},
        {"action": None},
        {"action": {"kind": "draw"}},
        {"action": {"kind": "deal", "card": "7S"}},
        {"action": {"kind": "move", "card": "7S"}},
        {"action": {"kind": "move", "card": "7S", "from": "R1", "to": "F9"}},
        {"action": {"kind": "move", "card": " 7S", "from": "R1", "to": "F1"}},
        {"action": {"kind": "deal"}, "expected_version": "1"},
        {"action": {"kind": "deal"}, "extra": 1},
        {"kind": "deal"},
        {},
    ],
)
def test_a_malformed_action_is_422_and_nothing_is_appended(client, body):
    game, token = create(client, deal_number=5)

    response = client.post(f"/games/{game['id']}/actions", json=body, headers=token)

    assert response.status_code == 422, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM and response.get_json()["code"] == "validation-failed"
    assert client.get(f"/games/{game['id']}").get_json()["version"] == 1


def test_without_the_token_an_action_is_401_whatever_its_body(client):
    game, _ = create(client, deal_number=5)

    response = client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "deal"}})

    assert response.status_code == 401 and response.get_json()["code"] == "unauthorized"


ROUTES = {
    "actions": {"action": {"kind": "move", "card": "10S", "from": "R3", "to": "F4"}},
    "moves": {"card": "10S"},
    "draw": {},
    "resign": {},
    "hint": {},
}


@pytest.mark.parametrize("route", ROUTES)
def test_an_unreadable_idempotency_key_is_named_before_an_unreadable_if_match(client, route):
    """The contract's order of a request's faults: who calls, then its Idempotency-Key, then what it asks, then the
    versions it may land on (schemathesis found the key's 422 answered as If-Match's 412)."""
    game, token = create(client, deal_number=5)
    headers = {**token, "Idempotency-Key": " not a key ", "If-Match": 'W/""'}

    response = client.post(f"/games/{game['id']}/{route}", json=ROUTES[route], headers=headers)

    assert response.status_code == 422, response.get_data(as_text=True)
    assert client.get(f"/games/{game['id']}").get_json()["version"] == 1
