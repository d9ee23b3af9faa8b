"""The HTTP API against a real PostgreSQL: every endpoint, and every error it documents."""

import json
import re
from uuid import UUID

import pytest

from server.config import Settings
from server.game.commands import Draw
from server.rules import commitment, deal_number_seed
from server.runtime.app import create_app
from server.runtime.composition import compose
from server.store import migrate
from tests.api.helpers import body_of, create

PROBLEM = "application/problem+json"


def first_move(game):
    return next(action for action in game["legal_actions"] if action["kind"] == "move")


def assert_problem(response, status, code):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = response.get_json()
    assert body["status"] == status and body["code"] == code
    assert body["type"] == f"urn:osmosis:problem:{code}" and body["title"] and body["detail"]
    return body


# --- variants and probes --------------------------------------------------------------------------


def test_variants_lists_the_eight_presets_with_their_rules(client):
    variants = client.get("/variants").get_json()["variants"]

    assert [v["name"] for v in variants] == [
        "osmosis",
        "osmosis-draw-one",
        "osmosis-three-passes",
        "osmosis-strict-waste",
        "osmosis-ablage",
        "peek",
        "peek-till-dawn",
        "bridesmaids",
    ]
    assert variants[2]["rules"] == {
        "reserve_piles": 4,
        "reserve_face_down": 3,
        "draw": 1,
        "max_passes": 3,
        "waste_access": "top",
        "start_rule": "base_rank",
        "free_cells": 0,
    }


def test_healthz_and_readyz_answer_ok_with_a_migrated_database(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ready", "writes": "ok"}


def test_readyz_is_503_when_the_schema_is_behind(client, db):
    head = migrate.head_revision()
    db.execute("UPDATE alembic_version SET version_num = '0000'")
    try:
        body = assert_problem(client.get("/readyz"), 503, "not-ready")
    finally:
        db.execute("UPDATE alembic_version SET version_num = %s", (head,))

    assert f"not at head {head}" in body["detail"]


# --- creating and reading -------------------------------------------------------------------------


def test_creating_a_game_returns_201_location_etag_the_game_and_the_token_once(client):
    response = client.post("/games", json={})

    game = response.get_json()
    assert response.status_code == 201
    assert response.headers["Location"] == f"/games/{game['id']}"
    assert response.headers["ETag"] == '"1"'
    assert game["status"] == "playing" and game["version"] == 1 and game["variant"] == "osmosis"
    assert game["deal"] == {"kind": "random"}
    assert re.fullmatch(r"[0-9a-f]{64}", game["commitment"])
    assert game["legal_actions"][-1] == {"kind": "deal"}
    assert game["state"]["stock_count"] == 35 and game["score"] == 1
    assert len(game["player_token"]) >= 40
    assert "player_token" not in client.get(f"/games/{game['id']}").get_json()


def test_a_deal_number_gives_the_public_deal_and_its_commitment(client):
    game, _ = create(client, variant="peek", deal_number=4711)

    assert game["deal"] == {"kind": "number", "deal_number": 4711}
    assert game["commitment"] == commitment(deal_number_seed(4711))
    assert game["state"]["reserves"][0] == {"face_down": 0, "face_up": ["9H", "QS", "9D", "2S"]}


def test_custom_rules_create_a_game_with_those_rules(client):
    game, _ = create(client, rules={"draw": 1, "free_cells": 1, "waste_access": "group"})

    assert game["variant"] is None
    assert game["rules"]["draw"] == 1 and game["rules"]["free_cells"] == 1
    assert game["rules"]["waste_access"] == "group" and game["rules"]["reserve_piles"] == 4


def test_custom_rules_equal_to_a_preset_are_named_as_that_preset(client):
    game, _ = create(client, rules={"reserve_face_down": 0})

    assert game["variant"] == "peek"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"variant": "osmosis", "rules": {"draw": 1}}, "rules"),
        ({"rules": {"draw": 2}}, "rules"),
        ({"rules": {"draw": 2.5}}, "rules"),
        ({"rules": {"max_passes": 0}}, "rules"),
        ({"deal_number": -1}, "deal_number"),
        ({"deal_number": 2**53}, "deal_number"),
        ({"deal_number": 3.0}, "deal_number"),
        ({"deal_number": "12"}, "deal_number"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_bad_create_request_is_422_naming_the_field(client, body, field):
    problem = assert_problem(client.post("/games", json=body), 422, "validation-failed")

    assert field in problem["errors"]


def test_an_unknown_variant_is_422_listing_the_presets(client):
    problem = assert_problem(client.post("/games", json={"variant": "klondike"}), 422, "invalid-rules")

    assert "unknown variant 'klondike'" in problem["detail"] and "peek-till-dawn" in problem["detail"]


def test_a_nonsense_rule_combination_is_422(client):
    problem = assert_problem(client.post("/games", json={"rules": {"reserve_piles": 0}}), 422, "invalid-rules")

    assert "reserve_face_down must be 0 when reserve_piles is 0" in problem["detail"]


def test_malformed_json_is_400_problem_json(client):
    response = client.post("/games", data="{not json", content_type="application/json")

    assert_problem(response, 400, "bad-request")


def test_reading_a_game_returns_it_with_its_etag(client):
    game, _ = create(client, deal_number=1)

    response = client.get(f"/games/{game['id']}")

    assert response.status_code == 200
    assert response.headers["ETag"] == '"1"'
    assert response.get_json() == {k: v for k, v in game.items() if k != "player_token"}


def test_a_read_sends_the_game_byte_for_byte_as_the_response_that_last_changed_it(client):
    response = client.post("/games", json={"deal_number": 2})
    created = response.data.decode()
    game_id = response.get_json()["id"]

    read = client.get(f"/games/{game_id}").data.decode()

    assert created == read[:-1] + ',"player_token":' + json.dumps(response.get_json()["player_token"]) + "}"
    token = {"Authorization": f"Bearer {response.get_json()['player_token']}"}
    acted = client.post(f"/games/{game_id}/draw", headers=token).data.decode()
    assert acted.startswith('{"game":' + client.get(f"/games/{game_id}").data.decode() + ',"events":[')


def test_a_game_lists_its_rules_and_deal_alike_whichever_process_rendered_it(client, store):
    created = client.post("/games", json={"variant": "osmosis-draw-one", "deal_number": 4}).get_json()

    elsewhere = body_of(compose(store).acting.handle(Draw(UUID(created["id"]), created["player_token"])))["game"]

    assert list(elsewhere["rules"]) == list(created["rules"]) == sorted(created["rules"])
    assert list(elsewhere["deal"]) == list(created["deal"]) == sorted(created["deal"])


def test_if_none_match_with_the_current_etag_gives_304(client):
    game, token = create(client, deal_number=1)

    assert client.get(f"/games/{game['id']}", headers={"If-None-Match": '"1"'}).status_code == 304
    client.post(f"/games/{game['id']}/draw", headers=token)
    assert client.get(f"/games/{game['id']}", headers={"If-None-Match": '"1"'}).status_code == 200


def test_an_unknown_game_is_404_problem_json(client):
    assert_problem(client.get("/games/00000000-0000-4000-8000-000000000000"), 404, "game-not-found")
    assert_problem(client.get("/games/not-a-uuid"), 404, "not-found")


def test_a_wrong_method_is_405_with_allow(client):
    response = client.delete("/games")

    assert_problem(response, 405, "method-not-allowed")
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}


def test_the_game_list_is_newest_first_and_pages_by_the_link_header(client):
    """The session's database holds other tests' games too, some made later than these by a clock of their own (a
    daily deal of a day to come, closed): the five made here come in reverse order, among the rest, newest first."""
    ids = [create(client, deal_number=n)[0]["id"] for n in range(5)]

    first = client.get("/games?limit=3")
    listed, page = first.get_json()["games"], first
    while not set(ids) <= {game["id"] for game in listed}:
        page = client.get(re.fullmatch(r'<(.+)>; rel="next"', page.headers["Link"]).group(1))
        listed += page.get_json()["games"]

    assert len(first.get_json()["games"]) == 3
    assert [game["id"] for game in listed if game["id"] in ids] == list(reversed(ids))
    assert [game["created_at"] for game in listed] == sorted((game["created_at"] for game in listed), reverse=True)


def test_following_the_links_walks_every_game_once_and_the_last_page_has_no_link(client, db):
    for n in range(3):
        create(client, deal_number=n)
    seen, path, pages = [], "/games?limit=7", 0

    while path:
        response = client.get(path)
        seen += [game["id"] for game in response.get_json()["games"]]
        link = response.headers.get("Link")
        path = re.fullmatch(r'<(.+)>; rel="next"', link).group(1) if link else None
        pages += 1

    # Every game anyone may read: all but the contest games whose contest has not closed yet (tests/api/test_daily.py's
    # daily games, tests/api/test_competitions.py's competition games).
    readable = db.execute("SELECT count(*) FROM games WHERE private_until IS NULL OR private_until <= now()")
    assert len(seen) == len(set(seen)) == readable.fetchone()[0]
    assert pages == -(-len(seen) // 7)  # no empty last page: a full page with nothing after has no Link


def test_a_forged_cursor_or_limit_out_of_range_is_422(client):
    assert_problem(client.get("/games?cursor=bm9wZQ"), 422, "invalid-cursor")
    assert_problem(client.get("/games?limit=0"), 422, "validation-failed")
    assert_problem(client.get("/games?limit=101"), 422, "validation-failed")


# --- acting -------------------------------------------------------------------------------------


def test_an_action_needs_the_player_token(client):
    game, _ = create(client)

    response = client.post(f"/games/{game['id']}/draw")

    assert_problem(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_another_games_token_is_403(client):
    game, _ = create(client)
    _, other_token = create(client)

    assert_problem(client.post(f"/games/{game['id']}/draw", headers=other_token), 403, "forbidden")


def test_draw_deals_and_returns_the_new_state_and_the_event(client):
    game, token = create(client, deal_number=0)

    response = client.post(f"/games/{game['id']}/draw", headers=token)

    body = response.get_json()
    assert response.status_code == 200 and response.headers["ETag"] == '"2"'
    assert body["game"]["version"] == 2
    assert body["game"]["state"]["waste"] == ["AS", "5H", "TH"]
    assert [e["kind"] for e in body["events"]] == ["cards_dealt"]
    assert body["events"][0]["data"] == {"cards": ["AS", "5H", "TH"]}
    assert body["events"][0]["hash"] == body["game"]["head_hash"]


def test_a_move_needs_only_the_card(client):
    game, token = create(client, deal_number=0)
    game = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]

    response = client.post(f"/games/{game['id']}/moves", json={"card": "TH"}, headers=token)

    body = response.get_json()
    assert response.status_code == 200
    assert body["events"][0] == {
        **body["events"][0],
        "kind": "card_played",
        "data": {"card": "TH", "from": "waste", "to": "F1", "uncovered": None},
    }
    assert body["game"]["state"]["foundations"][0]["cards"] == ["6H", "TH"]


def test_a_move_may_state_where_the_card_is_and_where_it_goes(client):
    game, token = create(client, deal_number=0)
    client.post(f"/games/{game['id']}/draw", headers=token)

    response = client.post(
        f"/games/{game['id']}/moves", json={"card": "TH", "from": "waste", "to": "F1"}, headers=token
    )

    assert response.status_code == 200


def test_a_stated_place_that_does_not_match_is_409_naming_the_rule(client):
    game, token = create(client, deal_number=0)
    client.post(f"/games/{game['id']}/draw", headers=token)

    wrong_source = client.post(f"/games/{game['id']}/moves", json={"card": "TH", "from": "R1"}, headers=token)
    wrong_target = client.post(f"/games/{game['id']}/moves", json={"card": "TH", "to": "F2"}, headers=token)

    assert assert_problem(wrong_source, 409, "illegal-action")["rule"] == "wrong-source"
    problem = assert_problem(wrong_target, 409, "illegal-action")
    assert problem["rule"] == "suit" and problem["detail"] == "TH cannot start F2: hearts already go to F1"


def test_an_illegal_move_is_409_naming_the_rule_and_the_cards(client):
    game, token = create(client, deal_number=0)

    response = client.post(f"/games/{game['id']}/moves", json={"card": "8S"}, headers=token)

    problem = assert_problem(response, 409, "illegal-action")
    assert problem["rule"] == "base-rank"
    assert problem["detail"] == "8S cannot start F2: an empty foundation starts with the base rank, 6"
    assert client.get(f"/games/{game['id']}").get_json()["version"] == 1


def test_a_face_down_card_is_refused_without_saying_where_it_is(client):
    game, token = create(client, deal_number=0)

    problem = assert_problem(
        client.post(f"/games/{game['id']}/moves", json={"card": "KC"}, headers=token), 409, "illegal-action"
    )

    assert problem["rule"] == "not-available"
    assert "R1" not in problem["detail"]


def test_a_malformed_card_is_422_not_409(client):
    game, token = create(client)

    problem = assert_problem(
        client.post(f"/games/{game['id']}/moves", json={"card": "QX"}, headers=token), 422, "validation-failed"
    )

    assert "card" in problem["errors"]


def test_moving_to_the_cell_without_a_cell_is_409(client):
    game, token = create(client, deal_number=0)

    problem = assert_problem(
        client.post(f"/games/{game['id']}/moves", json={"card": "8S", "to": "cell"}, headers=token),
        409,
        "illegal-action",
    )

    assert problem["rule"] == "no-cell"


def test_the_cell_takes_a_reserve_top_in_the_ablage_variant(client):
    game, token = create(client, variant="osmosis-ablage", deal_number=0)

    body = client.post(f"/games/{game['id']}/moves", json={"card": "8S", "to": "cell"}, headers=token).get_json()

    assert body["events"][0]["kind"] == "card_moved_to_cell"
    assert body["events"][0]["data"] == {"card": "8S", "from": "R1", "to": "cell", "uncovered": "KC"}
    assert body["game"]["state"]["cell"] == "8S"


def test_resigning_ends_the_game_reveals_the_seeds_and_refuses_further_actions(client):
    game, token = create(client)

    body = client.post(f"/games/{game['id']}/resign", headers=token).get_json()

    assert body["game"]["status"] == "resigned"
    assert [e["kind"] for e in body["events"]] == ["game_resigned", "seeds_revealed"]
    seed = body["events"][1]["data"]["server_seed"]
    assert commitment(bytes.fromhex(seed)) == game["commitment"]
    assert body["game"]["deal"]["server_seed"] == seed
    assert body["game"]["legal_actions"] == []
    for path, payload in (("draw", None), ("resign", None), ("moves", {"card": "AS"})):
        assert_problem(client.post(f"/games/{game['id']}/{path}", json=payload, headers=token), 409, "game-over")


def test_draw_redeals_when_the_stock_is_empty(client):
    game, token = create(client, variant="osmosis-draw-one", deal_number=7)
    for _ in range(200):
        if {"kind": "redeal"} in game["legal_actions"]:
            break
        moves = [action for action in game["legal_actions"] if action["kind"] == "move"]
        if moves:
            request = client.post(f"/games/{game['id']}/moves", json={"card": moves[0]["card"]}, headers=token)
        else:
            request = client.post(f"/games/{game['id']}/draw", headers=token)
        game = request.get_json()["game"]
    assert game["state"]["stock_count"] == 0

    body = client.post(f"/games/{game['id']}/draw", headers=token).get_json()

    assert [e["kind"] for e in body["events"]] == ["waste_redealt"]
    assert body["game"]["state"]["pass_number"] == 2
    assert body["game"]["state"]["stock_count"] == len(game["state"]["waste"])
    assert body["game"]["state"]["waste"] == []


# --- versions and idempotency -------------------------------------------------------------------


def test_a_stale_expected_version_is_412_and_changes_nothing(client):
    game, token = create(client)
    client.post(f"/games/{game['id']}/draw", headers=token)

    response = client.post(f"/games/{game['id']}/draw", json={"expected_version": 1}, headers=token)

    assert_problem(response, 412, "version-conflict")
    assert client.get(f"/games/{game['id']}").get_json()["version"] == 2


def test_if_match_with_a_stale_etag_is_412_and_with_the_current_one_succeeds(client):
    game, token = create(client)

    assert client.post(f"/games/{game['id']}/draw", headers={**token, "If-Match": '"1"'}).status_code == 200
    assert_problem(
        client.post(f"/games/{game['id']}/draw", headers={**token, "If-Match": '"1"'}), 412, "version-conflict"
    )


def test_if_match_and_expected_version_must_agree(client):
    game, token = create(client)

    response = client.post(
        f"/games/{game['id']}/draw", json={"expected_version": 1}, headers={**token, "If-Match": '"2"'}
    )

    assert_problem(response, 422, "invalid-input")


def test_a_retry_with_the_same_idempotency_key_returns_the_first_response_and_appends_nothing(client):
    game, token = create(client)
    headers = {**token, "Idempotency-Key": "draw-1"}

    first = client.post(f"/games/{game['id']}/draw", headers=headers)
    retry = client.post(f"/games/{game['id']}/draw", headers=headers)

    assert retry.status_code == first.status_code == 200
    assert retry.get_json() == first.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert client.get(f"/games/{game['id']}").get_json()["version"] == 2


def test_the_same_idempotency_key_with_another_body_is_422(client):
    game, token = create(client, deal_number=0)
    headers = {**token, "Idempotency-Key": "k"}
    client.post(f"/games/{game['id']}/draw", headers=headers)

    response = client.post(f"/games/{game['id']}/moves", json={"card": "TH"}, headers=headers)

    assert_problem(response, 422, "idempotency-key-reused")


def test_a_retried_create_returns_the_same_game_and_token_and_creates_one_game(client, db):
    headers = {"Idempotency-Key": "create-7f3c"}

    first = client.post("/games", json={"variant": "peek"}, headers=headers)
    retry = client.post("/games", json={"variant": "peek"}, headers=headers)

    assert first.status_code == retry.status_code == 201
    assert retry.get_json() == first.get_json()
    assert retry.headers["Location"] == first.headers["Location"]
    count = db.execute("SELECT count(*) FROM games WHERE id = %s", (first.get_json()["id"],)).fetchone()[0]
    assert count == 1
    assert (
        client.post(
            f"/games/{first.get_json()['id']}/draw",
            headers={"Authorization": f"Bearer {retry.get_json()['player_token']}"},
        ).status_code
        == 200
    )


def test_player_tokens_are_stored_only_as_hashes(client, db):
    game, _ = create(client, headers={"Idempotency-Key": "token-check"})
    raw = game["player_token"]

    dump = json.dumps(
        [
            db.execute("SELECT row_to_json(t)::text FROM games t").fetchall(),
            db.execute("SELECT row_to_json(t)::text FROM game_secrets t").fetchall(),
            db.execute("SELECT row_to_json(t)::text FROM game_events t").fetchall(),
            db.execute("SELECT row_to_json(t)::text FROM idempotency_keys t").fetchall(),
        ]
    )

    assert raw not in dump


# --- the move log -------------------------------------------------------------------------------


def test_the_event_log_pages_with_after_limit_and_link(client):
    game, token = create(client)
    for _ in range(4):
        client.post(f"/games/{game['id']}/draw", headers=token)

    first = client.get(f"/games/{game['id']}/events?limit=2")
    link = re.fullmatch(r'<(.+)>; rel="next"', first.headers["Link"]).group(1)
    rest = client.get(link)

    assert [e["seq"] for e in first.get_json()["events"]] == [1, 2]
    assert [e["seq"] for e in rest.get_json()["events"]] == [3, 4]
    assert first.get_json()["events"][0]["kind"] == "game_created"
    all_events = client.get(f"/games/{game['id']}/events").get_json()["events"]
    assert [e["seq"] for e in all_events] == [1, 2, 3, 4, 5]
    assert "Link" not in client.get(f"/games/{game['id']}/events").headers


def test_the_events_of_an_unknown_game_are_404(client):
    assert_problem(client.get("/games/00000000-0000-4000-8000-000000000000/events"), 404, "game-not-found")


def test_event_query_parameters_are_validated(client):
    game, _ = create(client)

    assert_problem(client.get(f"/games/{game['id']}/events?after=-1"), 422, "validation-failed")
    assert_problem(client.get(f"/games/{game['id']}/events?limit=1001"), 422, "validation-failed")


def test_an_unreachable_database_gives_a_quick_503_problem_not_a_hang():
    settings = Settings(database_url="postgresql://postgres@127.0.0.1:1/none", pool_min_size=0, pool_timeout=0.5)
    app = create_app(settings)
    try:
        response = app.test_client().get("/games")
        ready = app.test_client().get("/readyz")
    finally:
        # As gunicorn's worker_exit does: left running, the sequencer would log its failures for the rest of
        # the session, from a thread that parses (to point at the error) while other tests parse too.
        for name in ("osmosis.sequencer", "osmosis.upkeep", "osmosis.referee", "osmosis.hub"):
            app.extensions[name].stop()
        app.extensions["osmosis.pool"].close()

    assert_problem(response, 503, "service-unavailable")
    assert response.headers["Retry-After"] == "1"
    assert_problem(ready, 503, "not-ready")


def test_the_games_being_played_now_leave_out_a_table_only_dealt_and_keep_the_filter_on_every_page(client):
    dealt = [create(client, deal_number=n)[0]["id"] for n in range(2)]
    moved = []
    for n in range(3):
        game, token = create(client, deal_number=n)
        assert client.post(f"/games/{game['id']}/draw", headers=token).status_code == 200
        moved.append(game["id"])

    first = client.get("/games?status=playing&acted_within=600&limit=2")
    listed, page = first.get_json()["games"], first
    assert "acted_within=600" in first.get_json()["next"]
    while not set(moved) <= {game["id"] for game in listed} and "Link" in page.headers:
        page = client.get(re.fullmatch(r'<(.+)>; rel="next"', page.headers["Link"]).group(1))
        listed += page.get_json()["games"]

    ids = [game["id"] for game in listed]
    assert [game_id for game_id in ids if game_id in moved] == list(reversed(moved))
    assert not set(dealt) & set(ids) and all(game["version"] > 1 for game in listed)


@pytest.mark.parametrize("value", ["0", "86401", "1.5", "soon"])
def test_acted_within_out_of_range_or_not_a_whole_number_is_refused(client, value):
    assert_problem(client.get(f"/games?acted_within={value}"), 422, "validation-failed")
