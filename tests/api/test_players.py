"""Players over HTTP: signing up, names, API tokens and their scopes, and the games that are a player's."""

import secrets

import pytest

from server.api.players import examples as player_examples
from server.service.players.tokens import well_formed
from tests.api.helpers import create, run_together

PROBLEM = "application/problem+json"


def fresh_name(prefix="p"):
    return f"{prefix}{secrets.token_hex(6)}"


def sign_up(client, name=None, kind="human", headers=None):
    response = client.post("/players", json={"name": name or fresh_name(), "kind": kind}, headers=headers or {})
    assert response.status_code == 201, response.get_json()
    return response


def bearer(made):
    return {"Authorization": f"Bearer {made['token']}"}


def problem(response, status, code):
    assert response.status_code == status, response.get_json()
    assert response.mimetype == PROBLEM
    assert response.get_json()["code"] == code
    return response.get_json()


def test_signing_up_answers_the_player_and_a_first_token_shown_once(client):
    name = fresh_name("Ann")
    response = sign_up(client, name, "bot")
    made = response.get_json()

    assert response.headers["Location"] == f"/players/{name}"
    assert made["player"]["name"] == name and made["player"]["kind"] == "bot"
    assert well_formed(made["token"]) and made["token"].startswith("osm_")
    assert made["api_token"]["scopes"] == ["play", "account", "organize"] and made["api_token"]["last_used_at"] is None
    assert client.get("/players/me", headers=bearer(made)).get_json() == made["player"]
    assert client.get(f"/players/{name.upper()}").get_json() == {**made["player"], "stats": []}
    listed = client.get("/players/me/tokens", headers=bearer(made)).get_json()["tokens"]
    assert [token["id"] for token in listed] == [made["api_token"]["id"]]
    assert listed[0]["last_used_at"] is not None
    assert made["token"] not in str(listed)


def test_the_token_is_kept_only_as_its_hash(client, db):
    made = sign_up(client).get_json()

    rows = db.execute("SELECT * FROM player_tokens WHERE id = %s", (made["api_token"]["id"],)).fetchall()
    assert len(rows) == 1
    assert made["token"] not in str(rows)
    assert made["token"][4:] not in str(db.execute("SELECT body FROM idempotency_keys").fetchall())


def test_a_retry_of_a_sign_up_gets_the_same_player_and_token(client):
    key = {"Idempotency-Key": secrets.token_hex(8)}
    name = fresh_name()
    first = sign_up(client, name, headers=key)
    again = client.post("/players", json={"name": name, "kind": "human"}, headers=key)

    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_data() == first.get_data()


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("\uff21\uff4e\uff4e\uff22", "AnnB"),  # full-width letters
        ("Zoe_the-2nd", "Zoe_the-2nd"),
    ],
)
def test_names_are_stored_in_nfkc(client, written, stored):
    name = written + secrets.token_hex(3)
    assert sign_up(client, name).get_json()["player"]["name"] == stored + name[len(written) :]


@pytest.mark.parametrize(
    "name",
    [
        "ab",
        "a" * 25,
        "1abc",
        "_abc",
        "bob smith",
        "bob!",
        "\u0430lice",  # the first letter Cyrillic
        "zoë",
        "\ufb00ab",
        "me",
        "",  # a ligature NFKC would make "ff", but no full-width form
    ],
)
def test_names_outside_the_alphabet_are_refused(client, name):
    response = client.post("/players", json={"name": name})
    assert response.status_code == 422 and response.get_json()["code"] in ("invalid-name", "validation-failed")


@pytest.mark.parametrize("name", ["admin", "ADMIN", "Adm1n", "r00t", "daily", "\uff41dmin"])
def test_reserved_words_and_their_look_alikes_are_taken_by_the_house(client, name):
    response = client.post("/players", json={"name": name})
    assert response.status_code == 409 and response.get_json()["code"] == "name-reserved"


def test_names_that_differ_by_case_or_look_alike_characters_are_one_name(client):
    name = f"alice{secrets.token_hex(3)}".replace("0", "a").replace("1", "b")
    sign_up(client, name)
    for other in (name.upper(), name.replace("l", "1", 1), name.replace("i", "I", 1), name.replace("o", "0")):
        if other == name:
            continue
        problem(client.post("/players", json={"name": other}), 409, "name-taken")


def test_of_concurrent_sign_ups_with_one_name_exactly_one_wins(app):
    name = fresh_name()
    statuses = run_together(8, lambda _: app.test_client().post("/players", json={"name": name}).status_code)
    assert sorted(statuses) == [201] + [409] * 7


def test_retries_of_a_sign_up_in_flight_at_once_all_get_the_first_answer(app):
    key, name = {"Idempotency-Key": secrets.token_hex(8)}, fresh_name()
    answers = run_together(24, lambda _: app.test_client().post("/players", json={"name": name}, headers=key))

    assert {answer.status_code for answer in answers} == {201}
    assert len({answer.get_data() for answer in answers}) == 1


def test_a_sign_up_s_key_and_name_from_another_address_do_not_get_its_token(client):
    key, name = {"Idempotency-Key": secrets.token_hex(8)}, fresh_name()
    first = client.post("/players", json={"name": name}, headers=key, environ_base={"REMOTE_ADDR": "198.51.100.7"})
    elsewhere = client.post("/players", json={"name": name}, headers=key, environ_base={"REMOTE_ADDR": "203.0.113.9"})
    again = client.post("/players", json={"name": name}, headers=key, environ_base={"REMOTE_ADDR": "198.51.100.7"})

    assert first.status_code == 201 and again.get_data() == first.get_data()
    body = problem(elsewhere, 422, "idempotency-key-reused")
    assert first.get_json()["token"] not in elsewhere.get_data(as_text=True) and "address" in body["detail"]


@pytest.mark.parametrize("path", ["/players/a%00b", "/players/a%00b/games", "/players/%00", "/players/x%c3%28"])
def test_a_name_with_a_nul_or_no_name_at_all_is_not_found(client, path):
    problem(client.get(path), 404, "player-not-found")


def test_a_play_token_plays_but_does_not_manage_the_account(client):
    made = sign_up(client).get_json()
    response = client.post("/players/me/tokens", json={"label": "my bot"}, headers=bearer(made))
    bot = response.get_json()
    assert response.status_code == 201 and bot["api_token"]["scopes"] == ["play"] and well_formed(bot["token"])

    problem(client.get("/players/me/tokens", headers=bearer(bot)), 403, "forbidden")
    problem(client.post("/players/me/tokens", json={"label": "x"}, headers=bearer(bot)), 403, "forbidden")
    game, _ = create(client, headers=bearer(bot), variant="peek", deal_number=5)
    assert game["player"] == {"name": made["player"]["name"], "kind": "human"}
    assert client.post(f"/games/{game['id']}/draw", headers=bearer(bot)).status_code == 200


def test_an_account_token_without_play_cannot_act(client):
    made = sign_up(client).get_json()
    account = client.post(
        "/players/me/tokens", json={"label": "admin", "scopes": ["account"]}, headers=bearer(made)
    ).get_json()
    game, _ = create(client, headers=bearer(made), deal_number=1)

    problem(client.post(f"/games/{game['id']}/draw", headers=bearer(account)), 403, "forbidden")
    problem(client.post("/games", json={}, headers=bearer(account)), 403, "forbidden")


def test_a_revoked_token_opens_nothing_and_another_players_token_is_not_found(client):
    made = sign_up(client).get_json()
    other = sign_up(client).get_json()
    spare = client.post("/players/me/tokens", json={"label": "spare"}, headers=bearer(made)).get_json()

    problem(
        client.delete(f"/players/me/tokens/{spare['api_token']['id']}", headers=bearer(other)), 404, "token-not-found"
    )
    assert client.delete(f"/players/me/tokens/{spare['api_token']['id']}", headers=bearer(made)).status_code == 204
    problem(
        client.delete(f"/players/me/tokens/{spare['api_token']['id']}", headers=bearer(made)), 404, "token-not-found"
    )
    refused = client.get("/players/me", headers=bearer(spare))
    problem(refused, 401, "unauthorized")
    assert refused.headers["WWW-Authenticate"].startswith("Bearer")
    assert client.delete(f"/players/me/tokens/{made['api_token']['id']}", headers=bearer(made)).status_code == 204
    problem(client.get("/players/me", headers=bearer(made)), 401, "unauthorized")


@pytest.mark.parametrize("token", ["osm_", "osm_" + "A" * 36, "osm_" + "A" * 200, "osm_ünïcode", "nope"])
def test_a_malformed_or_unknown_api_token_is_401(client, token):
    response = client.get("/players/me", headers={"Authorization": f"Bearer {token}"})
    problem(response, 401, "unauthorized")
    assert token not in response.get_data(as_text=True)


def test_a_player_has_at_most_twenty_live_tokens(client):
    made = sign_up(client).get_json()
    for index in range(19):
        assert client.post("/players/me/tokens", json={"label": f"t{index}"}, headers=bearer(made)).status_code == 201
    problem(
        client.post("/players/me/tokens", json={"label": "one too many"}, headers=bearer(made)), 409, "too-many-tokens"
    )


def test_a_players_game_is_theirs_to_play_and_no_one_elses(client):
    made = sign_up(client).get_json()
    stranger = sign_up(client).get_json()
    game, own_token = create(client, headers=bearer(made), deal_number=7)

    problem(client.post(f"/games/{game['id']}/draw", headers=bearer(stranger)), 403, "forbidden")
    assert client.post(f"/games/{game['id']}/draw", headers=bearer(made)).status_code == 200
    assert client.post(f"/games/{game['id']}/draw", headers=own_token).status_code == 200
    replay = client.get(f"/games/{game['id']}/replay").get_json()
    assert replay["events"][0]["data"]["player"] == game["player"]
    resigned = client.post(f"/games/{game['id']}/resign", headers=bearer(made)).get_json()["game"]
    verdict = client.get(f"/games/{game['id']}/verification").get_json()
    assert (resigned["status"], verdict["valid"], verdict["complete"]) == ("resigned", True, True)


def test_a_players_game_keeps_the_contract_its_events_and_export_declare(client):
    from openapi_schema_validator import OAS30Validator

    from tests.api.helpers import committed_document

    document = committed_document()
    schemas = document["components"]["schemas"]
    made = sign_up(client).get_json()
    game, _ = create(client, headers=bearer(made), deal_number=7)
    client.post(f"/games/{game['id']}/resign", headers=bearer(made))

    def valid(schema, value):
        OAS30Validator({**schemas[schema], "components": document["components"]}).validate(value)

    events = client.get(f"/games/{game['id']}/events").get_json()
    replay = client.get(f"/games/{game['id']}/replay").get_json()
    assert events["events"][0]["data"]["player"] == {"name": made["player"]["name"], "kind": "human"}
    valid("EventList", events)
    valid("Replay", replay)
    valid("Game", client.get(f"/games/{game['id']}").get_json())


def test_a_game_made_without_a_players_token_is_as_it_always_was(client):
    game, _ = create(client, deal_number=7)
    assert "player" not in game
    assert "player" not in client.get(f"/games/{game['id']}/replay").get_json()["events"][0]["data"]


def test_the_examples_are_what_the_server_answers(client):
    made = sign_up(client, "alice" + secrets.token_hex(2)).get_json()
    example = player_examples.player_made()
    assert set(made) == set(example) and set(made["api_token"]) == set(example["api_token"])
    assert well_formed(example["token"])
    listed = client.get("/players/me/tokens", headers=bearer(made)).get_json()
    assert set(listed["tokens"][0]) == set(player_examples.api_token_list()["tokens"][0])


@pytest.mark.parametrize(
    "authorization",
    ["Bearer ", "Bearer", "", "Basic YWxpY2U6c2VjcmV0", "Bearer two tokens", "Bearer not-an-api-token"],
)
def test_a_creation_with_a_token_it_cannot_honour_is_401_and_makes_no_game(client, authorization):
    before = len(client.get("/games?limit=100").get_json()["games"])
    refused = client.post("/games", json={"variant": "peek"}, headers={"Authorization": authorization})
    problem(refused, 401, "unauthorized")
    assert refused.headers["WWW-Authenticate"] == 'Bearer realm="osmosis"'
    assert len(client.get("/games?limit=100").get_json()["games"]) == before


def test_every_route_answers_401_to_an_authorization_it_cannot_honour(client):
    game, headers = create(client, variant="peek")
    made = sign_up(client).get_json()
    assert client.delete(f"/players/me/tokens/{made['api_token']['id']}", headers=bearer(made)).status_code == 204
    for path in (f"/games/{game['id']}", f"/games/{game['id']}/events", "/games", "/log/checkpoint", "/variants"):
        problem(client.get(path, headers={"Authorization": "Basic YWxpY2U6c2VjcmV0"}), 401, "unauthorized")
        problem(client.get(path, headers=bearer(made)), 401, "unauthorized")  # revoked
    problem(client.post(f"/games/{game['id']}/draw", headers={"Authorization": "Bearer "}), 401, "unauthorized")
    assert client.get(f"/games/{game['id']}", headers=headers).status_code == 200, "its own token is honoured"
