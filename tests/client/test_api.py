"""The project's API client against servers that are busy, slow on purpose or hostile: it waits out 429 and 503
as Retry-After asks, with the same Idempotency-Key; it never hangs on a trickle, never reads a huge answer whole,
and says what went wrong in its own terms."""

import json
import time
from email.utils import formatdate

import pytest

from server.client import Api, ApiError, Unreachable
from server.client.api import MAX_ANSWER_BYTES, retry_after
from tests.client.scripted import Answer, ScriptedServer

OK = Answer(200, b'{"done": true}')
PROBLEM = json.dumps({"status": 429, "code": "rate-limited", "detail": "slow down"}).encode()


@pytest.mark.slow
def test_a_429_is_waited_out_and_sent_again_with_the_same_idempotency_key():
    with ScriptedServer(
        Answer(429, PROBLEM, {"Retry-After": "1"}), Answer(503, b"{}", {"Retry-After": "0"}), OK
    ) as server:
        started = time.monotonic()
        assert Api(server.url).post("/games/x/actions", {"action": {"kind": "deal"}}) == {"done": True}
        waited = time.monotonic() - started
    keys = [headers["Idempotency-Key"] for _, _, headers, _ in server.seen]
    assert len(keys) == 3 and len(set(keys)) == 1 and keys[0]
    assert [body for *_, body in server.seen] == [b'{"action": {"kind": "deal"}}'] * 3
    assert 1.0 <= waited < 5


def test_a_wait_longer_than_the_patience_left_is_not_waited_the_429_is_raised():
    with ScriptedServer(Answer(429, PROBLEM, {"Retry-After": "3600"})) as server:
        started = time.monotonic()
        with pytest.raises(ApiError) as refused:
            Api(server.url, patience=5).get("/games")
    assert refused.value.status == 429 and refused.value.code == "rate-limited"
    assert time.monotonic() - started < 2 and len(server.seen) == 1


@pytest.mark.slow
def test_a_503_without_retry_after_is_tried_again_after_a_growing_wait_until_the_patience_runs_out():
    with ScriptedServer(Answer(503, b"{}")) as server, pytest.raises(ApiError):
        Api(server.url, patience=1.6).get("/games")
    assert len(server.seen) == 3  # after 0.5 s, then 1 s; another 2 s would pass the patience


@pytest.mark.parametrize("value, seconds", [("7", 7.0), (" 0 ", 0.0), ("soon", 0.5), (None, 0.5), ("-3", 0.5)])
def test_retry_after_is_read_as_seconds_or_an_http_date(value, seconds):
    assert retry_after(value, 0.5) == seconds


def test_retry_after_as_an_http_date():
    assert 8 < retry_after(formatdate(time.time() + 10, usegmt=True), 0.5) <= 10


def test_an_answer_trickled_a_byte_at_a_time_is_cut_off_at_the_deadline():
    body = json.dumps({"padding": "x" * 200}).encode()
    with ScriptedServer(Answer(200, body, trickle=0.2)) as server:
        started = time.monotonic()
        with pytest.raises(Unreachable, match="within 1 seconds"):
            Api(server.url, timeout=1).get("/games")
        assert time.monotonic() - started < 4


@pytest.mark.parametrize("length", [None, False])
def test_an_answer_past_the_size_cap_is_refused_without_reading_it_whole(length):
    body = b'{"a": "' + b"x" * (MAX_ANSWER_BYTES + 10) + b'"}'
    with ScriptedServer(Answer(200, body, length=length)) as server, pytest.raises(Unreachable, match="more than"):
        Api(server.url).get("/games")


@pytest.mark.parametrize("body", [b"[1, 2]", b"not json", b'"text"'])
def test_an_answer_that_is_not_a_json_object_is_unreachable_not_a_type_error(body):
    with ScriptedServer(Answer(200, body)) as server, pytest.raises(Unreachable, match="JSON object"):
        Api(server.url).get("/games")


@pytest.mark.slow
def test_a_deadline_met_leaves_the_kept_connection_alone():
    with ScriptedServer(OK) as server:
        api = Api(server.url, timeout=0.5)
        for _ in range(3):
            assert api.get("/games") == {"done": True}
            time.sleep(0.3)
        time.sleep(0.6)  # every deadline has passed: none of them cuts the connection kept
        assert api.get("/games") == {"done": True}
