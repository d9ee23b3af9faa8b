"""What the contract promises SDK users: descriptions, examples that are real responses, the codes of every
problem, the game list's filters and cursors in the body. (tests/conftest.py checks after the run that every
status the tests saw an operation answer is declared for it.)"""

import json
import re
from pathlib import Path

import pytest
from openapi_schema_validator import OAS30Validator

from server.api import examples
from server.api.errors import every_code
from server.rules import RULES_THAT_REFUSE
from tests.api.helpers import committed_document, create, operations, resolve

PROJECT = Path(__file__).parents[2]
VOLATILE = {"id", "game_id", "created_at", "updated_at", "head_hash", "hash", "player_token", "event_hash"}


@pytest.fixture(scope="module")
def document():
    return committed_document()


STREAM_DATA = {"game": "Game", "standings": "Standings", "progress": "Standing", "closed": "Competition"}
"""The schema of a stream message's data, by its event (an event of a game's log where none is named)."""


def validate(document, schema, value):
    OAS30Validator({**schema, "components": document["components"]}).validate(value)


def test_every_operation_has_a_description_that_lists_the_problem_codes_of_each_error_status(document):
    for path, method, operation in operations(document):
        description = operation.get("description", "")
        assert len(description) > 80, f"{method} {path}"
        for status in operation["responses"]:
            if status.startswith("4") or status.startswith("5"):
                assert re.search(rf"^- {status}: `[a-z-]+`", description, re.M), f"{method} {path} {status}"


def test_every_response_has_an_example_and_every_example_validates_against_its_schema(document):
    checked = 0
    for path, method, operation in operations(document):
        for status, response in operation["responses"].items():
            response = resolve(document, response)
            for media_type, media in response.get("content", {}).items():
                values = (
                    [media["example"]]
                    if "example" in media
                    else [example["value"] for example in media.get("examples", {}).values()]
                )
                assert values, f"{method} {path} {status} {media_type} has no example"
                for value in values:
                    validate(document, resolve(document, media["schema"]), value)
                    checked += 1
                    if media_type == "text/event-stream":  # a message: its data is JSON of what its event names
                        schema = STREAM_DATA.get(value["event"], "Event")
                        validate(document, document["components"]["schemas"][schema], json.loads(value["data"]))
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body:
            for value in [body["example"]] if "example" in body else [e["value"] for e in body["examples"].values()]:
                validate(document, resolve(document, body["schema"]), value)
                checked += 1
    assert checked > 60


def masked(value):
    if isinstance(value, dict):
        return {key: "…" if key in VOLATILE else masked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [masked(item) for item in value]
    return value


def test_the_examples_are_what_the_server_answers_for_the_same_game(client):
    game, token = create(client, variant=examples.VARIANT, deal_number=examples.DEAL_NUMBER)
    assert masked(game) == masked(examples.created_game())

    def act(action):
        response = client.post(f"/games/{game['id']}/actions", json={"action": action}, headers=token)
        assert response.status_code == 200
        return response.get_json()

    dealt = act({"kind": "deal"})
    assert masked(dealt) == masked(examples.dealt())
    while examples.moved()["game"]["version"] - 1 > dealt["game"]["version"]:
        dealt = act({"kind": "deal"})
    assert masked(act(examples.move_request())) == masked(examples.moved())
    hinted = client.post(f"/games/{game['id']}/hint", headers=token)
    assert hinted.status_code == 200
    assert masked(hinted.get_json()) == masked(examples.hinted())
    assert masked(act({"kind": "resign"})) == masked(examples.resigned())
    replay = client.get(f"/games/{game['id']}/replay").get_json()
    assert masked(replay) == masked(examples.replay())
    assert client.post("/replays/verification", json=replay).get_json() == examples.verdict()
    state = client.get(f"/games/{game['id']}/states/{examples.state_at()['seq']}").get_json()
    assert masked(state) == masked(examples.state_at())


def test_the_problem_codes_and_rules_are_enums_with_every_value_the_server_uses(document):
    problem = document["components"]["schemas"]["Problem"]["properties"]

    assert problem["code"]["enum"] == every_code()
    assert set(problem["rule"]["enum"]) == set(RULES_THAT_REFUSE)
    # The rules refuse actions; the game refuses an undo (server/game).
    engine = "".join(
        path.read_text() for folder in ("rules", "game") for path in (PROJECT / "server" / folder).glob("*.py")
    )
    raised = set(re.findall(r'IllegalAction\(\s*"([a-z-]+)"', engine)) | {"game-over"}
    table = (PROJECT / "docs" / "rules.md").read_text().split("| rule | when |")[1].split("\n\n")[0]
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", table, re.M))
    assert raised == set(RULES_THAT_REFUSE) == documented


def test_every_example_problem_code_is_one_its_status_can_give(document):
    for name, response in document["components"]["responses"].items():
        for code, example in response["content"]["application/problem+json"].get("examples", {}).items():
            assert example["value"]["code"] == code and code in every_code(), name


def test_the_run_wide_check_reports_a_status_its_operation_does_not_declare():
    from tests.answers import undeclared_statuses

    answered = {
        ("/games/{game_id}", "get", 418),
        ("/games/{game_id}", "get", 304),
        ("/games/{game_id}/actions", "post", 412),
        ("/not/in/the/document", "get", 418),
    }

    assert undeclared_statuses(answered) == [("/games/{game_id}", "get", 418)]


def test_the_run_wide_check_reports_a_body_its_schema_refuses_and_a_query_parameter_not_declared():
    from tests.answers import Answers

    answers = Answers()
    event = {"seq": 1, "kind": "cards_dealt", "data": {"cards": ["7S"]}, "hash": "ab"}
    answers.record(
        "/games/<uuid:game_id>/events",
        "GET",
        200,
        "application/json",
        json.dumps({"events": [event], "next": None, "next_after": None}).encode(),
        ["after"],
    )
    assert answers.breaches == []

    answers.record(
        "/games/<uuid:game_id>/events",
        "GET",
        200,
        "application/json",
        json.dumps(
            {"events": [{**event, "data": {"cards": ["7S"], "extra": 1}}], "next": None, "next_after": None}
        ).encode(),
        [],
    )
    answers.record("/boards/<any('osmosis', 'peek'):variant>", "GET", 200, "application/json", None, ["nope"])
    answers.record("/boards/daily/<string(maxlength=64):day>", "GET", 418, "application/json", None, [])

    assert len(answers.breaches) == 2
    assert "/games/{game_id}/events" in answers.breaches[0] and "extra" in answers.breaches[0]
    assert "/boards/{variant}" in answers.breaches[1] and "['nope']" in answers.breaches[1]
    assert answers.undeclared_statuses() == [("/boards/daily/{day}", "get", 418)]


def test_a_state_at_seq_0_is_not_promised(document):
    parameters = document["paths"]["/games/{game_id}/states/{seq}"]["get"]["parameters"]
    seq = next(parameter for parameter in parameters if parameter["name"] == "seq")

    assert seq["schema"]["minimum"] == 1


def test_the_info_has_the_package_version_a_license_url_and_the_guides(document):
    from importlib.metadata import version

    assert document["info"]["version"] == version("osmosis-server")
    assert document["info"]["license"]["url"].startswith("https://")
    assert document["externalDocs"]["url"] == "/docs/api.md"


def test_the_guides_the_document_points_to_are_served(client):
    response = client.get("/docs/api.md")

    assert response.status_code == 200 and response.mimetype == "text/markdown"
    assert response.get_data(as_text=True) == (PROJECT / "docs" / "api.md").read_text()
    assert client.get("/docs/../pyproject.toml").status_code == 404
    assert client.get("/docs/nothing.md").status_code == 404


# --- the game list: filters, and the next page in the body -------------------------------------------------


def test_the_game_list_filters_by_status_and_variant_on_every_page(client):
    games = [create(client, variant="peek", deal_number=n) for n in range(3)]
    for game, token in games[:2]:
        client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "resign"}}, headers=token)
    seen, url = [], "/games?limit=1&status=resigned&variant=peek"
    while url and len(seen) < 3:
        page = client.get(url).get_json()
        seen += page["games"]
        url = page["next"]
        assert page["next_cursor"] is None or page["next"].endswith(page["next_cursor"])

    assert [game["id"] for game in seen[:2]] == [games[1][0]["id"], games[0][0]["id"]]
    assert all(game["status"] == "resigned" and game["variant"] == "peek" for game in seen)


def test_the_next_page_in_the_body_is_the_one_the_link_header_names(client):
    for n in range(3):
        create(client, deal_number=n)

    response = client.get("/games?limit=2")
    page = response.get_json()
    following = client.get(f"/games?limit=2&cursor={page['next_cursor']}").get_json()

    assert response.headers["Link"] == f'<{page["next"]}>; rel="next"'
    assert client.get(page["next"]).get_json() == following
    assert {game["id"] for game in following["games"]}.isdisjoint(game["id"] for game in page["games"])


def test_the_event_list_says_where_the_next_page_starts(client):
    game, token = create(client, deal_number=3)
    for _ in range(3):
        client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "deal"}}, headers=token)

    first = client.get(f"/games/{game['id']}/events?limit=2").get_json()
    last = client.get(first["next"]).get_json()

    assert first["next_after"] == 2 and [event["seq"] for event in last["events"]] == [3, 4]
    assert last["next"] is None and last["next_after"] is None


@pytest.mark.parametrize("query", ["status=over", "variant=nope", "status=won&status=lost"])
def test_a_bad_filter_is_422(client, query):
    assert client.get(f"/games?{query}").status_code == 422
