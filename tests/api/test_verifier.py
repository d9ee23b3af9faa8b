"""The replay verifier vouches for the whole document: every top-level field is checked against the log, and
a crafted document, however strange, gets "INVALID at event N: why", never a traceback or a 500."""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.log.replay import verify
from server.rules import PRESETS
from tests.api.helpers import create, play_first_legal, rehash

OSMOSIS = Path(sys.executable).with_name("osmosis")


def resigned_export(client, variant, **create_body):
    """A game resigned after 10 actions (first legal move, else deal), as exported: too few to lose it,
    since a pass through the stock takes twelve deals at the least."""
    game, token = create(client, variant=variant, **create_body)
    game = play_first_legal(client, game, token, resign_after=10)
    document = client.get(f"/games/{game['id']}/replay").get_json()
    assert document["status"] == "resigned"
    return document


@pytest.fixture(scope="module")
def exports(app):
    """Finished exports of every preset and every kind of deal, made once for the module."""
    client = app.test_client()
    made = {}
    for variant in PRESETS:
        made[variant, "number"] = resigned_export(client, variant, deal_number=7)
        made[variant, "random"] = resigned_export(client, variant)
        sealed = client.post("/deals").get_json()["id"]
        made[variant, "sealed"] = resigned_export(client, variant, sealed_deal_id=sealed, client_seed="bob")
    made["lost"] = client.get(f"/games/{lost_game(client)}/replay").get_json()
    return made


def lost_game(client):
    """A game of osmosis lost by dealing only (deal 0 is lost after twelve deals)."""
    game, token = create(client, variant="osmosis", deal_number=0)
    for _ in range(12):
        game = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
    assert game["status"] == "lost"
    return game["id"]


@pytest.fixture
def export(exports):
    """A resigned game of draw-one osmosis with moves and deals in its log."""
    document = copy.deepcopy(exports["osmosis-draw-one", "number"])
    assert {"card_played", "cards_dealt"} <= {event["kind"] for event in document["events"]}
    return document


@pytest.fixture
def lost_export(exports):
    return copy.deepcopy(exports["lost"])


def invalid(document):
    verdict = verify(document)
    assert not verdict.valid, verdict.summary
    assert verdict.summary.startswith("INVALID")
    return verdict


def test_every_export_of_every_preset_and_deal_is_valid_and_complete(exports):
    for key, document in exports.items():
        verdict = verify(document)
        assert verdict.valid and verdict.complete, (key, verdict.summary)


# --- top-level fields -----------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["won", "lost", "playing", "nonsense", None])
def test_a_status_the_log_does_not_end_with_is_invalid(export, status):
    export["status"] = status

    verdict = invalid(export)

    assert "status" in verdict.reason


@pytest.mark.parametrize("status", ["won", "resigned", "playing"])
def test_a_lost_game_said_to_be_otherwise_is_invalid(lost_export, status):
    lost_export["status"] = status

    assert "status" in invalid(lost_export).reason


@pytest.mark.parametrize(
    "edit",
    [
        lambda deal: deal.update(deal_number=deal["deal_number"] + 1),
        lambda deal: deal.update(kind="random"),
        lambda deal: deal.update(server_seed="00" * 32),
        lambda deal: deal.update(client_seed="x"),
        lambda deal: deal.pop("server_seed"),
        lambda deal: deal.update(note="extra"),
    ],
    ids=["number", "kind", "server-seed", "client-seed", "seed-missing", "extra-key"],
)
def test_a_deal_other_than_the_logs_is_invalid(export, edit):
    edit(export["deal"])

    verdict = invalid(export)

    assert "deal" in verdict.reason


@pytest.mark.parametrize("variant", ["osmosis", None, "peek", "nonsense"])
def test_a_variant_other_than_the_logs_is_invalid(export, variant):
    export["variant"] = variant

    assert "variant" in invalid(export).reason


def test_a_game_id_other_than_the_logs_is_invalid(export):
    export["game_id"] = "00000000-0000-4000-8000-000000000000"

    assert "game_id" in invalid(export).reason


def test_another_deal_algorithm_is_invalid(export):
    export["deal_algorithm"] = "osmosis-deal-v2"

    assert "deal_algorithm" in invalid(export).reason


def test_an_unknown_top_level_field_is_invalid(export):
    export["comment"] = "trust me"

    assert "comment" in invalid(export).reason


def test_a_finished_export_cut_back_with_its_head_fixed_is_invalid_while_its_status_says_over(lost_export):
    del lost_export["events"][-3:]
    lost_export["head_hash"] = lost_export["events"][-1]["hash"]

    verdict = invalid(lost_export)

    assert "status" in verdict.reason


def test_a_finished_export_cut_back_to_a_prefix_and_said_so_is_valid_so_far(export):
    del export["events"][-3:]
    export["head_hash"] = export["events"][-1]["hash"]
    export["status"] = "playing"
    del export["deal"]["server_seed"], export["deal"]["client_seed"]

    verdict = verify(export)

    assert verdict.valid and not verdict.complete


def test_an_ended_game_whose_seeds_were_not_revealed_is_invalid_even_before_the_deal_is_checked(export):
    del export["events"][-1]
    export["head_hash"] = export["events"][-1]["hash"]
    del export["deal"]["server_seed"], export["deal"]["client_seed"]

    verdict = invalid(export)

    assert "seeds" in verdict.reason and verdict.first_bad_seq == export["events"][-1]["seq"]


# --- crafted documents with a valid chain ---------------------------------------------------------


def first(document, kind):
    return next(event for event in document["events"] if event["kind"] == kind)


CRAFTED = {
    "a card_played without from": lambda d: first(d, "card_played")["data"].pop("from"),
    "a card_played with an unknown card": lambda d: first(d, "card_played")["data"].update(card="ZZ"),
    "a card_played with a card that is a number": lambda d: first(d, "card_played")["data"].update(card=7),
    "a card_played from an unknown place": lambda d: first(d, "card_played")["data"].update({"from": "R9"}),
    "a card_played to a list": lambda d: first(d, "card_played")["data"].update(to=["F1"]),
    "cards_dealt with a card that is an object": lambda d: first(d, "cards_dealt")["data"].update(cards=[{}]),
    "game_created.deal as a list": lambda d: d["events"][0]["data"].update(deal=[1]),
    "game_created.deal with a deal number out of range": lambda d: d["events"][0]["data"]["deal"].update(
        deal_number=2**60
    ),
    "game_created.deal with a deal number as text": lambda d: d["events"][0]["data"]["deal"].update(deal_number="7"),
    "game_created.opening as a number": lambda d: d["events"][0]["data"].update(opening=1),
    "game_created.rules as a list": lambda d: d["events"][0]["data"].update(rules=[4]),
    "seeds_revealed with a client seed that is a number": lambda d: d["events"][-1]["data"].update(client_seed=1),
    "seeds_revealed with a server seed that is a list": lambda d: d["events"][-1]["data"].update(server_seed=[1]),
    "game_resigned with a reason that is a list": lambda d: d["events"][-2]["data"].update(reason=["x"]),
    "an event whose data is deeply nested": lambda d: first(d, "cards_dealt")["data"].update(
        cards=json.loads("[" * 50 + "]" * 50)
    ),
}


@pytest.mark.parametrize("craft", list(CRAFTED), ids=list(CRAFTED))
def test_a_crafted_document_with_a_valid_chain_is_invalid_at_its_event_with_a_reason(client, export, craft):
    CRAFTED[craft](export)
    rehash(export)

    verdict = invalid(export)
    uploaded = client.post("/replays/verification", json=export)

    assert verdict.first_bad_seq is not None and verdict.reason
    assert uploaded.status_code in (200, 422)
    if uploaded.status_code == 200:
        assert uploaded.get_json()["valid"] is False


def test_a_deeply_nested_file_is_refused_by_osmosis_verify_without_a_traceback(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"format": "osmosis-replay/1", "events": ' + "[" * 100_000 + "]" * 100_000 + "}")

    result = subprocess.run([OSMOSIS, "verify", path], capture_output=True, text=True)

    assert result.returncode in (1, 2) and "Traceback" not in result.stderr
    assert "deep" in (result.stdout + result.stderr)


def test_a_file_with_a_lone_surrogate_is_refused_by_osmosis_verify_without_a_traceback(tmp_path, export):
    export["events"][-1]["data"]["client_seed"] = "\ud800"
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(export))

    result = subprocess.run([OSMOSIS, "verify", path], capture_output=True, text=True)

    assert result.returncode in (1, 2) and "Traceback" not in result.stderr


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**64)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(["AS", "TH", "R1", "F2", "waste", "cell", "deal", "10H", "", "00" * 32]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "card",
                    "from",
                    "to",
                    "cards",
                    "kind",
                    "deal_number",
                    "server_seed",
                    "client_seed",
                    "opening",
                    "rules",
                    "deal",
                    "reason",
                    "score",
                    "uncovered",
                    "pass_number",
                    "x",
                ]
            ),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_the_verifier_gives_a_verdict_for_any_mutation_of_any_export_and_never_raises(exports, data):
    document = copy.deepcopy(exports[data.draw(st.sampled_from(sorted(exports, key=str)))])
    for _ in range(data.draw(st.integers(1, 3))):
        event = data.draw(st.sampled_from(document["events"]))
        target = data.draw(st.sampled_from(["data", "field", "kind"]))
        if target == "data":
            event["data"] = data.draw(JSON_VALUES)
        elif target == "field" and isinstance(event["data"], dict) and event["data"]:
            key = data.draw(st.sampled_from(sorted(event["data"])))
            event["data"][key] = data.draw(JSON_VALUES)
        else:
            event["kind"] = data.draw(
                st.sampled_from(
                    [
                        "card_played",
                        "cards_dealt",
                        "game_won",
                        "game_lost",
                        "game_resigned",
                        "seeds_revealed",
                        "waste_redealt",
                        "card_moved_to_cell",
                        "game_created",
                    ]
                )
            )
    if data.draw(st.booleans()):
        rehash(document)

    verdict = verify(document)

    assert isinstance(verdict.valid, bool) and verdict.summary
