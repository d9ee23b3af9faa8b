"""Requests to the API over one kept-alive connection: JSON in and out, a problem answer raised as ApiError,
and each POST sent with an Idempotency-Key, so that the one retry made on a fresh connection (the kept one
was closed meanwhile, or the answer was lost) is answered by the server, never done twice.

A 429 or a 503 is waited out as its Retry-After asks and sent again with the same key, for up to `patience`
seconds in all; each exchange has `timeout` seconds in all (a server that trickles its answer is cut off), and
an answer longer than MAX_ANSWER_BYTES is refused unread."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

from .deadlines import deadline

MAX_ANSWER_BYTES = 16 * 1024 * 1024
"""The longest answer read: the longest the API gives (a long game's export) is well under it."""
WAITED_OUT = (429, 503)
"""Statuses that say "not now": the request is sent again after the Retry-After they give."""
FIRST_WAIT = 0.5
"""Seconds waited before the first retry of a 429 or 503 that gives no Retry-After (doubled each time)."""


class Unreachable(RuntimeError):
    """The server could not be reached, or answered what a game server does not."""


class ApiError(RuntimeError):
    """The server refused the request: its status and its problem document (RFC 9457)."""

    def __init__(self, status: int, problem: dict[str, Any]) -> None:
        self.status, self.problem = status, problem
        super().__init__(self.detail)

    @property
    def code(self) -> str:
        return str(self.problem.get("code", ""))

    @property
    def detail(self) -> str:
        return str(self.problem.get("detail") or self.problem.get("title") or f"the server answered {self.status}")


@dataclass(frozen=True)
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str]


class Api:
    def __init__(self, base_url: str, timeout: float = 30.0, bearer: str | None = None, patience: float = 60.0) -> None:
        """`timeout`: seconds one exchange may take in all; `bearer`: a player's API token, sent with every request
        that names no token of its own; `patience`: seconds spent in all waiting out 429s and 503s."""
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"a server is an http:// or https:// base URL, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._parts, self._prefix, self.timeout = parts, parts.path.rstrip("/"), timeout
        self.patience = patience
        self._connection: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()  # one kept connection, asked from whichever thread needs it
        self.bearer = bearer

    def get(self, path: str, **query: Any) -> dict[str, Any]:
        return self.call("GET", path + (f"?{urlencode(query)}" if query else "")).body

    def post(self, path: str, body: dict[str, Any] | None = None, token: str | None = None) -> dict[str, Any]:
        return self.call("POST", path, {} if body is None else body, token).body

    def call(self, method: str, path: str, body: dict[str, Any] | None = None, token: str | None = None) -> Reply:
        """The server's answer; a status of 400 or more is raised as ApiError."""
        reply = self.send(method, path, body, token)
        if reply.status >= 400:
            raise ApiError(reply.status, reply.body)
        return reply

    def send(self, method: str, path: str, body: dict[str, Any] | None = None, token: str | None = None) -> Reply:
        """The server's answer, whatever its status, once any 429 or 503 has been waited out (or `patience` ran
        out: then that answer)."""
        token = token or self.bearer
        headers = {"Accept": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
        if body is not None:
            headers |= {"Content-Type": "application/json", "Idempotency-Key": str(uuid.uuid4())}
        data = None if body is None else json.dumps(body)
        waited, backoff = 0.0, FIRST_WAIT
        while True:
            reply = self._exchange(method, path, data, headers)
            if reply.status not in WAITED_OUT:
                return reply
            wait = retry_after(reply.headers.get("retry-after"), backoff)
            if waited + wait > self.patience:
                return reply
            time.sleep(wait)
            waited, backoff = waited + wait, min(backoff * 2, 30.0)

    def _exchange(self, method: str, path: str, data: str | None, headers: dict[str, str]) -> Reply:
        with self._lock:
            for attempt in (1, 2):
                with deadline(self.timeout, self._socket) as watched:
                    try:
                        connection = self._connect()
                        connection.request(method, self._prefix + path, data, headers)
                        response = connection.getresponse()
                        raw = _read_whole(response)
                        if watched.passed:  # what was read when it was cut is no answer, whatever it looks like
                            raise TimeoutError
                        return Reply(
                            response.status,
                            _json_object(raw) if raw else {},
                            {name.lower(): value for name, value in response.getheaders()},
                        )
                    except (OSError, http.client.HTTPException) as error:
                        failure = f"cannot reach {self.base_url}: {error}" if attempt == 2 else None
                    except _TooLong:
                        failure = f"{self.base_url} answered {path} with more than {MAX_ANSWER_BYTES} bytes"
                    except ValueError:
                        failure = f"{self.base_url} answered {path} with something other than a JSON object"
                self._close()
                if watched.passed:
                    failure = f"{self.base_url} did not answer {path} within {self.timeout:g} seconds"
                if failure is not None:
                    raise Unreachable(failure)
        raise AssertionError("unreachable")

    def _socket(self) -> socket.socket | None:
        connection = self._connection
        return None if connection is None else connection.sock

    def open_stream(self, path: str, headers: dict[str, str] | None = None) -> Stream:
        """A response to read as it comes (server-sent events), on a connection of its own."""
        connection = self._new_connection(timeout=None)
        try:
            connection.request("GET", self._prefix + path, headers={"Accept": "text/event-stream", **(headers or {})})
            response = connection.getresponse()
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            raise Unreachable(f"cannot reach {self.base_url}: {error}") from None
        if response.status != 200:
            raw = response.read()
            connection.close()
            try:
                problem = json.loads(raw)
            except ValueError:
                problem = {}
            raise ApiError(response.status, problem)
        return Stream(connection, response)

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            self._connection = self._new_connection(self.timeout)
        return self._connection

    def _new_connection(self, timeout: float | None) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
        return kind(self._parts.hostname or "", self._parts.port, timeout=timeout)


class _TooLong(Exception):
    pass


def _read_whole(response: http.client.HTTPResponse) -> bytes:
    """The answer's body, refused (_TooLong) past MAX_ANSWER_BYTES whatever its Content-Length says."""
    stated = response.getheader("Content-Length")
    if stated is not None and stated.isdigit() and int(stated) > MAX_ANSWER_BYTES:
        raise _TooLong
    raw = response.read(MAX_ANSWER_BYTES + 1)
    if len(raw) > MAX_ANSWER_BYTES:
        raise _TooLong
    return raw


def _json_object(raw: bytes) -> dict[str, Any]:
    value = json.loads(raw)
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


def retry_after(value: str | None, otherwise: float) -> float:
    """Seconds a Retry-After header asks to wait (RFC 9110: a number of seconds, or an HTTP date); `otherwise`
    when there is none or it is not one."""
    if value is None:
        return otherwise
    value = value.strip()
    if value.isdigit():
        return float(int(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return otherwise
    if when.tzinfo is None:
        return otherwise
    return max(0.0, when.timestamp() - time.time())


class Stream:
    """A streamed response, read line by line; `close` may be called from another thread, and wakes a reader
    waiting for the next line (it then sees the end of the stream)."""

    def __init__(self, connection: http.client.HTTPConnection, response: http.client.HTTPResponse) -> None:
        self._connection, self._response = connection, response

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._response)

    def close(self) -> None:
        sock = self._connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed by the server: nothing left to wake
                sock.shutdown(socket.SHUT_RDWR)
        self._connection.close()
