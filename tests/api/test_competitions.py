"""Competitions over HTTP, on PostgreSQL with a clock the test moves: announced, entered, played on one sealed deal,
timed out, closed and amended; the standings rooted in the public log and recomputed from it."""

from __future__ import annotations

import base64
import json
import secrets
import threading
from datetime import UTC, datetime, timedelta
from uuid import UUID

import psycopg
import pytest

from server.api.streaming.streams import competition_stream
from server.log import competition_entries as ce
from server.log import events as ev
from server.log.replay import verify
from server.log.standings import standings_root
from server.monitor.competition import audit_competition
from server.runtime.app import wake_on_work
from server.store import PostgresStore, migrate
from server.store.connections import open_pool
from server.transparency.merkle import verify_consistency
from server.transparency.notes import generate_signer, open_checkpoint
from tests.api.helpers import LOG_SIGNER, Clock, answer, app_on_a_clock, reads, run_together
from tests.service.test_competition_watching import look

PROBLEM = "application/problem+json"


@pytest.fixture
def clock():
    return Clock(datetime(2031, 3, 2, 9, 30, tzinfo=UTC) + timedelta(days=secrets.randbelow(10_000)))


@pytest.fixture
def contest_app(store, clock):
    yield from app_on_a_clock(store, clock)


@pytest.fixture
def client(contest_app):
    return contest_app.test_client()


def logged(app):
    """Everything pending sequenced into the public log."""
    while app.extensions["osmosis.sequencer"].run_once():
        pass


def referee(app):
    while app.extensions["osmosis.referee"].run_once():
        logged(app)
    logged(app)


def player(client, kind="human", name=None):
    made = client.post("/players", json={"name": name or f"c{secrets.token_hex(6)}", "kind": kind}).get_json()
    return {"Authorization": f"Bearer {made['token']}"}, made["player"]["name"]


def announce(client, token, clock, **terms):
    body = {"name": "Sunday race", "format": "race", "variant": "osmosis-draw-one", "entrants": "human"}
    body |= {"starts_at": (clock.now + timedelta(minutes=1)).isoformat(), "limit_s": 600} | terms
    response = client.post("/competitions", json=body, headers=token)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def field_of(app, client, clock, entrants, **terms):
    """A competition announced (a race starting in a minute, unless `terms` say otherwise) by an organizer who
    signed up for it, entered by `entrants` players who signed up before it: its id, the organizer's token and the
    entrants' (token, name) in their order of entering."""
    organizer, _ = player(client)
    players = [player(client) for _ in range(entrants)]
    logged(app)
    cid = announce(client, organizer, clock, **terms)["id"]
    for token, _ in players:
        assert client.post(f"/competitions/{cid}/entries", headers=token).status_code == 201
    return cid, organizer, players


def problem(response, status, code):
    assert response.status_code == status, response.get_json()
    assert response.mimetype == PROBLEM and response.get_json()["code"] == code, response.get_json()
    return response


def entry_kinds(db, competition_id):
    """The kinds of the competition's entries in the public log, in the log's order."""
    rows = db.execute("SELECT kind FROM log_leaves WHERE subject = %s ORDER BY index", (competition_id,)).fetchall()
    return [row[0] for row in rows]


def test_a_race_from_announcement_to_results(contest_app, client, clock, db):
    organizer, _ = player(client)
    (alice, _), (bob, _), (carol, _) = player(client), player(client), player(client)
    logged(contest_app)
    race = announce(client, organizer, clock)
    cid = race["id"]
    assert race["status"] == "open" and race["entered"] == 0 and len(race["commitment"]) == 64
    assert race["ends_at"] == (datetime.fromisoformat(race["starts_at"]) + timedelta(minutes=10)).isoformat()

    for token in (alice, bob, carol):
        assert client.post(f"/competitions/{cid}/entries", headers=token).status_code == 201
    problem(client.post(f"/competitions/{cid}/entries", headers=alice), 409, "already-entered")
    assert client.delete(f"/competitions/{cid}/entries/me", headers=carol).status_code == 204
    problem(client.delete(f"/competitions/{cid}/entries/me", headers=carol), 403, "not-entered")
    assert client.get(f"/competitions/{cid}").get_json()["entered"] == 2

    early = problem(client.post(f"/competitions/{cid}/game", headers=alice), 409, "not-started")
    assert early.headers["Retry-After"] == "60"

    clock.now += timedelta(minutes=1, seconds=3)
    problem(client.post(f"/competitions/{cid}/entries", headers=carol), 409, "entries-closed")
    problem(client.delete(f"/competitions/{cid}/entries/me", headers=bob), 409, "already-started")
    first = client.post(f"/competitions/{cid}/game", headers=alice)
    assert first.status_code == 201
    game = first.get_json()
    assert game["competition"]["id"] == cid and game["competition"]["started_at"] == race["starts_at"]
    assert game["competition"]["limit_ms"] == 600_000 and game["commitment"] == race["commitment"]
    assert game["deal"] == {"kind": "competition", "competition_id": cid} and game["can_undo"] is False
    again = client.post(f"/competitions/{cid}/game", headers=alice)
    assert again.status_code == 200 and again.get_json()["id"] == game["id"]
    bobs = client.post(f"/competitions/{cid}/game", headers=bob).get_json()
    assert bobs["state"] == game["state"] and bobs["id"] != game["id"]

    # Nothing of an entrant's game reaches anyone else before the close: as for a game that does not exist.
    missing = client.get(f"/games/{secrets.token_hex(16)[:8]}-0000-4000-8000-000000000000")
    for path in ("", "/events", "/replay", "/verification", "/states/1"):
        for headers in ({}, bob):
            hidden = client.get(f"/games/{game['id']}{path}", headers=headers)
            assert hidden.status_code == 404, (path, hidden.get_json())
            assert hidden.get_json()["code"] == "game-not-found"
    assert missing.status_code == 404
    assert client.get(f"/games/{game['id']}", headers=alice).status_code == 200

    draw = client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "deal"}}, headers=alice)
    assert draw.status_code == 200, draw.get_json()
    assert [event["data"]["elapsed_ms"] for event in draw.get_json()["events"]] == [3000]
    problem(
        client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "undo"}}, headers=alice),
        409,
        "undo-in-competition",
    )
    problem(client.post(f"/games/{game['id']}/hint", headers=alice), 409, "hints-off")
    clock.now += timedelta(seconds=2)
    assert (
        client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "resign"}}, headers=alice).status_code
        == 200
    )

    standings = client.get(f"/competitions/{cid}/standings").get_json()["standings"]
    # A tie on cards home and time: fewer actions first.
    assert [(row["rank"], row["status"], row["elapsed_ms"], row["actions"]) for row in standings] == [
        (1, "playing", 5000, 0),
        (2, "resigned", 5000, 1),
    ]
    assert all("game_id" not in row for row in standings)
    problem(client.get(f"/competitions/{cid}/results"), 409, "competition-not-closed")

    clock.now += timedelta(minutes=10)
    problem(
        client.post(f"/games/{bobs['id']}/actions", json={"action": {"kind": "deal"}}, headers=bob),
        409,
        "clock-expired",
    )
    referee(contest_app)

    results = client.get(f"/competitions/{cid}/results").get_json()
    rows = results["results"]
    assert [(row["rank"], row["status"]) for row in rows] == [(1, "resigned"), (2, "timed_out")]
    alice_row = next(row for row in rows if row["game_id"] == game["id"])
    assert alice_row["elapsed_ms"] == 5000 and alice_row["actions"] == 1
    bob_row = next(row for row in rows if row["game_id"] == bobs["id"])
    assert bob_row["elapsed_ms"] == 600_000 and bob_row["actions"] == 0
    assert results["standings_root"] == standings_root([{k: v for k, v in row.items() if k != "links"} for row in rows])
    assert results["competition"]["status"] == "final" and results["final"] is True

    # After the close every game is anyone's, its seeds revealed, its log verifying against the commitment.
    for row in rows:
        export = client.get(row["links"]["replay"]).get_json()
        assert export["events"][-1]["kind"] == ev.SEEDS_REVEALED
        verdict = verify(export)
        assert verdict.valid, verdict
        assert export["commitment"] == race["commitment"]
    assert entry_kinds(db, cid) == [
        ce.COMPETITION_ANNOUNCED,
        *[ce.COMPETITION_ENTERED] * 3,
        ce.COMPETITION_WITHDRAWN,
        *[ce.COMPETITION_GAME_STARTED] * 2,
        ce.COMPETITION_GAME_FINISHED,
        ce.COMPETITION_GAME_FINISHED,
        ce.COMPETITION_CLOSED,
    ]


def test_twenty_concurrent_calls_make_one_game(contest_app, client, clock):
    cid, _, [(entrant, _)] = field_of(contest_app, client, clock, 1)
    clock.now += timedelta(minutes=2)

    answers = run_together(20, lambda _: contest_app.test_client().post(f"/competitions/{cid}/game", headers=entrant))

    assert sorted(answer.status_code for answer in answers) == [200] * 19 + [201]
    assert len({answer.get_json()["id"] for answer in answers}) == 1


def test_only_players_who_joined_before_the_announcement_and_of_its_kind_may_enter(contest_app, client, clock):
    organizer, _ = player(client)
    bot, _ = player(client, kind="bot")
    logged(contest_app)
    cid = announce(client, organizer, clock)["id"]
    late, _ = player(client)
    logged(contest_app)

    problem(client.post(f"/competitions/{cid}/entries", headers=late), 403, "not-eligible")
    problem(client.post(f"/competitions/{cid}/entries", headers=bot), 403, "not-eligible")
    problem(client.post(f"/competitions/{cid}/game", headers=late), 403, "not-entered")


@pytest.mark.parametrize(
    ("terms", "field"),
    [
        ({"limit_s": 4}, "limit_s"),
        ({"limit_s": 86_401}, "limit_s"),
        ({"starts_at": "2020-01-01T00:00:00Z"}, "starts_at"),
        ({"format": "window", "ends_at": None}, "ends_at"),
        ({"starts_at": "2031-03-02T09:30:00"}, "starts_at"),
        ({"format": "marathon"}, "format"),
        ({"max_entrants": 10_001}, "max_entrants"),
        ({"variant": "osmosis", "rules": {"draw": 1}}, "rules"),
    ],
)
def test_terms_that_cannot_be_held_are_422_and_nothing_is_announced(contest_app, client, clock, terms, field):
    organizer, _ = player(client)
    body = {"name": "x", "format": "race", "entrants": "human", "starts_at": "2031-03-02T09:30:00Z", "limit_s": 60}
    body |= {"starts_at": (clock.now + timedelta(minutes=1)).isoformat()}
    body |= {key: value for key, value in terms.items() if value is not None}
    body = {key: value for key, value in body.items() if not (key in terms and terms[key] is None)}
    before = client.get("/competitions?limit=100").get_json()["competitions"]

    response = client.post("/competitions", json=body, headers=organizer)

    assert response.status_code == 422, response.get_json()
    assert field in json.dumps(response.get_json())
    assert client.get("/competitions?limit=100").get_json()["competitions"] == before


def test_announcing_needs_the_organize_scope(contest_app, client, clock):
    organizer, _ = player(client)
    made = client.post("/players/me/tokens", json={"label": "play only", "scopes": ["play"]}, headers=organizer)
    play_only = {"Authorization": f"Bearer {made.get_json()['token']}"}
    body = {"name": "x", "format": "race", "entrants": "human", "limit_s": 60}
    body["starts_at"] = (clock.now + timedelta(minutes=1)).isoformat()

    problem(client.post("/competitions", json=body, headers=play_only), 403, "forbidden")
    problem(client.post("/competitions", json=body), 401, "unauthorized")


def closed_race(app, client, clock, entrants=2, **terms):
    """A race announced, entered by `entrants` players, each resigning at once, then closed: its id, the organizer's
    token and the entrants' (token, name) in their order of finishing."""
    cid, organizer, players = field_of(app, client, clock, entrants, **terms)
    clock.now += timedelta(minutes=1)
    for token, _ in players:
        game = client.post(f"/competitions/{cid}/game", headers=token).get_json()
        resigned = client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "resign"}}, headers=token)
        assert resigned.status_code == 200
        logged(app)
    clock.now += timedelta(minutes=10)
    referee(app)
    return cid, organizer, players


def test_ties_are_broken_by_the_finish_entries_order_in_the_log(contest_app, client, clock):
    cid, _, players = closed_race(contest_app, client, clock, entrants=3)

    rows = client.get(f"/competitions/{cid}/results").get_json()["results"]

    # The same cards home, the same time (the clock did not move between them), no action: the log's order decides.
    assert [row["player"]["name"] for row in rows] == [name for _, name in players]
    assert [row["rank"] for row in rows] == [1, 2, 3]


def test_an_amendment_strikes_a_row_appends_a_new_root_and_the_review_time_ends_them(contest_app, client, clock, db):
    cid, organizer, players = closed_race(contest_app, client, clock, entrants=2, review_s=600)
    first = client.get(f"/competitions/{cid}/results").get_json()
    assert first["final"] is False and first["competition"]["status"] == "closed"
    (winner_token, winner), (_, second) = players
    problem(
        client.post(
            f"/competitions/{cid}/amendments",
            json={"player": second, "action": "disqualify", "reason": "x"},
            headers=winner_token,
        ),
        403,
        "forbidden",
    )

    amended = client.post(
        f"/competitions/{cid}/amendments",
        json={"player": winner, "action": "disqualify", "reason": "a second account"},
        headers=organizer,
    )

    assert amended.status_code == 201, amended.get_json()
    rows = amended.get_json()["results"]
    assert [(row["player"]["name"], row["rank"], row["struck"]) for row in rows] == [
        (second, 1, None),
        (winner, None, "a second account"),
    ]
    new_root = amended.get_json()["standings_root"]
    assert new_root != first["standings_root"]
    assert new_root == standings_root([{k: v for k, v in row.items() if k != "links"} for row in rows])
    logged(contest_app)
    entries = db.execute(
        "SELECT kind FROM log_leaves WHERE subject = %s ORDER BY index DESC LIMIT 2", (cid,)
    ).fetchall()
    assert [row[0] for row in entries] == [ce.COMPETITION_RESULT_AMENDED, ce.COMPETITION_CLOSED]

    back = client.post(
        f"/competitions/{cid}/amendments",
        json={"player": winner, "action": "reinstate", "reason": "the accounts are two people"},
        headers=organizer,
    ).get_json()
    assert back["standings_root"] == first["standings_root"]

    clock.now += timedelta(seconds=600)
    problem(
        client.post(
            f"/competitions/{cid}/amendments",
            json={"player": winner, "action": "disqualify", "reason": "late"},
            headers=organizer,
        ),
        409,
        "results-final",
    )
    assert client.get(f"/competitions/{cid}/results").get_json()["final"] is True


def test_a_window_starts_each_clock_at_its_entrants_call_and_closes_entries_when_a_clock_no_longer_fits(
    contest_app, client, clock
):
    organizer, _ = player(client)
    (early, _), (late, _), (never, _) = player(client), player(client), player(client)
    logged(contest_app)
    starts = clock.now + timedelta(minutes=1)
    window = announce(
        client, organizer, clock, format="window", ends_at=(starts + timedelta(hours=1)).isoformat(), limit_s=600
    )
    cid = window["id"]
    assert window["entries_close_at"] == (starts + timedelta(minutes=50)).isoformat()
    for token in (early, late, never):
        client.post(f"/competitions/{cid}/entries", headers=token)

    clock.now = starts + timedelta(minutes=5)
    mine = client.post(f"/competitions/{cid}/game", headers=early).get_json()
    assert mine["competition"]["started_at"] == clock.now.isoformat()
    clock.now += timedelta(minutes=10)
    referee(contest_app)
    assert client.get(f"/games/{mine['id']}", headers=early).get_json()["status"] == "resigned"

    clock.now = starts + timedelta(minutes=49)
    theirs = client.post(f"/competitions/{cid}/game", headers=late).get_json()
    # A late entrant learns nothing of the earlier ones: their games do not exist to them.
    assert client.get(f"/games/{mine['id']}", headers=late).status_code == 404
    assert theirs["commitment"] == mine["commitment"] and theirs["state"]["stock_count"] == 52 - 16 - 1
    clock.now = starts + timedelta(minutes=50, seconds=1)
    problem(client.post(f"/competitions/{cid}/game", headers=never), 409, "start-closed")

    clock.now = starts + timedelta(hours=1)
    referee(contest_app)
    rows = client.get(f"/competitions/{cid}/results").get_json()["results"]
    assert [(row["status"], row["game_id"] is None) for row in rows] == [
        ("timed_out", False),
        ("timed_out", False),
        ("timed_out", True),
    ]


def test_counted_hints_are_given_and_the_field_is_bounded(contest_app, client, clock):
    organizer, _ = player(client)
    (first, _), (second, _) = player(client), player(client)
    logged(contest_app)
    cid = announce(client, organizer, clock, hints="counted", max_entrants=1)["id"]
    assert client.post(f"/competitions/{cid}/entries", headers=first).status_code == 201
    problem(client.post(f"/competitions/{cid}/entries", headers=second), 409, "competition-full")
    clock.now += timedelta(minutes=1)
    game = client.post(f"/competitions/{cid}/game", headers=first).get_json()

    hinted = client.post(f"/games/{game['id']}/hint", headers=first)

    assert hinted.status_code == 200, hinted.get_json()
    assert hinted.get_json()["events"][0]["kind"] == "hint_given"
    assert hinted.get_json()["events"][0]["data"]["elapsed_ms"] == 0


def test_the_list_pages_by_status(contest_app, client, clock):
    organizer, _ = player(client)
    logged(contest_app)
    made = [announce(client, organizer, clock, name=f"race {n}")["id"] for n in range(3)]

    seen, path, first = [], "/competitions?status=open&limit=2", None
    while path is not None and not set(made) <= set(seen):
        page = client.get(path)
        listed = page.get_json()
        first = first or (page, listed)
        assert all(c["status"] == "open" for c in listed["competitions"])
        seen += [c["id"] for c in listed["competitions"]]
        path = listed["next"]

    assert set(made) <= set(seen) and len(seen) == len(set(seen))
    page, listed = first
    assert page.headers["Link"] == f'<{listed["next"]}>; rel="next"'
    problem(client.get("/competitions?cursor=garbage"), 422, "invalid-cursor")


class Served:
    """The server as a stranger's audit fetches it, with a lie where asked: `lie(path, body) -> body`."""

    def __init__(self, client, lie=lambda path, body: body):
        self.client, self.lie = client, lie

    def __call__(self, path):
        response = self.client.get(path)
        if response.status_code != 200:
            raise OSError(f"{path} answered {response.status_code}")
        return self.lie(path, response.get_data())


def test_the_audit_recomputes_the_competition_from_the_log_and_catches_a_tampered_row(contest_app, client, clock):
    cid, organizer, players = closed_race(contest_app, client, clock, entrants=3, review_s=60)
    amended = client.post(
        f"/competitions/{cid}/amendments",
        json={"player": players[1][1], "action": "disqualify", "reason": "shared an account"},
        headers=organizer,
    )
    assert amended.status_code == 201
    logged(contest_app)

    report = audit_competition(Served(client), LOG_SIGNER.verifier, UUID(cid))

    assert report.ok, report.problem
    assert report.entrants == 3 and report.games_verified == 3
    assert report.standings_root == amended.get_json()["standings_root"]

    def faster(path, body):
        if not path.endswith("/results"):
            return body
        served = json.loads(body)
        served["results"][1]["elapsed_ms"] -= 1
        return json.dumps(served).encode()

    tampered = audit_competition(Served(client, faster), LOG_SIGNER.verifier, UUID(cid))

    assert not tampered.ok and tampered.problem.startswith(
        "the served results differ from the recomputed ones at row 2"
    )

    def rewritten(path, body):
        if not path.endswith("/results"):
            return body
        served = json.loads(body)
        served["standings_root"] = "0" * 64
        return json.dumps(served).encode()

    assert (
        "standings root is not the log's"
        in audit_competition(Served(client, rewritten), LOG_SIGNER.verifier, UUID(cid)).problem
    )


def test_the_audit_refuses_an_unclosed_competition_and_a_wrong_key(contest_app, client, clock):
    organizer, _ = player(client)
    logged(contest_app)
    cid = announce(client, organizer, clock)["id"]
    logged(contest_app)

    report = audit_competition(Served(client), LOG_SIGNER.verifier, UUID(cid))
    assert not report.ok and "has not closed" in report.problem
    other = generate_signer("osmosis.test/another-log")
    assert "checkpoint" in audit_competition(Served(client), other.verifier, UUID(cid)).problem


def test_the_stream_opens_with_the_standings_and_an_unknown_competition_is_404(contest_app, client, clock):
    cid, _, [(_, name)] = field_of(contest_app, client, clock, 1)

    response = client.get(f"/competitions/{cid}/stream", buffered=False)
    try:
        first = next(response.response).decode()
    finally:
        response.close()

    assert response.mimetype == "text/event-stream"
    standings = json.loads(first.split("event: standings\ndata: ", 1)[1])
    assert [row["player"]["name"] for row in standings["standings"]] == [name]
    problem(client.get(f"/competitions/{UUID(int=7)}/stream"), 404, "competition-not-found")


class Scripted:
    def __init__(self, *looks):
        self.looks = list(looks)

    def standings(self, competition_id):
        return self.looks.pop(0) if len(self.looks) > 1 else self.looks[0]


def test_the_stream_sends_the_standings_then_the_changes_and_ends_when_final():
    watching = Scripted(
        look(rows=[("bo", "playing", 3, 10)]),
        look(rows=[("bo", "playing", 4, 11)]),
        look("final", "2031-01-01T00:10:00+00:00", "a" * 64, rows=[("bo", "lost", 4, 11)]),
    )

    messages = "".join(competition_stream(watching, "c", sleep=lambda seconds: None))

    events = [line.split(": ", 1)[1] for line in messages.splitlines() if line.startswith("event: ")]
    assert events == ["standings", "progress", "finished", "closed"]
    assert messages.startswith("retry: 2000\n\n")


def test_a_finished_competition_game_is_not_analysed_before_the_close(contest_app, client, clock):
    cid, _, [(entrant, _)] = field_of(contest_app, client, clock, 1)
    clock.now += timedelta(minutes=1)
    game = client.post(f"/competitions/{cid}/game", headers=entrant).get_json()
    client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "resign"}}, headers=entrant)

    # The solver's word on the deal would show it to every entrant still at it.
    problem(client.get(f"/games/{game['id']}/analysis", headers=entrant), 409, "competition-not-closed")

    clock.now += timedelta(minutes=10)
    referee(contest_app)
    assert client.get(f"/games/{game['id']}/analysis").status_code == 200


def test_an_announcement_sent_again_with_its_key_is_one_competition(contest_app, client, clock):
    organizer, _ = player(client)
    body = {"name": "once", "format": "race", "entrants": "human", "limit_s": 60}
    body["starts_at"] = (clock.now + timedelta(minutes=1)).isoformat()
    key = {**organizer, "Idempotency-Key": f"announce-{secrets.token_hex(4)}"}

    answers = run_together(5, lambda _: contest_app.test_client().post("/competitions", json=body, headers=key))
    again = client.post("/competitions", json=body, headers=key)

    assert {answer.status_code for answer in answers} == {201}
    assert len({answer.get_json()["id"] for answer in [*answers, again]}) == 1
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Location"] == f"/competitions/{again.get_json()['id']}"
    problem(client.post("/competitions", json={**body, "name": "twice"}, headers=key), 422, "idempotency-key-reused")


def test_before_the_close_an_entrants_game_is_to_anyone_else_a_game_that_does_not_exist_byte_for_byte(
    contest_app, client, clock
):
    cid, organizer, [(alice, _), (rival, _)] = field_of(contest_app, client, clock, 2)
    clock.now += timedelta(minutes=1)
    game = client.post(f"/competitions/{cid}/game", headers=alice).get_json()
    client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "deal"}}, headers=alice)
    nowhere = "00000000-0000-4000-8000-000000000000"

    for path, wrong in zip(reads(game["id"]), reads(nowhere), strict=True):
        for who in (None, rival, organizer):
            status, mimetype, body = answer(client, path, who)
            expected = answer(client, wrong, who)
            assert (status, mimetype) == expected[:2] == (404, PROBLEM), path
            assert body.replace(game["id"].encode(), nowhere.encode()) == expected[2], path
    for action in ("draw", "resign", "hint"):
        refused = client.post(f"/games/{game['id']}/{action}", headers=rival)
        assert refused.status_code == 404 and refused.get_json()["code"] == "game-not-found"
    assert game["id"] not in [g["id"] for g in client.get("/games?limit=100", headers=rival).get_json()["games"]]
    assert game["id"] in [g["id"] for g in client.get("/games?limit=100", headers=alice).get_json()["games"]]


def test_an_amendment_is_appended_and_the_checkpoint_before_it_is_a_prefix_of_the_one_after(contest_app, client, clock):
    cid, organizer, players = closed_race(contest_app, client, clock, entrants=2, review_s=60)
    logged(contest_app)
    before = open_checkpoint(client.get("/log/checkpoint").get_data(as_text=True), LOG_SIGNER.verifier)[0]

    client.post(
        f"/competitions/{cid}/amendments",
        json={"player": players[0][1], "action": "disqualify", "reason": "two accounts"},
        headers=organizer,
    )
    logged(contest_app)
    after = open_checkpoint(client.get("/log/checkpoint").get_data(as_text=True), LOG_SIGNER.verifier)[0]

    assert after.size > before.size
    proof = client.get(f"/log/consistency?from={before.size}&to={after.size}").get_json()["proof"]
    verify_consistency(before.size, after.size, before.root, after.root, [base64.b64decode(h) for h in proof])


def test_concurrent_entries_never_pass_the_fields_size(contest_app, client, clock):
    organizer, _ = player(client)
    players = [player(client)[0] for _ in range(6)]
    logged(contest_app)
    cid = announce(client, organizer, clock, max_entrants=3)["id"]

    answers = run_together(
        6, lambda n: contest_app.test_client().post(f"/competitions/{cid}/entries", headers=players[n])
    )

    assert sorted(answer.status_code for answer in answers) == [201] * 3 + [409] * 3
    assert {answer.get_json()["code"] for answer in answers if answer.status_code == 409} == {"competition-full"}
    assert client.get(f"/competitions/{cid}").get_json()["entered"] == 3
    assert len(client.get(f"/competitions/{cid}/standings").get_json()["standings"]) == 3


def test_a_race_entrant_who_comes_after_the_end_gets_no_game_and_the_results_hold_no_game_on(
    contest_app, client, clock
):
    cid, _, [(early, _), (late, _)] = field_of(contest_app, client, clock, 2)
    clock.now += timedelta(minutes=1)
    client.post(f"/competitions/{cid}/game", headers=early)
    clock.now += timedelta(minutes=10)

    problem(client.post(f"/competitions/{cid}/game", headers=late), 409, "start-closed")
    referee(contest_app)
    rows = client.get(f"/competitions/{cid}/results").get_json()["results"]
    assert sorted((row["status"], row["game_id"] is None) for row in rows) == [
        ("timed_out", False),
        ("timed_out", True),
    ]


def test_only_a_new_clock_wakes_the_referee_an_announcement_and_an_entrant_s_game(
    contest_app, client, clock, store, monkeypatch
):
    """Every write with public-log entries used to wake the referee too: three queries a turn, up to four turns a
    second in every process, for games no competition has (measured: 17 µs of other threads' CPU an action)."""
    clocks, entries = [], []
    monkeypatch.setattr(store, "clocks_set", lambda: clocks.append(1), raising=False)
    monkeypatch.setattr(store, "entries_logged", lambda: entries.append(1))
    game = client.post("/games", json={"variant": "osmosis-draw-one", "deal_number": 3}).get_json()
    token = {"Authorization": f"Bearer {game['player_token']}"}
    assert (
        client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "resign"}}, headers=token).status_code
        == 200
    )
    assert entries and clocks == []  # work for the public log, none for the referee

    cid, _, [(entrant, _)] = field_of(contest_app, client, clock, 1)
    assert len(clocks) == 1  # the announcement: the competition's end
    clock.now += timedelta(minutes=1)
    assert client.post(f"/competitions/{cid}/game", headers=entrant).status_code == 201
    assert len(clocks) == 2  # the entrant's game: its deadline


def test_the_store_wakes_the_log_s_threads_for_entries_and_the_referee_for_a_new_clock(pool):
    woken = []

    class Thread:
        def __init__(self, name):
            self.name = name

        def wake(self):
            woken.append(self.name)

    store = PostgresStore(pool, migrate.head_revision())
    wake_on_work(store, Thread("sequencer"), Thread("upkeep"), Thread("referee"))

    store.entries_logged()
    assert woken == ["sequencer", "upkeep"]
    store.clocks_set()
    assert woken == ["sequencer", "upkeep", "referee"]


def test_two_processes_refereeing_at_once_end_each_game_once_and_close_the_competition_once(
    contest_app, client, clock, database_url, db
):
    """The close's row lock and its "not closed yet" guard, and a game's end written once, across two processes:
    a second app on its own pool, its referee's turns released at the same moment as the first's."""
    cid, _, players = field_of(contest_app, client, clock, 4)
    clock.now += timedelta(minutes=1)
    games = [client.post(f"/competitions/{cid}/game", headers=token).get_json() for token, _ in players]
    resign = {"action": {"kind": "resign"}}
    for game, (token, _) in list(zip(games, players, strict=True))[:2]:  # two finished, two still on at the end
        assert client.post(f"/games/{game['id']}/actions", json=resign, headers=token).status_code == 200
    logged(contest_app)
    clock.now += timedelta(minutes=10)
    other_pool = open_pool(database_url, min_size=1, max_size=4, timeout=5, statement_timeout_ms=5000)
    try:
        other = next(app_on_a_clock(PostgresStore(other_pool, migrate.head_revision()), clock))
        referees = [contest_app.extensions["osmosis.referee"], other.extensions["osmosis.referee"]]
        for _ in range(10):
            run_together(2, lambda n: referees[n].run_once())
            logged(contest_app)
        other.extensions["osmosis.hub"].stop()
    finally:
        other_pool.close()

    assert entry_kinds(db, cid).count(ce.COMPETITION_CLOSED) == 1
    for game in games:
        kinds = db.execute("SELECT kind FROM game_events WHERE game_id = %s", (game["id"],)).fetchall()
        kinds = [row[0] for row in kinds]
        assert kinds.count(ev.SEEDS_REVEALED) == 1, kinds
        assert kinds.count(ev.GAME_TIMED_OUT) + kinds.count(ev.GAME_RESIGNED) == 1, kinds
    results = client.get(f"/competitions/{cid}/results").get_json()
    rows = results["results"]
    assert sorted(row["status"] for row in rows) == ["resigned", "resigned", "timed_out", "timed_out"]
    assert results["standings_root"] == standings_root([{k: v for k, v in row.items() if k != "links"} for row in rows])


def test_a_start_waits_for_a_close_in_progress_and_then_makes_no_game(contest_app, client, clock, database_url, db):
    """The barrier between a start and the close, stalled: the close holds the competition's row (as
    LOCK_TO_CLOSE does) while a start that passed the clock's checks a moment before the end comes in."""
    cid, _, [(entrant, _)] = field_of(contest_app, client, clock, 1)
    race = client.get(f"/competitions/{cid}").get_json()
    clock.now = datetime.fromisoformat(race["ends_at"]) - timedelta(seconds=1)
    with psycopg.connect(database_url) as closing:
        closing.execute("SELECT id FROM competitions WHERE id = %s AND closed_at IS NULL FOR UPDATE", (cid,))
        closing.execute("UPDATE competitions SET closed_at = %s WHERE id = %s", (clock.now, cid))
        answers = []
        start = threading.Thread(
            target=lambda: answers.append(client.post(f"/competitions/{cid}/game", headers=entrant))
        )
        start.start()
        start.join(timeout=1.0)
        assert start.is_alive(), "the start must wait for the close's transaction"
        closing.commit()
    start.join(timeout=10)

    problem(answers[0], 409, "start-closed")
    row = db.execute("SELECT game_id FROM competition_entries WHERE competition_id = %s", (cid,)).fetchone()
    assert row[0] is None
    assert db.execute("SELECT count(*) FROM games WHERE competition->>'id' = %s", (cid,)).fetchone()[0] == 0
