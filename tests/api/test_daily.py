"""The daily deal over HTTP: one deal per preset and day for everyone, one attempt each, private until the day
closes, then closed: games ended, seeds revealed, everything public and verifiable against the public log."""

import json
import random
import secrets
from datetime import UTC, date, datetime, time, timedelta

import pytest

from server.cli.main import main
from server.log.replay import verify
from server.rules import PRESETS
from tests.api.helpers import LOG_SIGNER, Clock, answer, app_on_a_clock, play_first_legal, reads, rehash, run_together

PROBLEM = "application/problem+json"


@pytest.fixture
def day():
    """A day of its own for each test (the database is the session's), far from any other."""
    return date(2100, 1, 1) + timedelta(days=random.randrange(300_000))


@pytest.fixture
def clock(day):
    return Clock(datetime.combine(day, time(9, 30), UTC))


@pytest.fixture
def daily_app(store, clock):
    yield from app_on_a_clock(store, clock)


@pytest.fixture
def client(daily_app):
    return daily_app.test_client()


def player(client, kind="human"):
    made = client.post("/players", json={"name": f"d{secrets.token_hex(6)}", "kind": kind}).get_json()
    return {"Authorization": f"Bearer {made['token']}"}


def daily_game(client, token, variant="peek"):
    response = client.post("/games", json={"variant": variant, "daily": True}, headers=token)
    assert response.status_code == 201, response.get_json()
    game = response.get_json()
    return game, {"Authorization": f"Bearer {game['player_token']}"}


def close_the_day(daily_app, clock):
    clock.now += timedelta(days=1)
    while daily_app.extensions["osmosis.upkeep"].run_once():
        pass


def test_today_has_one_sealed_deal_per_preset_that_closes_at_midnight_utc(client, day):
    today = client.get("/daily").get_json()

    assert today["day"] == day.isoformat() and today["closed"] is False
    assert today["closes_at"] == datetime.combine(day + timedelta(days=1), time(), UTC).isoformat()
    assert [deal["variant"] for deal in today["deals"]] == list(PRESETS)
    assert all(deal["server_seed"] is None and deal["your_game"] is None for deal in today["deals"])
    assert len({deal["commitment"] for deal in today["deals"]}) == len(PRESETS)
    assert client.get("/daily").get_json() == today


def test_every_player_gets_the_same_deal_once_and_a_second_attempt_makes_nothing(client, db, day):
    alice, bob = player(client), player(client)
    first, _ = daily_game(client, alice)
    second, _ = daily_game(client, bob)
    commitment = next(d["commitment"] for d in client.get("/daily").get_json()["deals"] if d["variant"] == "peek")

    assert first["deal"] == second["deal"] == {"kind": "daily", "day": day.isoformat()}
    assert first["commitment"] == second["commitment"] == commitment
    assert first["state"] == second["state"]
    (before,) = db.execute("SELECT count(*) FROM games").fetchone()
    again = client.post("/games", json={"variant": "peek", "daily": True}, headers=alice)
    assert again.status_code == 409 and again.get_json()["code"] == "daily-deal-played"
    assert db.execute("SELECT count(*) FROM games").fetchone() == (before,)
    assert daily_game(client, alice, "osmosis")[0]["deal"]["kind"] == "daily"  # another preset's deal
    mine = {d["variant"]: d["your_game"] for d in client.get("/daily", headers=alice).get_json()["deals"]}
    assert mine["peek"] == first["id"] and mine["bridesmaids"] is None


def test_of_concurrent_attempts_at_one_daily_deal_exactly_one_is_made(daily_app):
    token = player(daily_app.test_client())
    statuses = run_together(
        6,
        lambda _: (
            daily_app.test_client()
            .post("/games", json={"variant": "osmosis", "daily": True}, headers=token)
            .status_code
        ),
    )
    assert sorted(statuses) == [201] + [409] * 5


def test_retries_of_a_daily_attempt_in_flight_at_once_all_get_the_first_game(daily_app):
    token = player(daily_app.test_client())
    key = {"Idempotency-Key": secrets.token_hex(8)}
    answers = run_together(
        12,
        lambda _: daily_app.test_client().post(
            "/games", json={"variant": "peek-till-dawn", "daily": True}, headers={**token, **key}
        ),
    )

    assert {answer.status_code for answer in answers} == {201}
    assert len({answer.get_json()["id"] for answer in answers}) == 1


def test_an_account_only_token_does_not_read_its_player_s_hidden_daily_game(client):
    made = client.post("/players", json={"name": f"d{secrets.token_hex(6)}"}).get_json()
    alice = {"Authorization": f"Bearer {made['token']}"}
    game, _ = daily_game(client, alice)
    account = client.post(
        "/players/me/tokens", json={"label": "tokens only", "scopes": ["account"]}, headers=alice
    ).get_json()["token"]

    for path in reads(game["id"]):
        status, _, _ = answer(client, path, {"Authorization": f"Bearer {account}"})
        assert status == 404, path
    listed = client.get("/games?limit=100", headers={"Authorization": f"Bearer {account}"}).get_json()["games"]
    assert game["id"] not in [g["id"] for g in listed]
    assert answer(client, reads(game["id"])[0], alice)[0] == 200


@pytest.mark.parametrize(
    "body",
    [
        {"daily": True, "deal_number": 3},
        {"daily": True, "rules": {"draw": 1}},
        {"daily": True, "winnable": True},
        {"daily": True, "sealed_deal_id": "0b3c9a1e-6d2f-4c57-8a3e-2f1d5e7c9b40", "client_seed": "x"},
        {"daily": "yes"},
    ],
)
def test_the_daily_deal_takes_nothing_but_its_variant(client, body):
    response = client.post("/games", json=body, headers=player(client))
    assert response.status_code == 422 and response.get_json()["code"] == "validation-failed"


def test_the_daily_deal_is_played_as_a_player(client):
    response = client.post("/games", json={"daily": True})
    assert response.status_code == 401 and response.get_json()["code"] == "unauthorized"


def test_before_the_close_a_daily_game_is_its_players_alone_and_to_anyone_else_does_not_exist(client):
    alice, stranger = player(client), player(client)
    game, own = daily_game(client, alice)
    client.post(f"/games/{game['id']}/draw", headers=alice)
    nowhere = "00000000-0000-4000-8000-000000000000"

    for path, wrong in zip(reads(game["id"]), reads(nowhere), strict=True):
        # A token that opens nothing is 401 whatever it asks for (issue 50); either way the answer is the same as
        # for a game that does not exist.
        for who, refused in ((None, 404), (stranger, 404), ({"Authorization": "Bearer osm_revoked"}, 401)):
            status, mimetype, body = answer(client, path, who)
            expected = answer(client, wrong, who)
            assert (status, mimetype) == expected[:2] == (refused, PROBLEM), path
            assert body.replace(game["id"].encode(), nowhere.encode()) == expected[2], path
    for action in ("draw", "resign", "hint"):
        refused = client.post(f"/games/{game['id']}/{action}", headers=stranger)
        assert refused.status_code == 404 and refused.get_json()["code"] == "game-not-found"
    assert client.post(f"/games/{game['id']}/draw", headers={"Authorization": "Bearer nope"}).status_code == 404
    listed = [g["id"] for g in client.get("/games?limit=100").get_json()["games"]]
    assert game["id"] not in listed
    assert game["id"] in [g["id"] for g in client.get("/games?limit=100", headers=alice).get_json()["games"]]
    for path in reads(game["id"])[:6]:
        assert answer(client, path, alice)[0] == 200, path
        assert answer(client, path, own)[0] == 404, path  # the game's own token acts; it does not name a player


def test_a_daily_game_ended_before_the_close_keeps_its_seeds_analysis_and_log_entries_until_then(daily_app, client):
    alice = player(client)
    game, _ = daily_game(client, alice)
    ended = client.post(f"/games/{game['id']}/resign", headers=alice).get_json()

    assert [event["kind"] for event in ended["events"]] == ["game_resigned"]
    assert "server_seed" not in ended["game"]["deal"]
    replay = client.get(f"/games/{game['id']}/replay", headers=alice).get_json()
    assert all(event["kind"] != "seeds_revealed" for event in replay["events"])
    verdict = client.get(f"/games/{game['id']}/verification", headers=alice).get_json()
    assert verdict["valid"] is True
    refused = client.get(f"/games/{game['id']}/analysis", headers=alice)
    assert refused.status_code == 409 and refused.get_json()["code"] == "day-not-closed"
    while daily_app.extensions["osmosis.sequencer"].run_once() is not None:
        pass
    logged = client.get(f"/games/{game['id']}/transparency", headers=alice).get_json()
    assert [leaf["kind"] for leaf in logged["leaves"]] == ["daily_deal_opened"]
    assert logged["pending"] == ["game_created", "game_ended"]


def test_at_the_close_every_game_of_the_day_ends_reveals_its_seeds_and_becomes_public(daily_app, client, clock, day):
    alice, bob = player(client), player(client)
    on, _ = daily_game(client, alice)
    client.post(f"/games/{on['id']}/draw", headers=alice)
    done, _ = daily_game(client, bob)
    done = play_first_legal(client, done, bob)
    clock.now += timedelta(days=1)

    late = client.post(f"/games/{on['id']}/draw", headers=alice)
    assert late.status_code == 409 and late.get_json()["code"] == "day-closed"
    # The closed day is the refusal, whatever version the action states: the game ended with its day.
    stale = client.post(f"/games/{on['id']}/draw", json={"expected_version": 1}, headers=alice)
    assert stale.status_code == 409 and stale.get_json()["code"] == "day-closed"
    close_the_day(daily_app, clock)

    past = client.get(f"/daily/{day.isoformat()}").get_json()
    seed = next(d["server_seed"] for d in past["deals"] if d["variant"] == "peek")
    assert past["closed"] is True and seed is not None
    for game_id, last_kinds in ((on["id"], ["game_resigned", "seeds_revealed"]), (done["id"], ["seeds_revealed"])):
        game = client.get(f"/games/{game_id}").get_json()
        assert game["deal"]["server_seed"] == seed and game["status"] != "playing"
        events = client.get(f"/games/{game_id}/events?limit=200").get_json()["events"]
        assert [event["kind"] for event in events[-len(last_kinds) :]] == last_kinds
        verdict = client.get(f"/games/{game_id}/verification").get_json()
        assert (verdict["valid"], verdict["complete"], verdict["first_bad_seq"]) == (True, True, None), verdict
        assert client.get(f"/games/{game_id}/analysis").status_code == 200
    assert on["id"] in [g["id"] for g in client.get("/games?limit=100").get_json()["games"]]
    assert client.post(f"/games/{on['id']}/draw", headers=alice).status_code == 409


def test_a_closed_daily_game_verifies_offline_against_the_logged_opening_of_its_day(
    daily_app, client, clock, tmp_path, capsys
):
    alice = player(client, "bot")
    game, _ = daily_game(client, alice, "osmosis")
    close_the_day(daily_app, clock)
    while daily_app.extensions["osmosis.sequencer"].run_once() is not None:
        pass
    export = client.get(f"/games/{game['id']}/replay").get_json()

    kinds = [leaf["kind"] for leaf in export["transparency"]["leaves"]]
    assert kinds == ["daily_deal_opened", "game_created", "game_ended"]
    path = tmp_path / "daily.json"
    path.write_text(json.dumps(export))
    assert main(["verify", "--log-key", LOG_SIGNER.verifier.vkey, str(path)]) == 0, capsys.readouterr().out

    opened = json.loads(export["transparency"]["leaves"][0]["entry"])
    assert opened["commitment"] == export["commitment"]
    forged = json.loads(json.dumps(export))
    forged["transparency"]["leaves"] = forged["transparency"]["leaves"][1:]
    path.write_text(json.dumps(forged))
    assert main(["verify", "--log-key", LOG_SIGNER.verifier.vkey, str(path)]) != 0
    assert "daily" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/daily/2999-12-31", 404, "day-not-found"),
        ("/daily/yesterday", 422, "invalid-input"),
        ("/daily/2026-13-01", 422, "invalid-input"),
        ("/daily/2026-1-1", 422, "invalid-input"),
    ],
)
def test_a_day_to_come_or_not_a_day_is_refused(client, path, status, code):
    response = client.get(path)
    assert (response.status_code, response.get_json()["code"]) == (status, code)


def test_a_daily_game_takes_no_undo_its_actions_are_final(client):
    owner = player(client)
    game, token = daily_game(client, owner)
    game = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
    assert not game["can_undo"]
    refused = client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "undo"}}, headers=token)
    assert refused.status_code == 409 and refused.get_json()["rule"] == "undo-in-daily"
    assert client.get(f"/games/{game['id']}", headers=owner).get_json()["version"] == game["version"]


def test_an_undo_forged_into_a_daily_games_export_is_invalid_at_its_seq(daily_app, client, clock):
    """A daily deal takes no undo: an export that has one, its chain and fields made whole again, does not verify."""
    game, token = daily_game(client, player(client), "osmosis")
    client.post(f"/games/{game['id']}/draw", headers=token)
    close_the_day(daily_app, clock)
    export = client.get(f"/games/{game['id']}/replay").get_json()
    assert [event["kind"] for event in export["events"]] == [
        "game_created",
        "cards_dealt",
        "game_resigned",
        "seeds_revealed",
    ]

    forged = json.loads(json.dumps({key: value for key, value in export.items() if key != "transparency"}))
    undone = {"seq": 3, "kind": "action_undone", "data": {"undone_seq": 2, "action": {"kind": "deal"}}, "hash": ""}
    forged["events"] = [*forged["events"][:2], undone, *forged["events"][2:]]
    for seq, event in enumerate(forged["events"], start=1):
        event["seq"] = seq
    verdict = verify(rehash(forged))

    assert not verdict.valid and verdict.first_bad_seq == 3, verdict.summary
    assert "daily" in verdict.reason
    assert verify(export).valid  # the export as served verifies
