"""gunicorn's gevent worker: the server's own answer to a request gunicorn refuses, the connection let go
as soon as the application has taken it over, and a short switch interval for the solver's threads.

gunicorn refuses some requests before the application sees them (a request line over 4,094 bytes, more
than 100 header fields or one over 8,190 bytes, a control character in a header) with an HTML page; here
they get the same problem+json body as every other error, with a stable `code` (docs/api.md, "Limits").

gunicorn's hook for applications that take a connection over (`ALREADY_HANDLED`, made for websockets)
otherwise keeps reading the connection for a next request for the keep-alive time, holding a greenlet and
the request's objects. The live tier hands event streams over this way (server/api/streaming/pusher.py).

Imported by gunicorn's master, which must not import psycopg (server/runtime/json_logs.py says why): gunicorn only.
"""

import json
import sys
from http import HTTPStatus
from typing import Any

from gunicorn import util
from gunicorn.workers.base_async import ALREADY_HANDLED
from gunicorn.workers.ggevent import GeventWorker

SWITCH_INTERVAL = 0.0005
"""Seconds a thread holds the interpreter lock while another waits for it."""

REFUSALS = {
    400: "bad-request",
    403: "forbidden",
    414: "uri-too-long",
    417: "expectation-failed",
    431: "request-header-fields-too-large",
    500: "internal-error",
    501: "not-implemented",
}
"""The problem code of each status gunicorn refuses a request with (server/api/errors.py knows them all)."""


class _Written:
    """Stands in for the client's socket while gunicorn writes its error page, to learn the status it chose."""

    def __init__(self) -> None:
        self.data = b""

    def gettimeout(self) -> float:
        return 0.0

    def sendall(self, data: bytes) -> None:
        self.data += data


class Worker(GeventWorker):  # type: ignore[misc]
    def init_process(self) -> None:
        # Solver searches run in native threads beside the loop (server/runtime/solver_time.py). The loop waits for the
        # interpreter lock after every system call, up to the switch interval each time: at Python's 5 ms a
        # request meets dozens of such waits; at half a millisecond it hardly notices the searches.
        sys.setswitchinterval(SWITCH_INTERVAL)
        super().init_process()

    def handle_error(self, req: Any, client: Any, addr: Any, exc: Exception) -> None:
        """gunicorn decides the status and logs it as always; the client gets problem+json instead of HTML."""
        written = _Written()
        super().handle_error(req, written, addr, exc)
        status_line = written.data.split(b"\r\n", 1)[0].split()
        status = int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else 500
        try:
            util.write_nonblock(client, problem_response(status, exc))
        except Exception:
            self.log.debug("Failed to send error message.")

    def is_already_handled(self, respiter: object) -> bool:
        if respiter is ALREADY_HANDLED:
            raise StopIteration  # gunicorn's own way out: the connection is the application's now
        return False


def problem_response(status: int, exc: Exception) -> bytes:
    """A whole HTTP response: `status` as RFC 9457 problem+json, saying what gunicorn found wrong."""
    code = REFUSALS.get(status, "bad-request" if 400 <= status < 500 else "internal-error")
    detail = (
        "the server failed to handle this request; it has been logged"
        if status >= 500
        else f"the request was refused before it was read: {str(exc)[:200]}"
    )
    body = json.dumps(
        {
            "type": f"urn:osmosis:problem:{code}",
            "title": HTTPStatus(status).phrase,
            "status": status,
            "detail": detail,
            "code": code,
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nConnection: close\r\n"
        f"Content-Type: application/problem+json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body
