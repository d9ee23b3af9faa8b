"""Time travel at every seq of finished games: the position after each event, against a fold done step by
step by the rules engine; and snapshots, which time travel starts from, guarded like the log."""

import psycopg
import pytest

from server.game.deciding import SNAPSHOT_EVERY
from server.log.events import Event, action_of
from server.rules import (
    PRESETS,
    action_to_dict,
    apply,
    layout,
    legal_actions,
    numbered_opening,
    opening,
    public_view,
    shuffled_deck,
)
from server.solver import players as policies
from tests.api.helpers import act, create, play_first_legal


def first_deal(rules, status):
    """The first deal number that clicking the first legal action (else deal, else redeal) ends as `status`."""
    for number in range(5000):
        start = numbered_opening(rules, number)
        if policies.play_first_legal(start).status == status:
            return number
    raise AssertionError(f"no deal below 5000 ends {status}")


def positions_step_by_step(rules, export):
    """seq -> (public view, legal actions) after that event, folding the export's actions one at a time.

    The events an action appends together (its own event, then game_won or game_lost, then seeds_revealed)
    all show the position after the action; so do game_resigned and the seeds_revealed after it.
    """
    seeds = export["events"][-1]["data"]
    state = opening(rules, layout(shuffled_deck(bytes.fromhex(seeds["server_seed"]), seeds["client_seed"]), rules))
    positions = {}
    for event in export["events"]:
        action = action_of(Event(event["seq"], event["kind"], event["data"], event["hash"]))
        if action is not None:
            state = apply(state, action)
        positions[event["seq"]] = (public_view(state), [action_to_dict(a) for a in legal_actions(state)])
    return positions


@pytest.mark.parametrize("variant", list(PRESETS))
@pytest.mark.parametrize("ending", ["won", "lost", "resigned"])
def test_every_seq_of_a_finished_game_has_the_position_a_step_by_step_fold_gives(client, variant, ending):
    rules = PRESETS[variant]
    number = first_deal(rules, "lost" if ending == "resigned" else ending)
    game, token = create(client, variant=variant, deal_number=number)
    game = play_first_legal(client, game, token, resign_after=7 if ending == "resigned" else None)
    assert game["status"] == ending
    export = client.get(f"/games/{game['id']}/replay").get_json()

    expected = positions_step_by_step(rules, export)

    assert sorted(expected) == list(range(1, game["version"] + 1))
    for seq, (view, legal) in expected.items():
        response = client.get(f"/games/{game['id']}/states/{seq}")
        assert response.status_code == 200, (seq, response.get_json())
        past = response.get_json()
        assert (past["seq"], past["event_hash"]) == (seq, export["events"][seq - 1]["hash"])
        assert (past["state"], past["legal_actions"]) == (view, legal), f"differs at seq {seq}"
    final = client.get(f"/games/{game['id']}/states/{game['version']}").get_json()
    assert (final["state"], final["legal_actions"]) == (game["state"], game["legal_actions"])


def test_the_events_that_end_a_game_all_show_the_final_position(client):
    game, token = create(client, variant="osmosis", deal_number=0)
    for _ in range(12):
        game = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
    assert game["status"] == "lost" and game["version"] == 15

    kinds = [event["kind"] for event in client.get(f"/games/{game['id']}/events?after=12").get_json()["events"]]
    views = [client.get(f"/games/{game['id']}/states/{seq}").get_json() for seq in (13, 14, 15)]

    assert kinds == ["cards_dealt", "game_lost", "seeds_revealed"]
    assert all(view["state"] == game["state"] and view["state"]["status"] == "lost" for view in views)
    assert all(view["legal_actions"] == [] for view in views)


def game_with_a_snapshot(client):
    """A game still on after 40 actions (the first legal move, else deal): past its first snapshot."""
    for number in range(50):
        game, token = create(client, variant="osmosis-draw-one", deal_number=number)
        for _ in range(40):
            moves = [action for action in game["legal_actions"] if action["kind"] == "move"]
            game = act(client, game, token, moves[0] if moves else {"kind": "deal"})
            if game["status"] != "playing":
                break
        else:
            assert game["version"] > SNAPSHOT_EVERY
            return game
    raise AssertionError("every deal below 50 ended within 40 actions")


def test_a_snapshot_cannot_be_changed_or_deleted(client, db):
    game = game_with_a_snapshot(client)

    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
        db.execute("UPDATE game_snapshots SET state = state || ' ' WHERE game_id = %s", (game["id"],))
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
        db.execute("DELETE FROM game_snapshots WHERE game_id = %s", (game["id"],))
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
        db.execute("TRUNCATE game_snapshots")


def test_a_changed_snapshot_in_the_database_is_detected_by_the_verification(client, attacker):
    game = game_with_a_snapshot(client)
    (seq, state) = attacker.execute(
        "SELECT seq, state FROM game_snapshots WHERE game_id = %s", (game["id"],)
    ).fetchone()
    waste = next(line for line in state.splitlines() if line.startswith("waste"))
    forged = state.replace(waste, "waste " + " ".join(reversed(waste.split()[1:])))
    assert forged != state
    attacker.execute("UPDATE game_snapshots SET state = %s WHERE game_id = %s AND seq = %s", (forged, game["id"], seq))

    verdict = client.get(f"/games/{game['id']}/verification").get_json()

    assert not verdict["valid"] and verdict["first_bad_seq"] == seq and "snapshot" in verdict["reason"]


def test_a_snapshot_at_a_seq_inside_an_action_is_detected_by_the_verification(client, attacker):
    game, token = create(client, variant="osmosis", deal_number=0)
    for _ in range(12):
        game = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
    state = attacker.execute("SELECT state FROM game_secrets WHERE game_id = %s", (game["id"],)).fetchone()[0]
    attacker.execute("INSERT INTO game_snapshots (game_id, seq, state) VALUES (%s, 14, %s)", (game["id"], state))

    verdict = client.get(f"/games/{game['id']}/verification").get_json()

    assert not verdict["valid"] and verdict["first_bad_seq"] == 14 and "snapshot" in verdict["reason"]
