"""Hints through the API: from what the player has seen only, logged, counted, idempotent, audited."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from server.log.replay import verify
from server.rules import from_text, to_text
from server.solver import hints
from tests.api.helpers import create, play, play_first_legal, rehash, run_together
from tests.api.test_replay import CARD_IN_JSON, never_shown
from tests.solver.test_hints import rearranged

PROBLEM = "application/problem+json"
OSMOSIS = Path(sys.executable).with_name("osmosis")


def ask(client, game, token, **headers):
    return client.post(f"/games/{game['id']}/hint", headers={**token, **headers})


def test_a_hint_is_a_legal_action_logged_as_an_event_and_counted_in_the_game(client):
    game, token = create(client, variant="osmosis", deal_number=21)
    assert game["hints"] == 0
    response = ask(client, game, token)
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    hint = body["hint"]
    assert hint["action"] in game["legal_actions"]
    assert hint["basis"] == "estimate" and hint["samples"] >= 1 and hint["unseen"] > 0
    assert [event["kind"] for event in body["events"]] == ["hint_given"]
    assert body["events"][0]["data"] == hint and body["events"][0]["seq"] == game["version"] + 1
    after = body["game"]
    assert (after["version"], after["hints"], after["state"], after["legal_actions"]) == (
        game["version"] + 1,
        1,
        game["state"],
        game["legal_actions"],
    )
    assert response.headers["ETag"] == f'"{after["version"]}"'
    read = client.get(f"/games/{game['id']}").get_json()
    assert read == after
    # The position after the hint is the position before it: time travel and the action after it agree.
    assert client.get(f"/games/{game['id']}/states/{after['version']}").get_json()["state"] == game["state"]
    # Asked again where nothing moved, the hint is the one recorded: nothing appended, the version where it was.
    again = ask(client, after, token)
    assert again.status_code == 200 and again.headers["ETag"] == f'"{after["version"]}"'
    assert again.get_json() == {"game": after, "events": [], "hint": hint}
    assert len(client.get(f"/games/{game['id']}/events").get_json()["events"]) == after["version"]


def test_a_hinted_game_replays_and_verifies_and_a_forged_hint_does_not(client):
    game, token = create(client, variant="peek", deal_number=8)
    game = ask(client, game, token).get_json()["game"]
    game = play_first_legal(client, game, token, resign_after=4)
    assert game["hints"] == 1
    assert client.get(f"/games/{game['id']}/verification").get_json()["valid"]
    replay = client.get(f"/games/{game['id']}/replay").get_json()
    assert verify(replay).valid
    hint_at = next(event["seq"] for event in replay["events"] if event["kind"] == "hint_given")
    forged = json.loads(json.dumps(replay))
    forged["events"][hint_at - 1]["data"]["action"] = {"kind": "redeal"}
    verdict = verify(rehash(forged, hint_at))
    assert (verdict.valid, verdict.first_bad_seq) == (False, hint_at)
    assert "not legal" in verdict.reason
    after_end = json.loads(json.dumps(replay))
    seeds = after_end["events"].pop()
    after_end["events"] += [
        {**after_end["events"][hint_at - 1], "seq": seeds["seq"]},
        {**seeds, "seq": seeds["seq"] + 1},
    ]
    verdict = verify(rehash(after_end, hint_at))
    assert (verdict.valid, verdict.first_bad_seq) == (False, seeds["seq"])
    assert "game is over" in verdict.reason
    analysis = client.get(f"/games/{game['id']}/analysis")
    assert analysis.status_code == 200


def test_the_stored_game_is_checked_against_its_count_of_hints(client, db):
    game, token = create(client, deal_number=30)
    ask(client, game, token)
    assert client.get(f"/games/{game['id']}/verification").get_json()["valid"]
    db.execute("UPDATE games SET hints = 0 WHERE id = %s", (game["id"],))
    db.commit()
    verdict = client.get(f"/games/{game['id']}/verification").get_json()
    assert not verdict["valid"] and "not the fold" in verdict["reason"]


def test_a_hint_needs_the_token_a_game_in_play_and_the_version_stated(client):
    game, token = create(client, deal_number=5)
    assert ask(client, game, {}).status_code == 401
    other, other_token = create(client, deal_number=5)
    assert ask(client, game, other_token).status_code == 403
    stale = ask(client, game, token, **{"If-Match": '"7"'})
    assert (stale.status_code, stale.get_json()["code"]) == (412, "version-conflict")
    stated = client.post(f"/games/{game['id']}/hint", json={"expected_version": game["version"]}, headers=token)
    assert stated.status_code == 200
    unknown = client.post(f"/games/{game['id']}/hint", json={"budget": 10**9}, headers=token)
    assert (unknown.status_code, unknown.mimetype) == (422, PROBLEM)
    wrong_type = client.post(f"/games/{game['id']}/hint", data="{}", headers={**token, "Content-Type": "text/plain"})
    assert wrong_type.status_code == 415
    missing = client.post("/games/00000000-0000-4000-8000-000000000000/hint", headers=token)
    assert (missing.status_code, missing.get_json()["code"]) == (404, "game-not-found")
    resigned = client.post(f"/games/{game['id']}/resign", headers=token).get_json()["game"]
    over = ask(client, resigned, token)
    assert (over.status_code, over.get_json()["code"]) == (409, "game-over")
    assert client.get(f"/games/{game['id']}").get_json()["hints"] == 1
    assert client.get(f"/games/{other['id']}").get_json()["hints"] == 0


def test_retries_with_one_idempotency_key_get_one_hint(client):
    game, token = create(client, deal_number=12)
    key = {"Idempotency-Key": "hint-once"}
    responses = run_together(4, lambda _: ask(client, game, token, **key))
    assert {response.status_code for response in responses} == {200}
    assert len({response.get_data() for response in responses}) == 1
    assert sum(response.headers.get("Idempotent-Replayed") == "true" for response in responses) == 3
    events = client.get(f"/games/{game['id']}/events").get_json()["events"]
    assert [event["kind"] for event in events].count("hint_given") == 1
    assert client.get(f"/games/{game['id']}").get_json()["hints"] == 1


def test_a_hint_worked_out_while_an_action_lands_is_worked_out_again_for_the_new_position(client, monkeypatch):
    game, token = create(client, variant="osmosis-draw-one", deal_number=14)
    worked_on = []
    original = hints.hint

    def hint_while_the_player_draws(state, *args):
        worked_on.append(state)
        if len(worked_on) == 1:
            assert client.post(f"/games/{game['id']}/draw", headers=token).status_code == 200
        return original(state, *args)

    monkeypatch.setattr(hints, "hint", hint_while_the_player_draws)
    response = ask(client, game, token)
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert len(worked_on) == 2 and worked_on[0] != worked_on[1]
    assert body["game"]["version"] == game["version"] + 2
    assert body["hint"]["action"] in body["game"]["legal_actions"]
    assert body["game"]["state"]["waste"] != game["state"]["waste"]


def test_two_deals_that_look_alike_to_the_player_get_the_same_hint(client, db):
    """A second game's position is made the first's with the unseen cards rearranged, after each action of the
    first (a new second game each time: a position is hinted once): every hint is the same."""
    first, token = create(client, variant="osmosis", deal_number=40)
    rng = random.Random(40)

    def position(game):
        return db.execute("SELECT state FROM game_secrets WHERE game_id = %s", (game["id"],)).fetchone()[0]

    for _ in range(4):
        second, second_token = create(client, variant="osmosis", deal_number=40)
        alike = to_text(rearranged(from_text(position(first)), rng))
        assert alike != position(first)
        db.execute("UPDATE game_secrets SET state = %s WHERE game_id = %s", (alike, second["id"]))
        db.commit()
        hint = ask(client, first, token).get_json()["hint"]
        assert ask(client, second, second_token).get_json()["hint"] == hint
        first = client.post(f"/games/{first['id']}/actions", json={"action": hint["action"]}, headers=token)
        first = first.get_json()["game"]


@pytest.mark.parametrize("variant", ["osmosis", "osmosis-ablage", "bridesmaids"])
def test_no_hint_shows_a_hidden_card_or_a_seed(client, db, variant):
    rng = random.Random(f"hint-crawl-{variant}")
    game, token = create(client, variant=variant)
    for _ in range(4):
        game = play(client, game, token, rng, steps=rng.randint(2, 20))
        if game["status"] != "playing":
            break
        hidden, secrets, _ = never_shown(db, game["id"])
        response = ask(client, game, token)
        body = response.get_data(as_text=True)
        shown = set(CARD_IN_JSON.findall(body))
        assert not shown & hidden, f"the hint shows hidden {shown & hidden}"
        assert not any(secret in body for secret in secrets)
        game = response.get_json()["game"]


def test_osmosis_verify_checks_a_hinted_export(client, tmp_path):
    game, token = create(client, deal_number=2)
    game = ask(client, game, token).get_json()["game"]
    game = client.post(f"/games/{game['id']}/resign", headers=token).get_json()["game"]
    path = tmp_path / "hinted.json"
    path.write_text(client.get(f"/games/{game['id']}/replay").get_data(as_text=True))
    result = subprocess.run([OSMOSIS, "verify", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "VALID" in result.stdout, result.stdout + result.stderr
