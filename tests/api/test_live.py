"""Browser clients elsewhere (CORS) and live updates: long polling and server-sent events."""

import json
import threading
import time

import pytest

from server.api import create_app
from server.config import Settings
from server.service import GameService
from tests.api.helpers import create


@pytest.fixture
def cors_client(store):
    settings = Settings(cors_origins=("https://cards.example",), rate_limit="")
    return create_app(settings, service=GameService(store)).test_client()


def test_a_preflight_from_an_allowed_origin_allows_the_headers_clients_send(cors_client):
    response = cors_client.options("/games/00000000-0000-4000-8000-000000000000/moves", headers={
        "Origin": "https://cards.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Authorization, If-Match, Idempotency-Key, Content-Type",
    })

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
    """The first `count` events of a server-sent event stream."""
    events, buffer = [], ""
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            message, buffer = buffer.split("\n\n", 1)
            fields = dict(line.split(": ", 1) for line in message.splitlines() if not line.startswith(":"))
            if "data" in fields:
                events.append((int(fields["id"]), json.loads(fields["data"])))
                if len(events) == count:
                    return events
    return events


def test_the_event_stream_sends_past_and_new_events_and_ends_with_the_game(app, client):
    game, token = create(client, deal_number=0)
    client.post(f"/games/{game['id']}/draw", headers=token)
    resigner = later(0.5, lambda: app.test_client().post(f"/games/{game['id']}/resign", headers=token))

    response = client.get(f"/games/{game['id']}/events/stream?after=1", buffered=False)
    events = read_stream(response, 10)
    resigner.join()

    assert response.mimetype == "text/event-stream"
    assert [(seq, event["kind"]) for seq, event in events] == [
        (2, "cards_dealt"), (3, "game_resigned"), (4, "seeds_revealed")]


def test_the_event_stream_resumes_after_last_event_id(client):
    game, token = create(client)
    client.post(f"/games/{game['id']}/draw", headers=token)
    client.post(f"/games/{game['id']}/resign", headers=token)

    response = client.get(f"/games/{game['id']}/events/stream", headers={"Last-Event-ID": "2"}, buffered=False)

    assert [seq for seq, _ in read_stream(response, 10)] == [3, 4]


def test_the_event_stream_of_an_unknown_game_is_404(client):
    response = client.get("/games/00000000-0000-4000-8000-000000000000/events/stream")

    assert response.status_code == 404 and response.get_json()["code"] == "game-not-found"
