"""Browser clients elsewhere (CORS) and live updates: long polling and server-sent events."""

import itertools
import json
import threading
import time
from uuid import UUID

import psycopg
import pytest

from server.api.streaming import streams
from server.config import Settings
from server.game.commands import Draw, NewGame, NumberedDeal
from server.live import hub as live
from server.live.hub import Hub
from server.rules import preset
from server.runtime.app import create_app
from server.runtime.composition import compose
from tests.api.helpers import body_of, create, sse_messages


@pytest.fixture
def cors_client(store):
    settings = Settings(cors_origins=("https://cards.example",), rate_limit="")
    return create_app(settings, store).test_client()


def test_a_preflight_from_an_allowed_origin_allows_the_headers_clients_send(cors_client):
    response = cors_client.options(
        "/games/00000000-0000-4000-8000-000000000000/moves",
        headers={
            "Origin": "https://cards.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Authorization, If-Match, Idempotency-Key, Content-Type",
        },
    )

    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "https://cards.example"
    allowed = {h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "if-match", "idempotency-key", "content-type"} <= allowed
    assert "POST" in response.headers["Access-Control-Allow-Methods"]


def test_a_cross_origin_response_exposes_etag_location_and_link(cors_client):
    response = cors_client.post("/games", json={}, headers={"Origin": "https://cards.example"})

    exposed = {h.strip().lower() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "location", "link"} <= exposed


def test_another_origin_gets_no_cors_headers(cors_client):
    response = cors_client.get("/variants", headers={"Origin": "https://evil.example"})

    assert "Access-Control-Allow-Origin" not in response.headers


def test_without_configured_origins_there_is_no_cors(client):
    assert "Access-Control-Allow-Origin" not in client.get("/variants", headers={"Origin": "https://x"}).headers


def later(seconds, work):
    thread = threading.Timer(seconds, work)
    thread.start()
    return thread


def test_a_long_poll_answers_as_soon_as_an_event_lands(app, client):
    game, token = create(client)
    mover = later(0.5, lambda: app.test_client().post(f"/games/{game['id']}/draw", headers=token))

    started = time.monotonic()
    events = client.get(f"/games/{game['id']}/events?after=1&wait=20").get_json()["events"]
    waited = time.monotonic() - started
    mover.join()

    assert [event["seq"] for event in events] == [2]
    assert 0.3 < waited < 10


def test_a_long_poll_with_events_already_there_answers_at_once(client):
    game, _ = create(client)

    started = time.monotonic()
    events = client.get(f"/games/{game['id']}/events?after=0&wait=20").get_json()["events"]

    assert [event["seq"] for event in events] == [1]
    assert time.monotonic() - started < 5


def test_a_long_poll_gives_up_after_wait_seconds_with_no_event(client):
    game, _ = create(client)

    started = time.monotonic()
    events = client.get(f"/games/{game['id']}/events?after=1&wait=1").get_json()["events"]

    assert events == []
    assert time.monotonic() - started >= 0.9


def read_stream(response, count):
    """The first `count` messages with data of a server-sent event stream read through the test client."""
    return list(itertools.islice((m for m in sse_messages(response.response) if "data" in m), count))


def test_the_event_stream_starts_with_the_game_then_sends_past_and_new_events_and_ends_with_the_game(app, client):
    game, token = create(client, deal_number=0)
    drawn = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
    resigner = later(0.5, lambda: app.test_client().post(f"/games/{game['id']}/resign", headers=token))

    response = client.get(f"/games/{game['id']}/events/stream?after=1", buffered=False)
    messages = read_stream(response, 10)
    resigner.join()

    assert response.mimetype == "text/event-stream"
    assert messages[0]["event"] == "game" and "id" not in messages[0]
    assert json.loads(messages[0]["data"]) == drawn
    assert [(int(m["id"]), json.loads(m["data"])["kind"]) for m in messages[1:]] == [
        (2, "cards_dealt"),
        (3, "game_resigned"),
        (4, "seeds_revealed"),
    ]


def test_the_event_stream_resumes_after_last_event_id_or_after(client):
    game, token = create(client)
    client.post(f"/games/{game['id']}/draw", headers=token)
    client.post(f"/games/{game['id']}/resign", headers=token)

    by_header = client.get(f"/games/{game['id']}/events/stream", headers={"Last-Event-ID": "2"}, buffered=False)
    by_query = client.get(f"/games/{game['id']}/events/stream?after=2", buffered=False)
    header_wins = client.get(
        f"/games/{game['id']}/events/stream?after=0", headers={"Last-Event-ID": "3"}, buffered=False
    )

    assert [m.get("id") for m in read_stream(by_header, 10)] == [None, "3", "4"]
    assert [m.get("id") for m in read_stream(by_query, 10)] == [None, "3", "4"]
    assert [m.get("id") for m in read_stream(header_wins, 10)] == [None, "4"]


@pytest.mark.parametrize("resume", [{"after": "4"}, {"after": "999"}, {"Last-Event-ID": "9999999999"}])
def test_the_stream_of_a_finished_game_asked_from_its_end_or_beyond_ends_at_once(client, resume):
    game, token = create(client)
    client.post(f"/games/{game['id']}/draw", headers=token)
    client.post(f"/games/{game['id']}/resign", headers=token)
    query = f"?after={resume['after']}" if "after" in resume else ""
    headers = {name: value for name, value in resume.items() if name != "after"}
    response = client.get(f"/games/{game['id']}/events/stream{query}", headers=headers, buffered=False)
    read: list[dict] = []
    reader = later(0, lambda: read.extend(sse_messages(response.response)))

    reader.join(timeout=5)

    assert not reader.is_alive(), "the stream of a finished game stayed open"
    assert [message.get("event") for message in read] == [None, "game"]  # the retry hint, then the game


def test_the_event_stream_of_an_unknown_game_is_404(client):
    response = client.get("/games/00000000-0000-4000-8000-000000000000/events/stream")

    assert response.status_code == 404 and response.get_json()["code"] == "game-not-found"


# --- the multi-game feed --------------------------------------------------------------------------


def feed(client, query=""):
    return client.get(f"/events/stream{query}", buffered=False)


def test_the_feed_of_named_games_sends_each_as_it_is_then_only_their_events(app, client):
    first, first_token = create(client, deal_number=1)
    second, second_token = create(client, deal_number=2)
    other, other_token = create(client, deal_number=3)

    def act_on_all():
        app.test_client().post(f"/games/{first['id']}/draw", headers=first_token)
        app.test_client().post(f"/games/{other['id']}/draw", headers=other_token)
        app.test_client().post(f"/games/{second['id']}/resign", headers=second_token)

    actor = later(0.5, act_on_all)
    response = feed(client, f"?game_id={first['id']}&game_id={second['id']}")
    messages = read_stream(response, 5)
    actor.join()

    assert [m.get("event") for m in messages[:2]] == ["game", "game"]
    assert {json.loads(m["data"])["id"] for m in messages[:2]} == {first["id"], second["id"]}
    events = [json.loads(m["data"]) for m in messages[2:]]
    assert [(e["game_id"], e["seq"], e["kind"]) for e in events] == [
        (first["id"], 2, "cards_dealt"),
        (second["id"], 2, "game_resigned"),
        (second["id"], 3, "seeds_revealed"),
    ]


def test_the_feed_of_every_game_of_a_variant_sends_their_events_from_now_on(app, client):
    response = feed(client, "?variant=peek-till-dawn")
    read = later(
        0.5,
        lambda: [
            create(app.test_client(), variant="osmosis"),
            create(app.test_client(), variant="peek-till-dawn", deal_number=8),
        ],
    )

    messages = read_stream(response, 1)
    read.join()

    event = json.loads(messages[0]["data"])
    assert event["kind"] == "game_created" and event["data"]["variant"] == "peek-till-dawn"
    assert event["game_id"] and event["seq"] == 1


def test_the_feed_of_every_game_sends_the_events_of_games_it_never_heard_of(app, client):
    response = feed(client)
    actor = later(0.5, lambda: create(app.test_client(), variant="bridesmaids", deal_number=5))

    messages = read_stream(response, 1)
    actor.join()

    assert json.loads(messages[0]["data"])["kind"] == "game_created"


def test_the_feed_from_now_on_leaves_out_what_committed_before_though_an_older_transaction_still_ran(
    app, client, database_url
):
    with psycopg.connect(database_url) as older:  # a transaction begun first, still running
        older.execute("SELECT pg_current_xact_id()")
        before, _ = create(client, variant="osmosis-three-passes", deal_number=31)
        response = feed(client)
        actor = later(0.5, lambda: create(app.test_client(), variant="osmosis-three-passes", deal_number=32))
        actor.join()
        older.commit()

        messages = read_stream(response, 1)

    first = json.loads(messages[0]["data"])
    assert first["game_id"] != before["id"] and (first["kind"], first["seq"]) == ("game_created", 1)


def test_the_feed_resumed_after_an_event_sends_what_came_after_it_at_once_on_a_quiet_server(app, client):
    live = feed(client)
    game, token = create(client, variant="peek", deal_number=9)
    client.post(f"/games/{game['id']}/draw", headers=token)
    client.post(f"/games/{game['id']}/draw", headers=token)
    seen = read_stream(live, 3)
    mine = [m for m in seen if json.loads(m["data"])["game_id"] == game["id"]]
    assert [json.loads(m["data"])["seq"] for m in mine] == [1, 2, 3]

    resumed = client.get("/events/stream", headers={"Last-Event-ID": mine[0]["id"]}, buffered=False)
    read: list[dict] = []
    reader = later(
        0, lambda: read.extend(itertools.islice((m for m in sse_messages(resumed.response) if "data" in m), 2))
    )
    reader.join(timeout=5)

    assert not reader.is_alive(), "nothing came after the Last-Event-ID until another event was written"
    assert [m["id"] for m in read] == [m["id"] for m in mine[1:]]


def test_the_feed_refuses_a_last_event_id_it_did_not_send(client):
    for last_event_id in ["7", "x.y.z", "1.00000000-0000-4000-8000-000000000000.01", "01.00000000-0000-4000-8000-0000"]:
        response = client.get("/events/stream", headers={"Last-Event-ID": last_event_id})
        assert response.status_code == 422 and response.get_json()["code"] == "invalid-input", last_event_id


def test_the_feed_refuses_an_unknown_game_and_too_many_games(client):
    game, _ = create(client)
    missing = "00000000-0000-4000-8000-000000000000"

    unknown = client.get(f"/events/stream?game_id={game['id']}&game_id={missing}")
    too_many = client.get("/events/stream?" + "&".join(f"game_id={game['id']}" for _ in range(101)))
    bad_variant = client.get("/events/stream?variant=poker")

    assert unknown.status_code == 404 and missing in unknown.get_json()["detail"]
    assert too_many.status_code == 422 and "game_id" in too_many.get_json()["errors"]
    assert bad_variant.status_code == 422 and "variant" in bad_variant.get_json()["errors"]


# --- changes that no notification brought -------------------------------------------------------


class SilentFeed:
    """The store, except that change notifications never arrive: only the safety poll tells of changes."""

    def __init__(self, store):
        self._store = store

    def __getattr__(self, name):
        return getattr(self._store, name)

    def listen_for_changes(self, on_change, on_listening, stopped):
        stopped.wait()


def test_a_change_no_notification_brings_reaches_followers_by_the_poll(store):
    cases = compose(store)  # tells no hub of its actions
    hub = Hub(SilentFeed(store), poll_seconds=0.2)
    body = body_of(cases.creating.handle(NewGame(preset("osmosis"), NumberedDeal(0))))
    game_id = UUID(body["id"])
    try:
        stream = streams.game_stream(cases.queries, hub, game_id, after=1)
        next(stream)  # the game as it is, and nothing after seq 1
        later(0.3, lambda: cases.acting.handle(Draw(game_id, body["player_token"]))).join()

        message = next(message for message in sse_messages(stream) if "data" in message)
    finally:
        hub.stop()

    assert message["id"] == "2" and json.loads(message["data"])["kind"] == "cards_dealt"


def test_a_stream_whose_reader_falls_far_behind_catches_up_from_the_log(app, client, monkeypatch):
    monkeypatch.setattr(live, "PENDING_LIMIT", 3)
    game, token = create(client, variant="osmosis-draw-one", deal_number=4)
    stream = streams.game_stream(
        app.extensions["osmosis.use_cases"].queries, app.extensions["osmosis.hub"], UUID(game["id"]), after=1
    )
    next(stream)
    for _ in range(20):  # far more changes than a subscription keeps unread
        client.post(f"/games/{game['id']}/draw", headers=token)

    seqs = []
    for message in sse_messages(stream):
        seqs.append(int(message["id"]))
        if seqs[-1] == 21:
            break
    stream.close()

    assert seqs == list(range(2, 22))
