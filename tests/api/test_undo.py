"""Undo as an event: `{"kind": "undo"}` on POST /games/{id}/actions takes back the latest action not taken back
yet. The log is only ever extended (action_undone), time travel shows every seq, exports verify offline, and a game
with an undo ranks on no board."""

import json
import random

import pytest

from server.log import events
from server.log.replay import verify
from server.rules import numbered_opening, preset
from server.solver.players import play_first_legal as first_legal_line
from tests.api.helpers import act, create, rehash

PROBLEM = "application/problem+json"


def undo(client, game, token, **extra):
    return client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "undo"}, **extra}, headers=token)


def undone(client, game, token):
    response = undo(client, game, token)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def position(game):
    """What a player sees of a game at a version: every pile, the pass and its counters, the legal actions."""
    return game["state"], game["legal_actions"]


def events_of(client, game):
    return client.get(f"/games/{game['id']}/events?limit=1000").get_json()["events"]


def played(client, variant, number, steps, seed=1):
    """A game still on after `steps` random legal actions, with what it showed at each version (the next seed's
    actions if these end the game)."""
    for attempt in range(seed, seed + 50):
        game, token = create(client, variant=variant, deal_number=number)
        rng, shown = random.Random(attempt), [game]
        while len(shown) <= steps and game["status"] == "playing":
            game = act(client, game, token, rng.choice(game["legal_actions"]))
            shown.append(game)
        if game["status"] == "playing":
            return shown, token
    raise AssertionError(f"every game of deal {number} ended within {steps} random actions")


@pytest.mark.parametrize("variant", ["osmosis", "osmosis-draw-one", "peek", "osmosis-ablage"])
def test_undos_walk_back_through_every_position_the_game_showed(client, variant):
    shown, token = played(client, variant, 4, 40)
    game = shown[-1]
    assert game["can_undo"] and game["undos"] == 0
    for undos, earlier in enumerate(reversed(shown[:-1]), start=1):
        reply = undone(client, game, token)
        game = reply["game"]
        assert position(game) == position(earlier)
        assert (game["undos"], game["can_undo"]) == (undos, earlier is not shown[0])
        (event,) = reply["events"]
        assert event["kind"] == "action_undone" and event["seq"] == game["version"]
    assert game["version"] == shown[-1]["version"] + len(shown) - 1
    refused = undo(client, game, token)
    assert refused.status_code == 409 and refused.mimetype == PROBLEM
    assert refused.get_json()["rule"] == "nothing-to-undo"
    assert client.get(f"/games/{game['id']}").get_json() == game  # the refusal changed nothing


def test_an_undo_names_the_action_it_takes_back_and_the_same_action_again_deals_the_same_cards(client):
    game, token = create(client, variant="osmosis", deal_number=5)
    dealt = client.post(f"/games/{game['id']}/draw", headers=token).get_json()
    reply = undone(client, dealt["game"], token)
    (event,) = reply["events"]
    assert event["data"] == {"undone_seq": dealt["events"][0]["seq"], "action": {"kind": "deal"}}
    again = client.post(f"/games/{game['id']}/draw", headers=token).get_json()
    assert again["events"][0]["data"] == dealt["events"][0]["data"]
    assert position(again["game"]) == position(dealt["game"])


def test_a_move_that_turned_a_card_up_is_taken_back_and_the_card_turns_down_again(client):
    for number in range(200):
        game, token = create(client, variant="osmosis", deal_number=number)
        moves = [a for a in game["legal_actions"] if a["kind"] == "move" and a["from"].startswith("R")]
        if moves:
            break
    reply = client.post(f"/games/{game['id']}/actions", json={"action": moves[0]}, headers=token).get_json()
    assert reply["events"][0]["data"]["uncovered"] is not None
    back = undone(client, reply["game"], token)
    assert back["events"][0]["data"]["action"] == moves[0]
    assert position(back["game"]) == position(game)


def test_a_redeal_is_taken_back_with_its_pass(client):
    game, token = create(client, variant="osmosis-draw-one", deal_number=8)
    while not any(action["kind"] == "redeal" for action in game["legal_actions"]):
        game = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
        assert game["status"] == "playing"
    redealt = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
    assert redealt["state"]["pass_number"] == game["state"]["pass_number"] + 1
    assert position(undone(client, redealt, token)["game"]) == position(game)


def test_an_undo_lands_only_on_the_version_it_states_and_a_keyed_retry_takes_back_one_action(client):
    shown, token = played(client, "osmosis", 11, 3)
    game = shown[-1]
    stale = undo(client, game, token, expected_version=game["version"] - 1)
    assert stale.status_code == 412 and stale.get_json()["type"].endswith("version-conflict")
    keyed = {**token, "Idempotency-Key": "undo-once"}
    body = {"action": {"kind": "undo"}, "expected_version": game["version"]}
    first = client.post(f"/games/{game['id']}/actions", json=body, headers=keyed)
    retry = client.post(f"/games/{game['id']}/actions", json=body, headers=keyed)
    assert first.status_code == retry.status_code == 200
    assert retry.headers["Idempotent-Replayed"] == "true" and retry.get_json() == first.get_json()
    assert client.get(f"/games/{game['id']}").get_json()["undos"] == 1
    assert undo(client, game, {"Authorization": "Bearer not-its-token"}).status_code == 403


def test_an_ended_game_stays_ended(client):
    game, token = create(client, variant="osmosis", deal_number=1)
    game = act(client, game, token, {"kind": "deal"})
    resigned = client.post(f"/games/{game['id']}/resign", headers=token).get_json()["game"]
    assert not resigned["can_undo"]
    refused = undo(client, resigned, token)
    assert refused.status_code == 409 and refused.get_json()["type"].endswith(":game-over")
    assert client.get(f"/games/{game['id']}").get_json()["version"] == resigned["version"]


def test_time_travel_shows_every_seq_of_a_game_with_undos_past_its_snapshots(client):
    shown, token = played(client, "osmosis-draw-one", 2, 45, seed=3)
    game = shown[-1]
    assert game["version"] > 32  # a snapshot was taken
    live = {earlier["version"]: position(earlier) for earlier in shown}
    for _ in range(len(shown) - 1):
        game = undone(client, game, token)["game"]
        live[game["version"]] = position(game)
    for seq, (state, legal) in live.items():
        at = client.get(f"/games/{game['id']}/states/{seq}").get_json()
        assert (at["state"], at["legal_actions"]) == (state, legal), seq


def finished_with_undos(client):
    """A game won on a deal the first legal action wins, with actions taken back and played again on the way."""
    rules = preset("osmosis-draw-one")
    number = next(n for n in range(200) if first_legal_line(numbered_opening(rules, n)).status == "won")
    game, token = create(client, variant="osmosis-draw-one", deal_number=number)
    steps = 0
    while game["status"] == "playing":
        moves = [action for action in game["legal_actions"] if action["kind"] == "move"]
        game = act(client, game, token, moves[0] if moves else {"kind": "deal"})
        steps += 1
        if steps % 9 == 0 and game["status"] == "playing":
            game = undone(client, game, token)["game"]
            game = undone(client, game, token)["game"]
    return game, token


def test_a_game_won_with_undos_exports_verifies_and_is_analysed_along_the_line_that_stood(client):
    game, _ = finished_with_undos(client)
    assert game["status"] == "won" and game["undos"] > 0 and not game["can_undo"]
    document = client.get(f"/games/{game['id']}/replay").get_json()
    verdict = verify(document)
    assert verdict.valid and verdict.complete, verdict.summary
    assert client.get(f"/games/{game['id']}/verification").get_json()["valid"]
    analysis = client.get(f"/games/{game['id']}/analysis").get_json()
    taken_back = {e["data"]["undone_seq"] for e in document["events"] if e["kind"] == "action_undone"}
    line = json.dumps(analysis)
    assert analysis["deal"]["verdict"] == "winnable"
    assert all(f'"seq": {seq},' not in line for seq in taken_back)


@pytest.mark.parametrize(
    "forgery",
    [
        lambda data: {**data, "undone_seq": data["undone_seq"] - 1},
        lambda data: {**data, "action": {"kind": "redeal"}},
        lambda data: {**data, "extra": 1},
    ],
)
def test_an_export_whose_undo_names_another_action_is_invalid_at_that_event(client, forgery):
    game, _ = finished_with_undos(client)
    document = client.get(f"/games/{game['id']}/replay").get_json()
    index = next(i for i, event in enumerate(document["events"]) if event["kind"] == "action_undone")
    document["events"][index]["data"] = forgery(document["events"][index]["data"])
    verdict = verify(rehash(document, start=index + 1))
    assert not verdict.valid and verdict.first_bad_seq == document["events"][index]["seq"], verdict.summary


def test_an_undo_inserted_at_the_deal_or_after_the_end_is_invalid(client):
    game, _ = finished_with_undos(client)
    document = client.get(f"/games/{game['id']}/replay").get_json()
    undo_event = next(event for event in document["events"] if event["kind"] == "action_undone")
    for place in (1, len(document["events"]) - 1):
        forged = json.loads(json.dumps(document))
        forged["events"].insert(place, {**undo_event, "seq": place + 1})
        for seq, event in enumerate(forged["events"], start=1):
            event["seq"] = seq
        verdict = verify(rehash(forged))
        assert not verdict.valid and verdict.first_bad_seq == place + 1, verdict.summary


def test_a_hint_after_an_undo_is_for_the_position_undone_to(client):
    shown, token = played(client, "osmosis", 6, 4)
    back = undone(client, shown[-1], token)["game"]
    hint = client.post(f"/games/{back['id']}/hint", headers=token).get_json()["hint"]
    assert hint["action"] is None or hint["action"] in back["legal_actions"]


def test_a_game_takes_at_most_max_undos(client, monkeypatch):
    monkeypatch.setattr(events, "MAX_UNDOS", 2)
    game, token = create(client, variant="osmosis", deal_number=5)
    for _ in range(2):
        drawn = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
        game = undone(client, drawn, token)["game"]
    drawn = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
    assert not drawn["can_undo"]  # the table's Undo is off: the limit is reached
    refused = undo(client, drawn, token)
    assert refused.status_code == 409 and refused.get_json()["rule"] == "undo-limit"
    assert "at most 2 undos" in refused.get_json()["detail"]


def test_a_full_log_refuses_an_action_a_hint_and_an_undo_and_takes_the_resignation(client, monkeypatch):
    monkeypatch.setattr(events, "MAX_LOG_EVENTS", 6)
    game, token = create(client, variant="osmosis", deal_number=5)
    for _ in range(3):
        game = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
    assert game["version"] == 4
    for path, body in (("draw", None), ("hint", None), ("actions", {"action": {"kind": "undo"}})):
        refused = client.post(f"/games/{game['id']}/{path}", json=body, headers=token)
        assert refused.status_code == 409 and refused.mimetype == PROBLEM, path
        assert (refused.get_json()["code"], refused.get_json()["rule"]) == ("illegal-action", "log-full")
        assert "resign" in refused.get_json()["detail"]
    resigned = client.post(f"/games/{game['id']}/resign", headers=token).get_json()["game"]
    assert (resigned["status"], resigned["version"]) == ("resigned", 6)
    assert verify(client.get(f"/games/{game['id']}/replay").get_json()).valid


def test_an_export_with_more_undos_than_a_game_takes_is_invalid_at_the_one_too_many(client, monkeypatch):
    """The verifier holds a log to the server's own limit (events.MAX_UNDOS): a server that took back more (here one
    told a limit of 3, the verifier's being 2) wrote a log no honest server writes."""
    monkeypatch.setattr(events, "MAX_UNDOS", 3)
    game, token = create(client, variant="osmosis", deal_number=5)
    for _ in range(3):
        drawn = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
        game = undone(client, drawn, token)["game"]
    client.post(f"/games/{game['id']}/resign", headers=token)  # the seeds revealed: the moves can be checked
    exported = client.get(f"/games/{game['id']}/replay").get_json()
    third = [event["seq"] for event in exported["events"] if event["kind"] == "action_undone"][2]
    monkeypatch.setattr(events, "MAX_UNDOS", 2)

    verdict = verify(exported)

    assert not verdict.valid and verdict.first_bad_seq == third, verdict.summary
    assert "more than 2 undos" in verdict.summary
