"""schemathesis generates requests from openapi/openapi.json: no 5xx, and every response conforms.

Half the requests on a game go to a real game with its real token, so that moves, draws and
resignations reach the rules rather than stopping at 404 or 401.

The check that every schema-valid request is accepted is left out here: it needs what the document cannot
state told to schemathesis (a cursor only this server issues, a fresh Idempotency-Key per request), which
tests/contract/test_schemathesis_cli.py does, with every check, over real HTTP.
"""

from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import positive_data_acceptance

OPENAPI = Path(__file__).parents[2] / "openapi" / "openapi.json"

# The feed of every game stays open by design, whatever game exists: tests/api/test_fuzz.py sends it
# requests without reading their streams, and tests/api/test_live.py follows it.
schema = schemathesis.openapi.from_path(OPENAPI).exclude(operation_id="streamEvents")


@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_generated_request_gets_a_documented_response(case, app, client):
    case.operation.schema.app = app  # the app of this test's database backend
    positive = case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE
    streams = case.path.endswith("/stream")  # on a real game it stays open, by design
    if positive and not streams and "game_id" in (case.path_parameters or {}) and len(str(case.body)) % 2 == 0:
        game = client.post("/games", json={"variant": "osmosis-ablage", "deal_number": 3}).get_json()
        case.path_parameters["game_id"] = game["id"]
        if "Authorization" in (case.headers or {}):  # a case without one tests the 401
            case.headers["Authorization"] = f"Bearer {game['player_token']}"
        if (case.query or {}).get("wait"):
            case.query["wait"] = 0  # a long poll on a quiet game would wait for nothing

    case.call_and_validate(app=app, excluded_checks=[positive_data_acceptance])
