"""The actions' short path (server/api/action_path.py) answers exactly as the full path does: the same requests, sent
to two apps alike in everything but ACTION_SHORT_PATH (the same ids, tokens, seeds and clock), get the same status,
body and headers, the rate limits' included; and the short path does take the plain ones."""

import contextlib
import io
import itertools
import json
import sys
from datetime import UTC, datetime
from uuid import UUID

import pytest
from flask import request_started
from werkzeug.exceptions import RequestTimeout

from server.api import action_path, boundary
from server.config import Settings
from server.runtime.app import create_app
from server.service.sources import Sources
from tests.memory_store import MemoryStore

LIMIT = "1000 per minute;200 per second"
TIME_BOUND = {"X-RateLimit-Reset", "X-RateLimit-Retry-After"}
"""Seconds from now: the same on both apps but for the second the two requests fall on either side of."""


def deterministic_sources() -> Sources:
    ids, tokens, seeds = itertools.count(1), itertools.count(1), itertools.count(1)
    return Sources(
        clock=lambda: datetime(2026, 11, 28, 12, 0, tzinfo=UTC),
        new_server_seed=lambda: next(seeds).to_bytes(32, "big"),
        new_game_token=lambda: f"token-{next(tokens):040d}",
        new_id=lambda: UUID(int=next(ids)),
    )


def make_app(short_path: bool, rate_limit: str = LIMIT):
    settings = Settings(
        rate_limit=rate_limit,
        rate_limit_exempt=(),
        rate_limit_storage_uri="memory://",
        sign_up_rate_limit="",
        action_short_path=short_path,
    )
    app = create_app(settings, MemoryStore(), sources=deterministic_sources())
    app.config["TESTING"] = True
    return app


class Dispatches:
    """The requests Flask itself dispatched, per app."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, sender, **extra) -> None:
        self.count += 1


def send(
    app,
    method,
    path,
    body=b"",
    headers=None,
    query="",
    content_type="application/json",
    stream=None,
    address="192.0.2.7",
):
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": address,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": stream or io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    if body or stream is not None:
        environ["CONTENT_TYPE"] = content_type
        environ["CONTENT_LENGTH"] = str(len(body))
    for name, value in (headers or {}).items():
        key = name.upper().replace("-", "_")
        environ[key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else f"HTTP_{key}"] = value
    answer: list = []
    chunks = app(environ, lambda status, headers, exc_info=None: answer.extend((status, headers)))
    content = b"".join(chunks)
    getattr(chunks, "close", lambda: None)()
    return answer[0], answer[1], content


def comparable(headers):
    return sorted((name, value) for name, value in headers if name not in TIME_BOUND and name != "X-Request-ID")


@pytest.fixture
def twins():
    apps = {"short": make_app(True), "full": make_app(False)}
    dispatches = {name: Dispatches() for name in apps}
    for name, app in apps.items():
        request_started.connect(dispatches[name], app, weak=False)
    yield apps, dispatches
    for name, app in apps.items():
        request_started.disconnect(dispatches[name], app)
        app.extensions["osmosis.hub"].stop()


def both(twins, *args, **kwargs):
    """The request on both apps: their answers, which must be the same, and whether Flask dispatched it on the
    short path's app."""
    apps, dispatches = twins
    before = dispatches["short"].count
    short = send(apps["short"], *args, **kwargs)
    full = send(apps["full"], *args, **kwargs)
    assert short[0] == full[0], (args, kwargs, short, full)
    assert short[2] == full[2], (args, kwargs, short[2], full[2])
    assert comparable(short[1]) == comparable(full[1]), (args, kwargs)
    assert {name for name, _ in short[1]} == {name for name, _ in full[1]}
    assert dispatches["full"].count > 0
    return short, dispatches["short"].count > before


def new_game(twins, variant="osmosis"):
    (status, _, content), _ = both(twins, "POST", "/games", json.dumps({"variant": variant}).encode())
    assert status.startswith("201")
    game = json.loads(content)
    return game, {"Authorization": f"Bearer {game['player_token']}"}


def test_plain_actions_take_the_short_path_and_answer_as_the_full_path(twins):
    game, token = new_game(twins)
    actions = f"/games/{game['id']}"

    (status, headers, _), dispatched = both(twins, "POST", f"{actions}/draw", headers=token)
    assert status == "200 OK" and not dispatched
    assert ("ETag", '"2"') in headers and ("X-RateLimit-Remaining", "198") in headers  # after the creation and it

    _, dispatched = both(twins, "POST", f"{actions}/draw", b"{}", headers=token)
    assert not dispatched
    _, dispatched = both(twins, "POST", f"{actions}/draw", b'{"expected_version": 3}', headers=token)
    assert not dispatched
    (_, _, read), _ = both(twins, "GET", actions)  # on both apps, whose counts of this address stay in step
    legal = json.loads(read)["legal_actions"]
    move = next((action for action in legal if action["kind"] == "move"), legal[0])
    (status, _, _), dispatched = both(twins, "POST", f"{actions}/actions", json.dumps({"action": move}).encode(), token)
    assert status == "200 OK" and not dispatched
    (status, _, _), dispatched = both(twins, "POST", f"{actions}/actions", b'{"action": {"kind": "undo"}}', token)
    assert status == "200 OK" and not dispatched
    if move["kind"] == "move":
        body = json.dumps({"card": move["card"], "to": move["to"]}).encode()
        (status, _, _), dispatched = both(twins, "POST", f"{actions}/moves", body, token)
        assert status == "200 OK" and not dispatched
    keyed = {**token, "Idempotency-Key": "draw-1"}
    (status, _, _), dispatched = both(twins, "POST", f"{actions}/draw", headers=keyed)
    assert status == "200 OK" and not dispatched
    (status, headers, _), dispatched = both(twins, "POST", f"{actions}/draw", headers=keyed)
    assert ("Idempotent-Replayed", "true") in headers and not dispatched
    (status, _, _), dispatched = both(twins, "POST", f"{actions}/resign", headers={**token, "X-Request-ID": "r-1"})
    assert status == "200 OK" and not dispatched


def test_refusals_the_command_raises_are_answered_on_the_short_path_by_the_apps_own_handlers(twins):
    game, token = new_game(twins)
    other, _ = new_game(twins)
    actions = f"/games/{game['id']}"
    refusals = [
        (f"{actions}/draw", b'{"expected_version": 9}', token, "412"),
        (f"{actions}/actions", b'{"action": {"kind": "undo"}}', token, "409"),
        (f"{actions}/moves", b'{"card": "KS", "to": "F1"}', token, "409"),
        (f"/games/{other['id']}/draw", b"", token, "403"),
        (f"/games/{UUID(int=10**6)}/draw", b"", token, "404"),
        (f"{actions}/draw", b"", {"Authorization": "Bearer not-a-token-of-this-game"}, "403"),
    ]
    for path, body, headers, status in refusals:
        (got, answer_headers, content), dispatched = both(twins, "POST", path, body, headers)
        assert got.startswith(status), (path, body, got, content)
        assert not dispatched, (path, body)
        assert any(name == "X-RateLimit-Limit" for name, _ in answer_headers)


def test_everything_else_falls_to_the_full_path_untouched(twins):
    game, token = new_game(twins)
    actions = f"/games/{game['id']}"
    full_path_requests = [
        dict(path=f"{actions}/draw", body=b'{"expected_version": "3"}'),
        dict(path=f"{actions}/draw", body=b'{"expected_version": 0}'),
        dict(path=f"{actions}/draw", body=b'{"expected_version": 3, "extra": 1}'),
        dict(path=f"{actions}/draw", body=b"null"),
        dict(path=f"{actions}/draw", body=b"[1]"),
        dict(path=f"{actions}/draw", body=b"{"),
        dict(path=f"{actions}/draw", body=b'{"a": 1, "a": 2}'),
        dict(path=f"{actions}/draw", body=b"{}", content_type="text/plain"),
        dict(path=f"{actions}/draw", query="expected_version=3"),
        dict(path=f"{actions}/draw", headers={"If-Match": "not a tag"}),
        dict(path=f"{actions}/draw", headers={"If-Match": '"5"'}, body=b'{"expected_version": 4}'),
        dict(path=f"{actions}/draw", headers={"Idempotency-Key": "x" * 300}),
        dict(path=f"{actions}/draw", headers={"Authorization": "Basic abc"}),
        dict(path=f"{actions}/draw", headers={"Authorization": " Bearer " + game["player_token"]}),
        dict(path=f"{actions}/draw", headers={"Authorization": "Bearer  " + game["player_token"]}),
        dict(path=f"{actions}/draw", headers={"Authorization": "Bearer osm_not_a_live_token"}),
        dict(path=f"{actions}/draw", headers={"Authorization": None}),
        dict(path=f"/games/{UUID(game['id']).hex}/draw"),
        dict(path=f"{actions}/draw/"),
        dict(path=f"{actions}/actions", body=b'{"action": {"kind": "fly"}}'),
        dict(path=f"{actions}/actions", body=b'{"action": {"kind": "move", "card": "ZZ", "to": "cell"}}'),
        dict(path=f"{actions}/actions"),
        dict(path=f"{actions}/moves", body=b'{"card": 7}'),
        dict(path=f"{actions}/hint"),
        dict(path=f"{actions}/draw", body=b"{}" * 600_000),
    ]
    for request in full_path_requests:
        headers = {**token, **request.pop("headers", {})}
        headers = {name: value for name, value in headers.items() if value is not None}
        path = request.pop("path")
        (status, _, content), dispatched = both(twins, "POST", path, headers=headers, **request)
        assert dispatched, (path, headers, request, status, content[:80])
    (status, _, _), dispatched = both(twins, "GET", f"{actions}/draw", headers=token)
    assert dispatched and status.startswith("405")


def test_one_count_whichever_path_a_request_takes():
    """Requests on the short path and on the full path count in the same counters, under the same keys."""
    app = make_app(True, rate_limit="6 per minute")  # the creation counts too
    try:
        game = json.loads(send(app, "POST", "/games", b"{}")[2])
        token = {"Authorization": f"Bearer {game['player_token']}"}
        draw = f"/games/{game['id']}/draw"
        remaining = []
        for bad_key in (False, True, False, True):
            headers = {**token, "Idempotency-Key": "\x01" if bad_key else f"k{len(remaining)}"}
            status, headers_given, _ = send(app, "POST", draw, headers=headers)
            assert status.startswith("422" if bad_key else "200")
            remaining.append(dict(headers_given)["X-RateLimit-Remaining"])
        assert remaining == ["4", "3", "2", "1"]
        assert send(app, "POST", draw, headers=token)[0].startswith("200")
        status, headers_given, content = send(app, "POST", draw, headers=token)
        assert status.startswith("429"), content
        assert dict(headers_given)["X-RateLimit-Remaining"] == "0"
        assert int(dict(headers_given)["Retry-After"]) >= 1
    finally:
        app.extensions["osmosis.hub"].stop()


def test_the_short_path_counts_an_ipv6_client_by_its_64_as_the_full_path_does():
    app = make_app(True, rate_limit="3 per minute")  # the creation and two draws
    try:
        game = json.loads(send(app, "POST", "/games", b"{}", address="2001:db8:a:b::1")[2])
        token = {"Authorization": f"Bearer {game['player_token']}"}
        draws = [
            send(app, "POST", f"/games/{game['id']}/draw", headers=token, address=f"2001:db8:a:b::{n}")
            for n in (2, 3, 4)
        ]
        assert [status[:3] for status, _, _ in draws] == ["200", "200", "429"]
        other = send(app, "POST", f"/games/{game['id']}/draw", headers=token, address="2001:db8:a:c::1")
        assert other[0].startswith("200")
    finally:
        app.extensions["osmosis.hub"].stop()


class Unread(io.RawIOBase):
    """A body that must not be read."""

    def read(self, size=-1):
        raise AssertionError("the body of a request over its limit was read")


def test_a_client_over_its_limit_is_refused_before_its_body_is_read():
    app = make_app(True, rate_limit="2 per minute")  # the creation, the draw
    try:
        game = json.loads(send(app, "POST", "/games", b"{}")[2])
        token = {"Authorization": f"Bearer {game['player_token']}"}
        assert send(app, "POST", f"/games/{game['id']}/draw", headers=token)[0].startswith("200")
        headers = {**token, "Content-Length": "2"}
        status, _, content = send(app, "POST", f"/games/{game['id']}/draw", headers=headers, stream=Unread())
        assert status.startswith("429"), content
    finally:
        app.extensions["osmosis.hub"].stop()


def test_the_short_path_can_be_turned_off():
    assert Settings.from_env({"ACTION_SHORT_PATH": "off"}).action_short_path is False
    assert Settings.from_env({"ACTION_SHORT_PATH": "ON"}).action_short_path is True
    assert Settings.from_env({}).action_short_path is True
    with pytest.raises(Exception, match="ACTION_SHORT_PATH must be on or off"):
        Settings.from_env({"ACTION_SHORT_PATH": "maybe"})


def test_a_body_that_does_not_arrive_in_time_is_answered_408_as_the_full_path_answers_it(twins, monkeypatch):
    """Under gevent's workers a body late past BODY_SECONDS raises RequestTimeout where it is read; here the reading
    deadline of both paths raises it at once."""

    @contextlib.contextmanager
    def expired(seconds):
        raise RequestTimeout(f"the body did not arrive within {seconds:g} seconds")
        yield

    game, token = new_game(twins)
    monkeypatch.setattr(action_path, "reading_deadline", expired)
    monkeypatch.setattr(boundary, "reading_deadline", expired)
    (status, headers, content), dispatched = both(twins, "POST", f"/games/{game['id']}/draw", b"{}", token)
    assert status.startswith("408"), content
    assert not dispatched
    assert json.loads(content)["code"] == "request-timeout"
    assert any(name == "X-RateLimit-Remaining" for name, _ in headers)
    after = json.loads(send(twins[0]["short"], "GET", f"/games/{game['id']}")[2])
    assert after["version"] == 1, "a request whose body never came changed the game"
