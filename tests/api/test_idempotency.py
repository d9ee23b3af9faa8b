"""Idempotency-Key: every request with a key gets the first response to that key, byte for byte, however
many are sent at once; only one action ever lands; and a key tells a stranger nothing."""

import json

import pytest

from tests.api.helpers import create, run_together

COPIES = 16


def answer(response):
    return response.status_code, response.get_data()


def versions_in_log(db, game_id):
    return [row[0] for row in db.execute("SELECT seq FROM game_events WHERE game_id = %s ORDER BY seq", (game_id,))]


def a_legal_move(game):
    return next(action for action in game["legal_actions"] if action["kind"] == "move")


def deal_with_a_move(client):
    for number in range(100):
        game, token = create(client, deal_number=number)
        if any(action["kind"] == "move" for action in game["legal_actions"]):
            return game, token
    raise AssertionError("no deal below 100 opens with a move")


@pytest.mark.parametrize("request_kind", ["move", "draw", "draw with its version", "resign"])
def test_identical_concurrent_requests_with_one_key_all_get_the_first_response_and_one_action_lands(
    app, db, request_kind
):
    client = app.test_client()
    for attempt in range(4):
        game, token = deal_with_a_move(client)
        headers = {**token, "Idempotency-Key": f"{request_kind}-{attempt}"}
        path, body = {
            "move": ("moves", {"card": a_legal_move(game)["card"]}),
            "draw": ("draw", None),
            "draw with its version": ("draw", {"expected_version": 1}),
            "resign": ("resign", None),
        }[request_kind]

        answers = run_together(
            COPIES,
            lambda i, game=game, path=path, body=body, headers=headers: answer(
                app.test_client().post(f"/games/{game['id']}/{path}", json=body, headers=headers)
            ),
        )

        assert {status for status, _ in answers} == {200}, sorted({a[0] for a in answers})
        assert len({text for _, text in answers}) == 1, "the answers differ"
        appended = len(json.loads(answers[0][1])["events"])
        assert versions_in_log(db, game["id"]) == list(range(1, 2 + appended)), "more than one action landed"


def test_identical_concurrent_creates_with_one_key_make_one_game_and_give_it_to_all(app, db):
    answers = run_together(
        COPIES,
        lambda i: answer(
            app.test_client().post("/games", json={"variant": "peek"}, headers={"Idempotency-Key": "create-together"})
        ),
    )

    assert {status for status, _ in answers} == {201}
    assert len({text for _, text in answers}) == 1
    game_id = (
        app.test_client()
        .post("/games", json={"variant": "peek"}, headers={"Idempotency-Key": "create-together"})
        .get_json()["id"]
    )
    assert db.execute("SELECT count(*) FROM games WHERE id = %s", (game_id,)).fetchone()[0] == 1


def test_identical_concurrent_sealed_deals_with_one_key_seal_one_deal(app):
    answers = run_together(
        COPIES, lambda i: answer(app.test_client().post("/deals", headers={"Idempotency-Key": "seal-together"}))
    )

    assert {status for status, _ in answers} == {201}
    assert len({text for _, text in answers}) == 1


@pytest.mark.parametrize("path, body", [("draw", None), ("moves", "a legal move"), ("resign", None)])
def test_a_replayed_action_is_the_first_response_byte_for_byte(client, path, body):
    game, token = deal_with_a_move(client)
    body = {"card": a_legal_move(game)["card"]} if body else None
    headers = {**token, "Idempotency-Key": f"bytes-{path}"}

    first = client.post(f"/games/{game['id']}/{path}", json=body, headers=headers)
    retry = client.post(f"/games/{game['id']}/{path}", json=body, headers=headers)

    assert first.status_code == retry.status_code == 200
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_data() == first.get_data()
    assert retry.headers["ETag"] == first.headers["ETag"]


def test_a_replayed_create_is_the_first_response_byte_for_byte_token_included(client):
    headers = {"Idempotency-Key": "bytes-create"}

    first = client.post("/games", json={"variant": "osmosis-ablage", "deal_number": 9}, headers=headers)
    retry = client.post("/games", json={"variant": "osmosis-ablage", "deal_number": 9}, headers=headers)

    assert first.status_code == retry.status_code == 201
    assert retry.get_data() == first.get_data()
    assert (retry.headers["Location"], retry.headers["ETag"]) == (first.headers["Location"], first.headers["ETag"])


def test_a_replayed_sealed_deal_is_the_first_response_byte_for_byte(client):
    first = client.post("/deals", headers={"Idempotency-Key": "bytes-deal"})
    retry = client.post("/deals", headers={"Idempotency-Key": "bytes-deal"})

    assert retry.get_data() == first.get_data()
    assert retry.headers["Location"] == first.headers["Location"]


@pytest.mark.parametrize("same_body", [True, False], ids=["same-body", "other-body"])
def test_a_stranger_with_a_used_key_gets_403_and_learns_nothing_of_the_key(client, same_body):
    game, token = create(client, deal_number=0)
    _, strangers_token = create(client)
    client.post(f"/games/{game['id']}/draw", headers={**token, "Idempotency-Key": "used-key"})
    body = None if same_body else {"expected_version": 2}

    with_key = client.post(
        f"/games/{game['id']}/draw", json=body, headers={**strangers_token, "Idempotency-Key": "used-key"}
    )
    without = client.post(f"/games/{game['id']}/draw", json=body, headers=strangers_token)

    assert with_key.status_code == without.status_code == 403
    assert with_key.get_json()["code"] == without.get_json()["code"] == "forbidden"


def test_a_key_first_used_on_a_refused_action_can_be_used_again_once_the_action_is_legal(client):
    game, token = create(client, deal_number=0)
    headers = {**token, "Idempotency-Key": "refused-first"}

    refused = client.post(f"/games/{game['id']}/draw", json={"expected_version": 2}, headers=headers)
    client.post(f"/games/{game['id']}/draw", headers=token)
    landed = client.post(f"/games/{game['id']}/draw", json={"expected_version": 2}, headers=headers)

    assert refused.status_code == 412
    assert landed.status_code == 200 and "Idempotent-Replayed" not in landed.headers
