"""Requests to the API over one kept-alive connection: JSON in and out, a problem answer raised as ApiError,
and each POST sent with an Idempotency-Key, so that the one retry made on a fresh connection (the kept one
was closed meanwhile, or the answer was lost) is answered by the server, never done twice."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit


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
    def __init__(self, base_url: str, timeout: float = 30.0, bearer: str | None = None) -> None:
        """`bearer`: a player's API token, sent with every request that names no token of its own."""
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"a server is an http:// or https:// base URL, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._parts, self._prefix, self.timeout = parts, parts.path.rstrip("/"), timeout
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
        """The server's answer, whatever its status."""
        token = token or self.bearer
        headers = {"Accept": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
        if body is not None:
            headers |= {"Content-Type": "application/json", "Idempotency-Key": str(uuid.uuid4())}
        data = None if body is None else json.dumps(body)
        with self._lock:
            for attempt in (1, 2):
                try:
                    connection = self._connect()
                    connection.request(method, self._prefix + path, data, headers)
                    response = connection.getresponse()
                    raw = response.read()
                    return Reply(response.status, json.loads(raw) if raw else {},
                                 {name.lower(): value for name, value in response.getheaders()})
                except (OSError, http.client.HTTPException) as error:
                    self._close()
                    if attempt == 2:
                        raise Unreachable(f"cannot reach {self.base_url}: {error}") from None
                except ValueError:
                    raise Unreachable(f"{self.base_url} answered {path} with something other than JSON") from None
        raise AssertionError("unreachable")

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
