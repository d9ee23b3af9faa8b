"""The solver through the API: a finished game's analysis, and winnable deals that stay provably fair."""

import json
import subprocess
import sys
from pathlib import Path
from uuid import UUID

import pytest

from server.log.events import Event, fold
from server.log.replay import verify
from server.rules import action_from_dict, apply, deal_number_seed, preset
from server.service.games.analyses import Analyses
from server.service.ports import at_once
from server.solver import SOLVER_VERSION, Verdict, solve
from server.solver.analysis import ANALYSIS_BUDGET
from server.solver.players import play_first_legal as first_legal_policy
from server.solver.winnable import WINNABLE_BUDGET, candidate_opening, first_winnable
from tests.api.helpers import create, play_first_legal, rehash

PROBLEM = "application/problem+json"
OSMOSIS = Path(sys.executable).with_name("osmosis")


def replays_to_a_win(state, witness):
    for data in witness:
        state = apply(state, action_from_dict(data))
    return state.status == "won"


def analysis_of(client, game):
    response = client.get(f"/games/{game['id']}/analysis")
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def opening_of(variant, number):
    return candidate_opening(preset(variant), deal_number_seed(number), "", 0)


def test_a_game_in_play_has_no_analysis_and_a_missing_one_is_not_found(client):
    game, _token = create(client, deal_number=3)
    response = client.get(f"/games/{game['id']}/analysis")
    assert (response.status_code, response.mimetype, response.get_json()["code"]) == (409, PROBLEM, "game-not-over")
    assert "still being played" in response.get_json()["detail"]
    missing = client.get("/games/00000000-0000-4000-8000-000000000000/analysis")
    assert (missing.status_code, missing.get_json()["code"]) == (404, "game-not-found")
    assert client.get("/games/not-a-uuid/analysis").status_code == 404


def test_a_resigned_winnable_game_says_where_it_was_given_up(client):
    number = next(n for n in range(50) if solve(opening_of("osmosis", n), 20_000).verdict is Verdict.WINNABLE)
    game, token = create(client, deal_number=number)
    game = play_first_legal(client, game, token, resign_after=3)
    analysis = analysis_of(client, game)
    assert (analysis["game_id"], analysis["solver"], analysis["budget"]) == (
        game["id"],
        SOLVER_VERSION,
        ANALYSIS_BUDGET,
    )
    assert (analysis["status"], analysis["deal"]["verdict"], analysis["exact"]) == ("resigned", "winnable", True)
    assert replays_to_a_win(opening_of("osmosis", number), analysis["deal"]["witness"])
    events = client.get(f"/games/{game['id']}/events?limit=1000").get_json()["events"]
    assert analysis["lost_by"]["action"] == {"kind": "resign"}
    assert events[analysis["lost_by"]["seq"] - 1]["kind"] == "game_resigned"
    last = analysis["last_winnable"]
    assert last["seq"] < analysis["lost_by"]["seq"] and last["verdict"] == "winnable"
    state_then = client.get(f"/games/{game['id']}/states/{last['seq']}").get_json()
    assert state_then["seq"] == last["seq"]
    assert f"event {last['seq']}" in analysis["summary"] and "resignation" in analysis["summary"]


def test_a_lost_game_names_the_action_that_lost_it_and_the_answer_is_kept(client, db):
    number = next(
        n
        for n in range(300)
        if first_legal_policy(opening_of("osmosis-draw-one", n)).status == "lost"
        and solve(opening_of("osmosis-draw-one", n), 20_000).verdict is Verdict.WINNABLE
    )
    game, token = create(client, variant="osmosis-draw-one", deal_number=number)
    game = play_first_legal(client, game, token)
    assert game["status"] == "lost"
    analysis = analysis_of(client, game)
    assert analysis["exact"] and analysis["deal"]["verdict"] == "winnable"
    lost_by = analysis["lost_by"]
    last = analysis["last_winnable"]
    events = client.get(f"/games/{game['id']}/events?limit=1000").get_json()["events"]
    log = [Event(event["seq"], event["kind"], event["data"], event["hash"]) for event in events]
    state = fold(opening_of("osmosis-draw-one", number), log, upto=last["seq"])
    assert replays_to_a_win(state, last["witness"])
    losing = action_from_dict(lost_by["action"])
    assert solve(apply(state, losing), 10**6).verdict is Verdict.UNWINNABLE
    stored = db.execute("SELECT count(*) FROM game_analyses WHERE game_id = %s", (game["id"],)).fetchone()[0]
    assert stored == 1
    assert analysis_of(client, game) == analysis


def test_a_won_game_is_its_own_witness_and_an_unwinnable_deal_says_so(client):
    won_number = next(n for n in range(300) if first_legal_policy(opening_of("osmosis", n)).status == "won")
    game, token = create(client, deal_number=won_number)
    game = play_first_legal(client, game, token)
    analysis = analysis_of(client, game)
    assert (analysis["status"], analysis["deal"]["verdict"], analysis["lost_by"]) == ("won", "winnable", None)
    assert replays_to_a_win(opening_of("osmosis", won_number), analysis["deal"]["witness"])
    dead = next(n for n in range(100) if solve(opening_of("osmosis", n), 1).verdict is Verdict.UNWINNABLE)
    game, token = create(client, deal_number=dead)
    game = client.post(f"/games/{game['id']}/resign", headers=token).get_json()["game"]
    analysis = analysis_of(client, game)
    assert (analysis["deal"]["verdict"], analysis["last_winnable"], analysis["lost_by"]) == ("unwinnable", None, None)
    assert analysis["exact"] and "could not be won" in analysis["summary"]


@pytest.mark.parametrize("variant", ["osmosis", "osmosis-draw-one", "bridesmaids", "osmosis-ablage"])
def test_a_winnable_deal_number_deals_the_first_proven_candidate(client, variant):
    game, _token = create(client, variant=variant, deal_number=42, winnable=True)
    chosen = first_winnable(preset(variant), deal_number_seed(42), "")
    assert game["deal"] == {
        "kind": "number",
        "deal_number": 42,
        "winnable": {"candidate": chosen.candidate, "solver": SOLVER_VERSION, "budget": WINNABLE_BUDGET},
    }
    assert game["state"]["foundations"][0]["cards"] == [str(chosen.opening.foundations[0][0])]
    plain, _ = create(client, variant=variant, deal_number=42)
    assert (plain["deal"], "winnable" not in plain["deal"]) == ({"kind": "number", "deal_number": 42}, True)


def test_winnable_sealed_and_random_deals_verify_offline_and_a_forged_candidate_does_not(client, tmp_path):
    sealed = client.post("/deals").get_json()["id"]
    for body in ({"sealed_deal_id": sealed, "client_seed": "carol"}, {}):
        game, token = create(client, winnable=True, **body)
        assert game["deal"]["winnable"]["solver"] == SOLVER_VERSION
        read_back = client.get(f"/games/{game['id']}").get_json()
        assert "server_seed" not in read_back["deal"]
        game = client.post(f"/games/{game['id']}/resign", headers=token).get_json()["game"]
        export = client.get(f"/games/{game['id']}/replay").get_json()
        assert verify(export).valid and verify(export).complete
        path = tmp_path / "game.json"
        path.write_text(json.dumps(export))
        assert subprocess.run([OSMOSIS, "verify", str(path)], capture_output=True).returncode == 0
        assert client.post("/replays/verification", json=export).get_json()["valid"]
        for forged in (export["deal"]["winnable"]["candidate"] + 1, -1, "0"):
            document = json.loads(json.dumps(export))
            document["deal"]["winnable"]["candidate"] = forged
            document["events"][0]["data"]["deal"]["winnable"]["candidate"] = forged
            rehash(document)
            verdict = verify(document)
            assert not verdict.valid and verdict.first_bad_seq == 1, forged
            assert "winnable" in verdict.reason


def test_winnable_is_a_boolean_and_the_other_fields_still_apply(client):
    for bad in ("yes", 1, None):
        response = client.post("/games", json={"winnable": bad})
        assert (response.status_code, response.get_json()["code"]) == (422, "validation-failed"), bad
    response = client.post("/games", json={"winnable": True, "rules": {"draw": 2}})
    assert response.status_code == 422


def test_rules_with_no_provable_candidate_get_a_clear_422_and_no_game(client, monkeypatch, db):
    monkeypatch.setattr("server.solver.winnable.MAX_CANDIDATES", 0)
    before = db.execute("SELECT count(*) FROM games").fetchone()[0]
    response = client.post("/games", json={"deal_number": 5, "winnable": True})
    assert (response.status_code, response.get_json()["code"]) == (422, "no-winnable-deal")
    assert "without 'winnable'" in response.get_json()["detail"]
    assert db.execute("SELECT count(*) FROM games").fetchone()[0] == before


class CallRecordingStore:
    """The real store, recording which of its methods were called."""

    def __init__(self, store):
        self._store = store
        self.calls = []

    def __getattr__(self, name):
        self.calls.append(name)
        return getattr(self._store, name)


def test_a_kept_analysis_is_read_back_with_one_query(client, store):
    game, token = create(client, deal_number=3)
    client.post(f"/games/{game['id']}/resign", headers=token)
    recording = CallRecordingStore(store)
    first = Analyses(recording, recording, at_once).analysis(UUID(game["id"]))
    assert "save_analysis" in recording.calls
    recording.calls.clear()
    assert json.loads(Analyses(recording, recording, at_once).analysis(UUID(game["id"]))) == json.loads(first)
    assert recording.calls == ["load_analysis"]
