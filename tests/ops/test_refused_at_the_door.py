"""What gunicorn refuses before the application reads it still gets RFC 9457 problem+json with a stable code."""

import json
import socket

import pytest

from server.api.errors import every_code
from server.runtime.gevent_worker import REFUSALS


def raw(base, request: bytes) -> tuple[int, dict[str, str], dict]:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, json.loads(body)


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"GET /games?cursor=" + b"x" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri-too-long"),
        (b"GET /" + b"g" * 4100 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri-too-long"),
        (
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"y" * 9000 + b"\r\n\r\n",
            431,
            "request-header-fields-too-large",
        ),
        (
            b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % n for n in range(120)) + b"\r\n",
            431,
            "request-header-fields-too-large",
        ),
        (b"POST /games/1/draw HTTP/1.1\r\nHost: x\r\nIf-Match: \x7f\r\nContent-Length: 0\r\n\r\n", 400, "bad-request"),
        (b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n", 400, "bad-request"),
    ],
    ids=["long-query", "long-path", "long-header", "many-headers", "control-character", "http-version"],
)
def test_a_request_gunicorn_refuses_is_answered_with_problem_json(live_server, request_bytes, status, code):
    answered, headers, body = raw(live_server, request_bytes)

    assert answered == status
    assert headers["Content-Type"] == "application/problem+json"
    assert body["status"] == status and body["code"] == code and body["type"] == f"urn:osmosis:problem:{code}"
    assert body["title"] and body["detail"]


def test_every_code_at_the_door_is_one_the_contract_lists():
    assert set(REFUSALS.values()) <= set(every_code())
