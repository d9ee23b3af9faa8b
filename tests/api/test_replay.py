"""Replays and audits: time travel, sealed deals, exports, verification, tampering, and leaks."""

import copy
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from server.log.events import chain_hash
from server.log.replay import verify
from server.rules import PRESETS, commitment, from_text, layout, shuffled_deck
from tests.api.helpers import create, play, rehash

OSMOSIS = Path(sys.executable).with_name("osmosis")
CARD_IN_JSON = re.compile(r'"([A2-9TJQK][CDHS])"')


def finish(client, game, token, rng):
    game = play(client, game, token, rng, steps=3000)
    if game["status"] == "playing":
        game = client.post(f"/games/{game['id']}/resign", headers=token).get_json()["game"]
    return game


# --- time travel ----------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(PRESETS))
def test_the_state_at_every_seq_is_what_the_live_game_showed(client, variant):
    rng = random.Random(variant)
    for _ in range(3):
        game, token = create(client, variant=variant)
        seen = {1: (game["state"], game["legal_actions"])}
        game = play(client, game, token, rng, steps=rng.randint(20, 300), seen=seen)

        for version, (state, legal) in seen.items():
            past = client.get(f"/games/{game['id']}/states/{version}").get_json()
            assert (past["state"], past["legal_actions"]) == (state, legal), f"differs at seq {version}"
            assert past["seq"] == version


def test_a_seq_outside_the_log_is_404(client):
    game, _ = create(client)

    problem = client.get(f"/games/{game['id']}/states/2").get_json()

    assert problem["code"] == "event-not-found"
    assert client.get(f"/games/{game['id']}/states/0").status_code == 404


# --- sealed deals ---------------------------------------------------------------------------------


def test_a_sealed_deal_is_committed_before_the_client_seed_and_deals_with_it(client):
    sealed = client.post("/deals")
    deal = sealed.get_json()
    assert sealed.status_code == 201 and sealed.headers["Location"] == f"/deals/{deal['id']}"
    assert set(deal) == {"id", "commitment", "created_at", "game_id"}

    game, token = create(client, variant="peek", sealed_deal_id=deal["id"], client_seed="alice-🂡")
    assert game["commitment"] == deal["commitment"]
    assert game["deal"] == {"kind": "sealed", "sealed_deal_id": deal["id"]}
    assert client.get(f"/deals/{deal['id']}").get_json()["game_id"] == game["id"]

    body = client.post(f"/games/{game['id']}/resign", headers=token).get_json()
    revealed = body["events"][-1]["data"]
    seed = bytes.fromhex(revealed["server_seed"])
    assert revealed["client_seed"] == "alice-🂡"
    assert commitment(seed) == deal["commitment"]
    opening = layout(shuffled_deck(seed, "alice-🂡"), PRESETS["peek"])
    assert game["state"]["reserves"][0]["face_up"] == [str(card) for card in opening.reserves[0]]


def test_a_sealed_deal_makes_one_game_only(client):
    deal = client.post("/deals").get_json()
    create(client, sealed_deal_id=deal["id"], client_seed="x")

    problem = client.post("/games", json={"sealed_deal_id": deal["id"], "client_seed": "y"}).get_json()

    assert problem["code"] == "sealed-deal-used"


def test_a_client_seed_without_a_sealed_deal_is_refused(client):
    problem = client.post("/games", json={"client_seed": "x"}).get_json()

    assert problem["code"] == "validation-failed" and "client_seed" in problem["errors"]


def test_an_unknown_sealed_deal_is_404(client):
    missing = "00000000-0000-4000-8000-000000000000"

    assert client.post("/games", json={"sealed_deal_id": missing}).get_json()["code"] == "sealed-deal-not-found"
    assert client.get(f"/deals/{missing}").get_json()["code"] == "sealed-deal-not-found"


# --- exports and verification ---------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(PRESETS))
def test_finished_games_export_and_verify_everywhere(client, variant):
    rng = random.Random(f"export-{variant}")
    for kind in ("random", "number", "sealed"):
        body = {"variant": variant}
        if kind == "number":
            body["deal_number"] = rng.randrange(2**53)
        if kind == "sealed":
            body.update(sealed_deal_id=client.post("/deals").get_json()["id"], client_seed=f"seed {rng.random()}")
        game, token = create(client, **body)
        game = finish(client, game, token, rng)

        document = client.get(f"/games/{game['id']}/replay").get_json()

        assert document["format"] == "osmosis-replay/1" and document["status"] == game["status"]
        assert verify(document).valid and verify(document).complete, verify(document).summary
        assert client.get(f"/games/{game['id']}/verification").get_json()["valid"] is True
        uploaded = client.post("/replays/verification", json=document).get_json()
        assert uploaded["valid"] is True and uploaded["complete"] is True


def test_a_game_in_progress_verifies_on_the_server_and_only_partly_offline(client):
    game, token = create(client, variant="osmosis-draw-one")
    game = play(client, game, token, random.Random(3), steps=40)

    server = client.get(f"/games/{game['id']}/verification").get_json()
    offline = verify(client.get(f"/games/{game['id']}/replay").get_json())

    assert server["valid"] and server["complete"] and server["checked_events"] == game["version"]
    assert offline.valid and not offline.complete
    assert offline.summary.startswith("VALID so far")


def export_of_finished_game(client, seed=1):
    rng = random.Random(seed)
    game, token = create(client, variant="osmosis-draw-one", deal_number=seed)
    game = play(client, game, token, rng, steps=30)
    game = client.post(f"/games/{game['id']}/resign", headers=token).get_json()["game"]
    return game, client.get(f"/games/{game['id']}/replay").get_json()


def edit_card_of_a_deal(document):
    event = next(e for e in document["events"] if e["kind"] == "cards_dealt")
    event["data"]["cards"][0] = "KS" if event["data"]["cards"][0] != "KS" else "KH"
    return event["seq"]


@pytest.mark.parametrize("forge_hashes", [False, True], ids=["edited", "edited-and-rehashed"])
def test_an_edited_export_is_detected_at_the_first_bad_seq(client, forge_hashes):
    _, document = export_of_finished_game(client)
    bad = edit_card_of_a_deal(document)
    if forge_hashes:
        rehash(document, bad)

    verdict = verify(document)

    assert not verdict.valid and verdict.first_bad_seq == bad
    assert client.post("/replays/verification", json=document).get_json()["first_bad_seq"] == bad


def test_a_deleted_event_in_an_export_is_detected(client):
    _, document = export_of_finished_game(client)
    del document["events"][4]

    verdict = verify(document)

    assert not verdict.valid and verdict.first_bad_seq == 5 and "missing" in verdict.reason


def test_reordered_events_in_an_export_are_detected(client):
    _, document = export_of_finished_game(client)
    events = document["events"]
    events[3]["data"], events[4]["data"] = events[4]["data"], events[3]["data"]
    events[3]["kind"], events[4]["kind"] = events[4]["kind"], events[3]["kind"]
    rehash(document, 4)

    verdict = verify(document)

    assert not verdict.valid and verdict.first_bad_seq in (4, 5)


def test_an_event_inserted_into_an_export_is_detected(client):
    _, document = export_of_finished_game(client)
    events = document["events"]
    events.insert(3, copy.deepcopy(events[2]))
    for seq, event in enumerate(events, start=1):
        event["seq"] = seq
    rehash(document, 1)

    verdict = verify(document)

    assert not verdict.valid and verdict.first_bad_seq == 4


def test_a_forged_deal_is_detected(client):
    _, document = export_of_finished_game(client, seed=2)
    reveal = document["events"][-1]
    reveal["data"]["server_seed"] = "00" * 32
    rehash(document, reveal["seq"])

    verdict = verify(document)

    assert not verdict.valid and "does not match the commitment" in verdict.reason


def test_osmosis_verify_reads_a_file_or_stdin_and_exits_by_verdict(client, tmp_path):
    _, document = export_of_finished_game(client, seed=3)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(document))
    bad_document = copy.deepcopy(document)
    bad = edit_card_of_a_deal(bad_document)

    from_file = subprocess.run([OSMOSIS, "verify", good], capture_output=True, text=True)
    from_stdin = subprocess.run(
        [OSMOSIS, "verify", "-"], input=json.dumps(bad_document), capture_output=True, text=True
    )
    unreadable = subprocess.run([OSMOSIS, "verify", tmp_path / "none.json"], capture_output=True, text=True)

    assert from_file.returncode == 0 and from_file.stdout.startswith("VALID:")
    assert len(from_file.stdout.strip().splitlines()) == 1
    assert from_stdin.returncode == 1 and from_stdin.stdout.startswith(f"INVALID at event {bad}:")
    assert unreadable.returncode == 2


def test_osmosis_verify_of_a_game_in_progress_exits_3(client, tmp_path):
    game, token = create(client)
    play(client, game, token, random.Random(4), steps=10)
    path = tmp_path / "in-progress.json"
    path.write_text(json.dumps(client.get(f"/games/{game['id']}/replay").get_json()))

    result = subprocess.run([OSMOSIS, "verify", path], capture_output=True, text=True)

    assert result.returncode == 3 and result.stdout.startswith("VALID so far")


# --- tampering in the database --------------------------------------------------------------------


def finished_game_in_db(client, seed):
    rng = random.Random(seed)
    game, token = create(client, variant="osmosis-draw-one", deal_number=seed)
    game = play(client, game, token, rng, steps=25)
    return client.post(f"/games/{game['id']}/resign", headers=token).get_json()["game"]


def verification(client, game):
    return client.get(f"/games/{game['id']}/verification").get_json()


def test_a_changed_event_in_the_database_is_detected(client, attacker):
    game = finished_game_in_db(client, 10)
    (seq,) = attacker.execute(
        "SELECT min(seq) FROM game_events WHERE game_id = %s AND kind = 'cards_dealt'", (game["id"],)
    ).fetchone()
    changed = attacker.execute(
        """UPDATE game_events SET data = jsonb_set(data, '{cards,0}', '"KS"')
                                  WHERE game_id = %s AND seq = %s AND data->'cards'->>0 <> 'KS'""",
        (game["id"], seq),
    )
    assert changed.rowcount == 1

    verdict = verification(client, game)

    assert not verdict["valid"] and verdict["first_bad_seq"] == seq


def test_a_deleted_event_in_the_database_is_detected(client, attacker):
    game = finished_game_in_db(client, 11)
    assert attacker.execute("DELETE FROM game_events WHERE game_id = %s AND seq = 4", (game["id"],)).rowcount == 1

    verdict = verification(client, game)

    assert not verdict["valid"] and verdict["first_bad_seq"] == 4


def test_reordered_events_in_the_database_are_detected(client, attacker):
    game = finished_game_in_db(client, 12)
    attacker.execute("UPDATE game_events SET seq = seq + 1000 WHERE game_id = %s AND seq IN (3, 4)", (game["id"],))
    swapped = attacker.execute(
        "UPDATE game_events SET seq = CASE seq WHEN 1003 THEN 4 ELSE 3 END WHERE game_id = %s AND seq > 1000",
        (game["id"],),
    )
    assert swapped.rowcount == 2

    verdict = verification(client, game)

    assert not verdict["valid"] and verdict["first_bad_seq"] == 3


def test_an_event_appended_in_the_database_with_a_forged_hash_is_detected(client, attacker):
    game, token = create(client, deal_number=13)
    play(client, game, token, random.Random(13), steps=5)
    head = client.get(f"/games/{game['id']}").get_json()
    seq = head["version"] + 1
    data = {"cards": ["AS"]}
    attacker.execute(
        "INSERT INTO game_events (game_id, seq, kind, data, hash) VALUES (%s, %s, %s, %s, %s)",
        (game["id"], seq, "cards_dealt", json.dumps(data), chain_hash(head["head_hash"], seq, "cards_dealt", data)),
    )

    verdict = verification(client, game)

    assert not verdict["valid"] and verdict["first_bad_seq"] == seq


def test_a_changed_projection_is_detected(client, attacker):
    game = finished_game_in_db(client, 14)
    attacker.execute("UPDATE games SET score = 52, status = 'won' WHERE id = %s", (game["id"],))

    verdict = verification(client, game)

    assert not verdict["valid"] and "not the fold" in verdict["reason"]


def test_a_changed_game_document_is_detected(client, attacker):
    game = finished_game_in_db(client, 15)
    attacker.execute(
        "UPDATE games SET document = jsonb_set(document::jsonb, '{score}', '52')::json WHERE id = %s", (game["id"],)
    )

    verdict = verification(client, game)

    assert not verdict["valid"] and "not the fold" in verdict["reason"]


def test_a_forged_server_seed_in_the_database_is_detected(client, attacker):
    game, _ = create(client)
    attacker.execute("UPDATE game_secrets SET server_seed = %s WHERE game_id = %s", (b"\x01" * 32, game["id"]))

    verdict = verification(client, game)

    assert not verdict["valid"] and verdict["first_bad_seq"] == 1
    assert "does not match the commitment" in verdict["reason"]


# --- leaks ----------------------------------------------------------------------------------------


def never_shown(db, game_id):
    """Cards no player has seen yet (face down, or in the stock before the first redeal) and the seeds."""
    seed, client_seed, state_text = db.execute(
        "SELECT server_seed, client_seed, state FROM game_secrets WHERE game_id = %s", (game_id,)
    ).fetchone()
    state = from_text(state_text)
    hidden = {str(card) for p, pile in enumerate(state.reserves) for card in pile[: state.face_down(p)]}
    if state.pass_number == 1:
        hidden |= {str(card) for card in state.stock}
    secrets = {bytes(seed).hex()} | ({client_seed} if client_seed else set())
    return hidden, secrets, state_text


def crawl(client, game):
    game_id = game["id"]
    version = client.get(f"/games/{game_id}").get_json()["version"]
    paths = [
        f"/games/{game_id}",
        f"/games/{game_id}/events",
        f"/games/{game_id}/replay",
        f"/games/{game_id}/verification",
    ]
    paths += [f"/games/{game_id}/states/{seq}" for seq in range(1, version + 1)]
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        yield path, response.get_data(as_text=True), dict(response.headers)
    listed = client.get("/games?limit=100")
    entry = next(g for g in listed.get_json()["games"] if g["id"] == game_id)  # other games have other cards
    yield "/games", json.dumps(entry, ensure_ascii=False), dict(listed.headers)


@pytest.mark.parametrize("variant", ["osmosis", "osmosis-strict-waste", "osmosis-ablage", "bridesmaids"])
def test_no_get_of_a_game_in_progress_shows_a_hidden_card_the_stock_order_or_a_seed(client, db, variant):
    rng = random.Random(f"leak-{variant}")
    deal = client.post("/deals").get_json()
    sealed, sealed_token = create(client, variant=variant, sealed_deal_id=deal["id"], client_seed="secret-client")
    games = [(sealed, sealed_token), create(client, variant=variant)]
    for game, token in games:
        for _ in range(4):
            game = play(client, game, token, rng, steps=rng.randint(3, 40))
            if game["status"] != "playing":
                break
            hidden, secrets, state_text = never_shown(db, game["id"])
            for path, body, headers in crawl(client, game):
                shown = set(CARD_IN_JSON.findall(body))
                assert not shown & hidden, f"{path} shows hidden {shown & hidden}"
                for secret in (*secrets, state_text):
                    assert secret not in body and secret not in json.dumps(headers), f"{path} leaks a secret"
