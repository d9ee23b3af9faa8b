"""The request boundary: what a careless client or an attacker can send is accepted as documented or refused
with a 4xx problem+json, never a 5xx and never silently ignored."""

import http.client
import json
from urllib.parse import urlsplit

import pytest

from tests.api.helpers import create

PROBLEM = "application/problem+json"


def problem_of(response, status):
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True)[:300])
    assert response.mimetype == PROBLEM
    return response.get_json()


def count_games(db):
    return db.execute("SELECT count(*) FROM games").fetchone()[0]


# --- bodies in other content types ----------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", None, "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp"],
)
def test_a_body_that_is_not_sent_as_json_is_refused_with_415_and_creates_nothing(client, db, content_type):
    before = count_games(db)
    headers = {"Content-Type": content_type} if content_type else {}

    response = client.post("/games", data='{"variant": "peek"}', headers=headers)

    problem = problem_of(response, 415)
    assert problem["code"] == "unsupported-media-type" and "application/json" in problem["detail"]
    assert response.headers["Accept-Post"] == "application/json"
    assert count_games(db) == before


def test_a_stale_draw_sent_as_text_is_refused_not_played_without_its_version(client):
    game, token = create(client, deal_number=1)
    client.post(f"/games/{game['id']}/draw", headers=token)

    response = client.post(
        f"/games/{game['id']}/draw", data='{"expected_version": 1}', headers={**token, "Content-Type": "text/plain"}
    )

    problem_of(response, 415)
    assert client.get(f"/games/{game['id']}").get_json()["version"] == 2


def test_a_resign_sent_as_a_form_is_refused_and_the_game_goes_on(client):
    game, token = create(client)

    response = client.post(
        f"/games/{game['id']}/resign",
        data="expected_version=1",
        headers={**token, "Content-Type": "application/x-www-form-urlencoded"},
    )

    problem_of(response, 415)
    assert client.get(f"/games/{game['id']}").get_json()["status"] == "playing"


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "application/problem+json", None, "text/plain"],
)
def test_an_empty_body_is_no_body_whatever_its_content_type(client, content_type):
    game, token = create(client)
    headers = {**token, **({"Content-Type": content_type} if content_type else {})}

    response = client.post(f"/games/{game['id']}/draw", data=b"", headers=headers)

    assert response.status_code == 200


# --- malformed JSON -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/games",
        "/games/00000000-0000-4000-8000-000000000000/moves",
        "/games/00000000-0000-4000-8000-000000000000/draw",
        "/deals",
        "/replays/verification",
    ],
)
@pytest.mark.parametrize("depth", [100, 1000, 100_000])
def test_json_nested_too_deep_is_400_on_every_post_even_without_a_token(client, path, depth):
    body = "[" * depth + "]" * depth

    problem = problem_of(client.post(path, data=body, content_type="application/json"), 400)

    assert problem["code"] == "bad-request" and "deep" in problem["detail"]


def test_json_nested_as_deep_as_a_replay_export_is_read(client):
    body = {"rules": {"draw": 1}, "deal_number": 5}

    assert client.post("/games", json=body).status_code == 201


def test_an_integer_literal_of_thousands_of_digits_is_400(client):
    body = '{"deal_number": ' + "9" * 5000 + "}"

    problem = problem_of(client.post("/games", data=body, content_type="application/json"), 400)

    assert problem["code"] == "bad-request" and "digits" in problem["detail"]


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_json_that_python_accepts_but_json_does_not_is_400(client, literal):
    body = '{"deal_number": ' + literal + "}"

    problem_of(client.post("/games", data=body, content_type="application/json"), 400)


def test_a_body_that_is_not_utf_8_is_400(client):
    problem_of(client.post("/games", data=b'{"variant": "\xff"}', content_type="application/json"), 400)


def test_a_lone_surrogate_in_the_client_seed_is_refused_and_the_sealed_deal_stays_unused(client):
    deal = client.post("/deals").get_json()
    body = '{"sealed_deal_id": "' + deal["id"] + '", "client_seed": "alice\\ud800"}'

    problem = problem_of(client.post("/games", data=body, content_type="application/json"), 400)

    assert "surrogate" in problem["detail"]
    assert client.get(f"/deals/{deal['id']}").get_json()["game_id"] is None
    assert create(client, sealed_deal_id=deal["id"], client_seed="alice")[0]["deal"]["kind"] == "sealed"


def test_a_pair_of_surrogates_is_one_character_and_welcome(client):
    deal = client.post("/deals").get_json()
    body = '{"sealed_deal_id": "' + deal["id"] + '", "client_seed": "\\ud83c\\udca1"}'

    assert client.post("/games", data=body, content_type="application/json").status_code == 201


def test_a_body_over_the_limit_is_413(client):
    body = '{"variant": "' + "x" * (5 * 1024 * 1024) + '"}'

    problem = problem_of(client.post("/games", data=body, content_type="application/json"), 413)

    assert problem["code"] == "payload-too-large"


def test_a_chunked_body_over_the_limit_is_413_on_the_real_server(live_server):
    parts = urlsplit(live_server)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    chunk = b" " * (64 * 1024)

    connection.request(
        "POST",
        "/games",
        body=iter([b"{", *([chunk] * 80), b"}"]),
        headers={"Content-Type": "application/json"},
        encode_chunked=True,
    )
    response = connection.getresponse()

    assert response.status == 413
    assert response.headers["Content-Type"] == PROBLEM
    assert json.loads(response.read())["code"] == "payload-too-large"


# --- cards and white space ------------------------------------------------------------------------


@pytest.mark.parametrize("card", ["TH\n", " TH", "TH ", "\tTH", "th", "T H", "TH\r\n"])
def test_a_card_is_exactly_its_code_with_no_white_space(client, card):
    game, token = create(client)

    problem = problem_of(client.post(f"/games/{game['id']}/moves", json={"card": card}, headers=token), 422)

    assert "card" in problem["errors"]


def test_ten_may_be_written_10(client):
    game, token = create(client, deal_number=0)

    response = client.post(f"/games/{game['id']}/moves", json={"card": "10D"}, headers=token)

    assert response.status_code in (200, 409)
    assert "card" not in response.get_json().get("errors", {})


# --- query strings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/games?foo=1",
        "/games?limit=5&foo=1",
        "/games/{id}/events?bogus=1",
        "/games/{id}/events/stream?bogus=1",
        "/games/{id}?x=1",
        "/games/{id}/states/1?x=1",
        "/games/{id}/replay?x=1",
        "/games/{id}/verification?x=1",
        "/variants?x=1",
        "/deals/{deal}?x=1",
    ],
)
def test_an_unknown_query_parameter_is_422_naming_it(client, path):
    game, _ = create(client)
    deal = client.post("/deals").get_json()

    response = client.get(path.format(id=game["id"], deal=deal["id"]))

    problem = problem_of(response, 422)
    assert any(name in problem["errors"] for name in ("foo", "bogus", "x")), problem


def test_an_unknown_query_parameter_on_an_action_is_422_and_the_action_is_not_taken(client):
    game, token = create(client)

    problem_of(client.post(f"/games/{game['id']}/draw?expected_version=1", headers=token), 422)

    assert client.get(f"/games/{game['id']}").get_json()["version"] == 1


def test_a_query_parameter_given_twice_is_422(client):
    problem_of(client.get("/games?limit=5&limit=6"), 422)


# --- If-Match -------------------------------------------------------------------------------------


@pytest.mark.parametrize("if_match", ['"1", "2"', '"0", "1"', '"7" , "1"', "*", '"1"', 'W/"1"', '"3", W/"1"'])
def test_if_match_with_a_list_that_names_the_current_version_lets_the_action_land(client, if_match):
    game, token = create(client)

    response = client.post(f"/games/{game['id']}/draw", headers={**token, "If-Match": if_match})

    assert response.status_code == 200, response.get_json()


@pytest.mark.parametrize("if_match", ['"2", "3"', '"2"', '"abc"', "garbage", '"1', ""])
def test_if_match_that_names_no_current_version_is_412_and_changes_nothing(client, if_match):
    game, token = create(client)

    problem = problem_of(client.post(f"/games/{game['id']}/draw", headers={**token, "If-Match": if_match}), 412)

    assert problem["code"] == "version-conflict"
    assert client.get(f"/games/{game['id']}").get_json()["version"] == 1


def test_if_match_with_a_list_and_expected_version_must_agree(client):
    game, token = create(client)

    both = client.post(
        f"/games/{game['id']}/draw", json={"expected_version": 1}, headers={**token, "If-Match": '"1", "5"'}
    )
    contradicting = client.post(
        f"/games/{game['id']}/draw", json={"expected_version": 2}, headers={**token, "If-Match": '"1", "5"'}
    )

    assert both.status_code == 200
    assert problem_of(contradicting, 422)["code"] == "invalid-input"


# --- headers of the event stream ------------------------------------------------------------------


@pytest.mark.parametrize("last_event_id", ["²", "1" * 5000, "-1", "1.5", "0x10", "٣", " 1", "99999999999"])
def test_a_last_event_id_that_is_not_a_seq_is_422(client, last_event_id):
    game, _ = create(client)

    response = client.get(f"/games/{game['id']}/events/stream", headers={"Last-Event-ID": last_event_id})

    assert problem_of(response, 422)["code"] == "invalid-input"


def test_a_path_seq_of_thousands_of_digits_is_404_not_500(client):
    game, _ = create(client)

    assert client.get(f"/games/{game['id']}/states/{'9' * 5000}").status_code == 404


@pytest.mark.parametrize("name", ["after", "limit", "wait"])
def test_a_query_integer_of_thousands_of_digits_is_422(client, name):
    game, _ = create(client)

    problem_of(client.get(f"/games/{game['id']}/events?{name}={'9' * 5000}"), 422)


def test_an_after_beyond_any_seq_is_an_empty_page_not_an_error(client):
    game, _ = create(client)

    response = client.get(f"/games/{game['id']}/events?after={2**63}")

    assert response.status_code == 200 and response.get_json()["events"] == []
