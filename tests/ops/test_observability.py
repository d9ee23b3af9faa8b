"""Request ids, the JSON request log, Prometheus metrics, and rate limits shared through Redis."""

import http.client
import json
import logging
import urllib.request
import uuid

import pytest
import redis

from server.config import Settings
from server.runtime.app import create_app
from server.runtime.json_logs import JsonFormatter
from tests.api.helpers import create


def metric(client, name, **labels):
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    for line in client.get("/metrics").get_data(as_text=True).splitlines():
        if line.startswith(f"{name}{{{wanted}}}" if labels else f"{name} "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_every_response_carries_a_request_id_and_keeps_the_callers(client):
    generated = client.get("/variants").headers["X-Request-ID"]
    kept = client.get("/variants", headers={"X-Request-ID": "trace-42"}).headers["X-Request-ID"]

    assert len(generated) == 32 and kept == "trace-42"


def test_request_ids_made_up_differ_from_request_to_request(client):
    made_up = {client.get("/variants").headers["X-Request-ID"] for _ in range(50)}

    assert len(made_up) == 50 and all(len(request_id) == 32 and int(request_id, 16) >= 0 for request_id in made_up)


def test_a_request_id_that_is_too_long_or_unprintable_is_replaced(client):
    too_long = client.get("/variants", headers={"X-Request-ID": "x" * 129}).headers["X-Request-ID"]
    unprintable = client.get("/variants", headers={"X-Request-ID": "a\tb"}).headers["X-Request-ID"]

    assert len(too_long) == 32 and len(unprintable) == 32


@pytest.mark.parametrize(
    "given", ["<script>alert(1)</script>", "caf\u00e9-42", "a b", "id;rm -rf", '"quoted"', "x\u202eevil"]
)
def test_a_request_id_of_anything_but_letters_digits_and_id_punctuation_is_replaced(client, given):
    """It is echoed in a header and written to the log: only what ids are made of passes (a W3C traceparent does)."""
    answered = client.get("/variants", headers={"X-Request-ID": given.encode().decode("latin-1")})

    assert answered.headers["X-Request-ID"] != given and len(answered.headers["X-Request-ID"]) == 32


@pytest.mark.parametrize(
    "given", ["trace-42", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "5f0c7e0e-1f7b.x_y:z/w+q=@a"]
)
def test_a_request_id_made_of_what_ids_are_made_of_is_kept(client, given):
    assert client.get("/variants", headers={"X-Request-ID": given}).headers["X-Request-ID"] == given


def test_each_request_is_logged_as_json_with_its_request_id(client, caplog):
    caplog.set_level(logging.INFO, logger="osmosis.request")

    client.get("/variants", headers={"X-Request-ID": "log-me"})

    record = next(r for r in caplog.records if r.name == "osmosis.request")
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == "log-me" and line["status"] == 200 and line["route"] == "/variants"
    assert line["level"] == "info" and line["duration_ms"] >= 0


def test_metrics_count_requests_actions_conflicts_and_replays(client):
    before = {
        "requests": metric(client, "osmosis_http_requests_total", route="/games", method="POST", status="201"),
        "draws": metric(client, "osmosis_actions_total", kind="draw"),
        "conflicts": metric(client, "osmosis_version_conflicts_total"),
        "replays": metric(client, "osmosis_idempotent_replays_total"),
    }
    game, token = create(client)
    client.post(f"/games/{game['id']}/draw", headers={**token, "Idempotency-Key": "m1"})
    client.post(f"/games/{game['id']}/draw", headers={**token, "Idempotency-Key": "m1"})
    client.post(f"/games/{game['id']}/draw", json={"expected_version": 1}, headers=token)

    assert (
        metric(client, "osmosis_http_requests_total", route="/games", method="POST", status="201")
        == before["requests"] + 1
    )
    assert metric(client, "osmosis_actions_total", kind="draw") == before["draws"] + 1
    assert metric(client, "osmosis_version_conflicts_total") == before["conflicts"] + 1
    assert metric(client, "osmosis_idempotent_replays_total") == before["replays"] + 1
    assert "osmosis_http_request_duration_seconds_bucket" in client.get("/metrics").get_data(as_text=True)


def test_the_rate_limit_is_shared_by_all_workers_and_answers_429_problem_json(store, redis_url):
    redis.Redis.from_url(redis_url).flushdb()  # the counts of this test's run under the other backend
    settings = Settings(rate_limit="5 per minute", rate_limit_storage_uri=redis_url)
    workers = [create_app(settings, store).test_client() for _ in range(2)]

    statuses = [workers[i % 2].get("/variants", environ_base={"REMOTE_ADDR": "10.1.2.3"}).status_code for i in range(6)]
    refused = workers[0].get("/variants", environ_base={"REMOTE_ADDR": "10.1.2.3"})
    other_client = workers[1].get("/variants", environ_base={"REMOTE_ADDR": "10.9.9.9"})

    assert statuses == [200] * 5 + [429]
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.get_json()["code"] == "rate-limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert other_client.status_code == 200


def test_a_players_requests_are_counted_together_from_every_address_as_well_as_by_address(store, redis_url):
    redis.Redis.from_url(redis_url).flushdb()
    client = create_app(Settings(rate_limit="4 per minute", rate_limit_storage_uri=redis_url), store).test_client()
    made = client.post(
        "/players", json={"name": f"limited{uuid.uuid4().hex[:8]}"}, environ_base={"REMOTE_ADDR": "10.3.0.99"}
    ).get_json()
    token = {"Authorization": f"Bearer {made['token']}"}

    statuses = [
        client.get("/players/me", headers=token, environ_base={"REMOTE_ADDR": f"10.3.0.{i}"}).status_code
        for i in range(5)
    ]
    anonymous = client.get("/variants", environ_base={"REMOTE_ADDR": "10.3.0.200"})
    someone_else = client.get(
        "/players/me", headers={"Authorization": "Bearer osm_" + "x" * 36}, environ_base={"REMOTE_ADDR": "10.3.0.201"}
    )

    assert statuses == [200] * 4 + [429]
    assert anonymous.status_code == 200
    assert someone_else.status_code == 401


def test_probes_are_never_rate_limited(store, redis_url):
    client = create_app(Settings(rate_limit="1 per minute", rate_limit_storage_uri=redis_url), store).test_client()

    assert [client.get("/healthz").status_code for _ in range(3)] == [200, 200, 200]


def test_made_up_methods_do_not_grow_the_metrics(live_server):
    def metrics_text():
        with urllib.request.urlopen(f"{live_server}/metrics") as response:
            return response.read().decode()

    def send(method):
        connection = http.client.HTTPConnection(live_server.removeprefix("http://"), timeout=10)
        connection.request(method, "/healthz")
        status = connection.getresponse().status
        connection.close()
        return status

    send("ZZ0")
    before = metrics_text()
    statuses = {send(f"ZZ{n}") for n in range(1, 51)}
    after = metrics_text()

    assert statuses == {405}
    assert "ZZ" not in after and 'method="other"' in after
    assert len(after) - len(before) < 200, len(after) - len(before)  # the counts change, not the series
