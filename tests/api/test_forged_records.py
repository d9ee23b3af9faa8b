"""Forged records do not verify: every event has exactly its documented fields and types, every hint is the
one the solver gives, and every export the server ever wrote still verifies.

A forger edits an export, re-chains the hashes and hopes the verifier only checks the rules. Both verifiers
(`osmosis verify` offline, `POST /replays/verification` over HTTP) must say INVALID, at the forged event,
naming its field.
"""

import copy
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server.log.events import EVENT_KINDS
from server.log.replay import verify
from server.log.shapes import EVENT_DATA
from server.rules import Rules
from server.solver.winnable import check_winnable
from tests.api.helpers import crafted_export, rehash

OSMOSIS = Path(sys.executable).with_name("osmosis")
STORED = Path(__file__).parents[1] / "data" / "replays"
STORED_EXPORTS = sorted(STORED.glob("*.json"))


def stored(name):
    return json.loads((STORED / f"{name}.json").read_text())


def first_event(document, kind):
    return next(event for event in document["events"] if event["kind"] == kind)


def forged(document, seq, edit):
    """The document with event `seq`'s data edited and every hash after it recomputed, as a forger would."""
    document = copy.deepcopy(document)
    edit(document["events"][seq - 1]["data"])
    return rehash(document)


def verdict_of_cli(document, tmp_path, *options):
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(document))
    result = subprocess.run([OSMOSIS, "verify", *options, str(path)], capture_output=True, text=True)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout


# --- every export the server ever wrote ----------------------------------------------------------------


def test_the_stored_exports_cover_every_preset_every_kind_of_deal_and_hints():
    documents = [json.loads(path.read_text()) for path in STORED_EXPORTS]
    assert {document["variant"] for document in documents} >= {
        "osmosis",
        "osmosis-draw-one",
        "osmosis-three-passes",
        "osmosis-strict-waste",
        "osmosis-ablage",
        "peek",
        "peek-till-dawn",
        "bridesmaids",
        None,
    }
    assert {document["deal"]["kind"] for document in documents} == {"number", "random", "sealed"}
    assert {document["status"] for document in documents} == {"won", "lost", "resigned", "playing"}
    hints = [event["data"] for document in documents for event in document["events"] if event["kind"] == "hint_given"]
    assert {hint["basis"] for hint in hints} == {"exact", "estimate"}
    assert any("winnable" in document["deal"] for document in documents)


@pytest.mark.parametrize("path", STORED_EXPORTS, ids=[path.stem for path in STORED_EXPORTS])
def test_every_stored_export_still_verifies_with_its_hints_recomputed(path):
    document = json.loads(path.read_text())

    verdict = verify(document)

    assert verdict.valid, verdict.summary
    assert verdict.complete == (document["status"] != "playing"), verdict.summary
    assert not verdict.unchecked


@pytest.mark.parametrize(
    "name",
    ["osmosis-won-winnable-number", "osmosis-ablage-won-winnable-number", "osmosis-strict-waste-won-winnable-number"],
)
def test_the_servers_own_hinted_exports_verify_completely_over_http(client, name):
    answer = client.post("/replays/verification", json=stored(name))

    assert answer.status_code == 200
    assert answer.get_json()["valid"] and answer.get_json()["complete"], answer.get_json()["summary"]


# --- forged hints: the eighteen ----------------------------------------------------------------

NESTED = json.loads("[" * 60 + "]" * 60)
HINT_FORGERIES = {
    "emptied": lambda data: (data.clear(), "data.action"),
    "a count as 1.5": lambda data: (data.update(samples=1.5), "data.samples"),
    "a count as 100000.0": lambda data: (data.update(nodes=100000.0), "data.nodes"),
    "a number of 400 digits": lambda data: (data.update(nodes=10**400), "data.nodes"),
    "a list nested 60 deep": lambda data: (data.update(estimates=NESTED), "data.estimates"),
    "4 kB of junk under a new key": lambda data: (data.update(junk="x" * 4096), "'junk'"),
}
HINTED_GAMES = ["osmosis-won-winnable-number", "peek-resigned-sealed", "osmosis-ablage-resigned-sealed"]


@pytest.mark.parametrize("game", HINTED_GAMES)
@pytest.mark.parametrize("forgery", list(HINT_FORGERIES))
def test_a_forged_hint_record_is_invalid_at_its_event_naming_the_field(client, tmp_path, game, forgery):
    document = stored(game)
    seq = first_event(document, "hint_given")["seq"]
    named = []
    document = forged(document, seq, lambda data: named.append(HINT_FORGERIES[forgery](data)[1]))

    verdict = verify(document)
    uploaded = client.post("/replays/verification", json=document)
    exit_code, printed = verdict_of_cli(document, tmp_path)

    assert not verdict.valid and verdict.first_bad_seq == seq
    assert verdict.reason.startswith("hint_given:") and named[0] in verdict.reason, verdict.reason
    if uploaded.status_code == 200:  # a number of 400 digits or 60 levels may be refused as JSON first
        assert uploaded.get_json()["valid"] is False and uploaded.get_json()["first_bad_seq"] == seq
    else:
        assert uploaded.status_code in (400, 422)
    assert exit_code in (1, 2) and ("INVALID" in printed or exit_code == 2)
    if exit_code == 1:
        assert printed.startswith(f"INVALID at event {seq}: hint_given:")


@pytest.mark.parametrize(
    "edit",
    [
        lambda data: data.update(
            action=next(estimate["action"] for estimate in data["estimates"] if estimate["action"] != data["action"])
        ),
        lambda data: data["estimates"][0].update(wins=data["estimates"][0]["wins"] + 1),
        lambda data: data.update(nodes=data["nodes"] - 1),
        lambda data: data.update(samples=data["samples"] - 1),
    ],
    ids=["another-legal-action", "a-win-more", "fewer-positions", "fewer-samples"],
)
def test_a_hint_of_the_right_shape_but_not_the_solvers_is_invalid(client, tmp_path, edit):
    document = stored("osmosis-resigned-sealed")
    seq = first_event(document, "hint_given")["seq"]
    document = forged(document, seq, edit)

    verdict = verify(document)
    exit_code, printed = verdict_of_cli(document, tmp_path)

    assert not verdict.valid and verdict.first_bad_seq == seq
    assert "not the hint the solver gives here" in verdict.reason
    assert client.post("/replays/verification", json=document).get_json()["first_bad_seq"] == seq
    assert exit_code == 1 and f"INVALID at event {seq}" in printed


def test_an_exact_hint_forged_to_say_the_position_is_lost_is_invalid():
    document = stored("peek-won-winnable-number")
    hint = next(
        event for event in document["events"] if event["kind"] == "hint_given" and event["data"]["basis"] == "exact"
    )
    assert hint["data"]["action"] == {"kind": "deal"}
    document = forged(document, hint["seq"], lambda data: data.update(action=None, verdict="unwinnable"))

    verdict = verify(document)

    assert not verdict.valid and verdict.first_bad_seq == hint["seq"]


def test_a_forged_hint_is_caught_in_a_game_still_in_progress_by_its_shape():
    document = stored("osmosis-playing-number")
    seq = first_event(document, "hint_given")["seq"]
    document = forged(document, seq, lambda data: data.update(unseen=True))

    verdict = verify(document)

    assert not verdict.valid and verdict.first_bad_seq == seq and "data.unseen" in verdict.reason


# --- every event kind has exactly its fields -----------------------------------------------------------


def test_every_event_kind_has_a_documented_shape():
    assert set(EVENT_DATA) == set(EVENT_KINDS)


KIND_SAMPLES = {
    "game_created": "osmosis-won-winnable-number",
    "card_played": "osmosis-won-winnable-number",
    "card_moved_to_cell": "osmosis-ablage-won-winnable-number",
    "cards_dealt": "osmosis-won-winnable-number",
    "waste_redealt": "osmosis-lost-random",
    "game_won": "osmosis-won-winnable-number",
    "game_lost": "osmosis-lost-random",
    "game_resigned": "peek-resigned-sealed",
    "seeds_revealed": "peek-resigned-sealed",
    "hint_given": "peek-resigned-sealed",
}
FIELD_FORGERIES = {
    "an unknown field": lambda data: data.update(note="trust me"),
    "every field removed": lambda data: data.clear(),
    "a field that is a list nested 60 deep": lambda data: data.update({sorted(data)[0]: NESTED}),
    "a field that is 1.5": lambda data: data.update({sorted(data)[-1]: 1.5}),
    "a field that is true": lambda data: data.update({sorted(data)[-1]: True}),
}


@pytest.mark.parametrize("kind", list(KIND_SAMPLES))
@pytest.mark.parametrize("forgery", list(FIELD_FORGERIES))
def test_an_event_of_any_kind_with_other_fields_is_invalid_at_that_event(kind, forgery):
    document = stored(KIND_SAMPLES[kind])
    seq = first_event(document, kind)["seq"]
    document = forged(document, seq, FIELD_FORGERIES[forgery])

    verdict = verify(document)

    assert not verdict.valid and verdict.first_bad_seq == seq, verdict.summary
    assert verdict.reason.startswith(f"{kind}: data"), verdict.reason


@pytest.mark.parametrize(
    ("kind", "edit", "field"),
    [
        ("game_lost", lambda data: data.update(score=float(data["score"])), "data.score"),
        ("game_won", lambda data: data.update(score=52.0), "data.score"),
        ("waste_redealt", lambda data: data.update(pass_number=2.0), "data.pass_number"),
        ("game_created", lambda data: data["rules"].update(draw=3.0), "data.rules.draw"),
        ("game_created", lambda data: data["deal"].update(deal_number=11.0), "data.deal.deal_number"),
        ("game_created", lambda data: data["opening"].update(stock_count=35.0), "data.opening.stock_count"),
        ("game_created", lambda data: data["opening"]["reserves"][0].update(secret="AS"), "data.opening.reserves[0]"),
        ("cards_dealt", lambda data: data["cards"].append("AS"), "data.cards"),
        ("card_played", lambda data: data.update(uncovered="10H"), "data.uncovered"),
        ("seeds_revealed", lambda data: data.update(client_seed="x" * 257), "data.client_seed"),
    ],
    ids=[
        "lost-score-float",
        "won-score-float",
        "pass-float",
        "rules-float",
        "deal-number-float",
        "opening-float",
        "opening-extra-key",
        "four-cards-dealt",
        "card-not-canonical",
        "long-client-seed",
    ],
)
def test_numbers_that_python_calls_equal_but_json_does_not_are_invalid(kind, edit, field):
    name = "osmosis-lost-random" if kind in ("game_lost", "waste_redealt") else "osmosis-won-winnable-number"
    document = stored(name)
    seq = first_event(document, kind)["seq"]
    document = forged(document, seq, edit)

    verdict = verify(document)

    assert not verdict.valid and verdict.first_bad_seq == seq and field in verdict.reason, verdict.summary


@pytest.mark.parametrize(
    "edit",
    [
        lambda deal: deal.update(deal_number=11.0),
        lambda deal: deal["winnable"].update(candidate=2.0),
        lambda deal: deal.update(winnable={**deal["winnable"], "budget": True}),
    ],
    ids=["deal-number", "candidate", "budget"],
)
def test_the_documents_own_deal_is_compared_as_json_not_as_python_values(edit):
    document = stored("osmosis-won-winnable-number")
    edit(document["deal"])

    verdict = verify(document)

    assert not verdict.valid and "deal" in verdict.reason


def test_a_reason_never_repeats_more_than_a_short_excerpt_of_what_was_sent():
    document = stored("peek-resigned-sealed")
    seq = first_event(document, "hint_given")["seq"]
    document = forged(document, seq, lambda data: data.update(action="x" * 100_000))

    verdict = verify(document)

    assert not verdict.valid and len(verdict.reason) < 300


# --- what a check may cost ------------------------------------------------------------------------------


@pytest.mark.drill  # timed: within a second
def test_a_2kb_upload_claiming_a_late_winnable_candidate_costs_nothing_over_http_and_says_so(client):
    costly = crafted_export(Rules(waste_access="group", max_passes=2, start_rule="rank_above"), winnable_candidate=99)
    assert len(json.dumps(costly)) < 2500

    started = time.monotonic()
    answer = client.post("/replays/verification", json=costly).get_json()
    elapsed = time.monotonic() - started

    assert answer["valid"] and not answer["complete"] and elapsed < 1, (answer, elapsed)
    assert answer["unchecked"] == [
        "that candidate 99 is the first winnable deal of these seeds (re-deriving it searches up to 1,000,000 "
        "positions, beyond this check's budget of 300,000 solver positions; `osmosis verify` re-derives it)"
    ]
    assert answer["summary"].startswith("VALID as far as checked")


def test_offline_the_same_upload_is_checked_to_the_end(tmp_path):
    costly = crafted_export(Rules(waste_access="group", max_passes=2, start_rule="rank_above"), winnable_candidate=99)

    verdict = verify(costly)
    exit_code, printed = verdict_of_cli(costly, tmp_path)

    assert not verdict.valid and "candidate 99 is not proven winnable" in verdict.reason
    assert exit_code == 1 and printed.startswith("INVALID at event 1")


def test_hints_beyond_the_budget_are_listed_unchecked_and_the_rest_still_checked(tmp_path):
    document = stored("osmosis-won-winnable-number")
    nodes = [event["data"]["nodes"] for event in document["events"] if event["kind"] == "hint_given"]
    first_unpaid = next(event["seq"] for event in document["events"] if event["kind"] == "hint_given")
    seeds = document["events"][-1]["data"]
    _, searched = check_winnable(
        Rules.from_mapping(document["rules"]),
        bytes.fromhex(seeds["server_seed"]),
        seeds["client_seed"],
        document["deal"]["winnable"],
    )
    budget = searched + nodes[0] - 1  # the winnable deal is paid for, the first hint is not

    verdict = verify(document, budget)
    exit_code, printed = verdict_of_cli(document, tmp_path, "--budget", str(budget))

    assert verdict.valid and not verdict.complete
    assert verdict.unchecked == (
        f"the 3 hint(s) from event {first_unpaid} on (recomputing them searches beyond "
        f"this check's budget of {budget:,} solver positions; `osmosis verify` recomputes "
        "every hint)",
    )
    assert exit_code == 3 and printed.startswith("VALID as far as checked")
    assert verify(forged(document, first_unpaid + 1, lambda data: data.update(x=1)), budget).first_bad_seq is not None


def test_a_budget_of_nothing_still_checks_the_chain_the_deal_and_every_move():
    document = stored("osmosis-won-winnable-number")

    verdict = verify(document, 0)
    tampered = verify(forged(document, 5, lambda data: data.update(card="AS")), 0)

    assert verdict.valid and len(verdict.unchecked) == 2
    assert not tampered.valid and tampered.first_bad_seq == 5


def test_a_hint_of_another_solver_is_left_unchecked_not_called_forged():
    document = stored("peek-resigned-sealed")
    seq = first_event(document, "hint_given")["seq"]
    document = forged(document, seq, lambda data: data.update(solver="osmosis-solver/9"))

    verdict = verify(document)

    assert verdict.valid and not verdict.complete
    assert "osmosis-solver/9" in verdict.unchecked[0]
