"""The witness over HTTP/1.1 with keep-alive, as C2SP tlog-witness asks: POST /add-checkpoint and
GET /<origin hash>/checkpoint, one prefix for both. A witness is a small public service that logs reach rarely,
so the standard library's threaded server is enough; what it must not do is let one client hold it, hence the
bounded body, the socket timeout and the cap on connections served at once."""

from __future__ import annotations

import logging
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .protocol import MAX_REQUEST_BYTES, Answer, Witness

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 64
IDLE_SECONDS = 10.0


class WitnessServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], witness: Witness, prefix: str = "") -> None:
        self.witness = witness
        self.prefix = prefix.rstrip("/")
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(address, _Handler)

    def process_request(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        if not self._slots.acquire(blocking=False):
            # Every slot is taken: close at once rather than queue without bound behind slow clients.
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = IDLE_SECONDS
    server: WitnessServer
    server_version = "osmosis-witness"

    def do_POST(self) -> None:
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self._answer(Answer(411, "an add-checkpoint request states its Content-Length\n"), close=True)
            return
        if int(length) > MAX_REQUEST_BYTES:
            self._answer(Answer(413, f"an add-checkpoint request is at most {MAX_REQUEST_BYTES} bytes\n"), close=True)
            return
        try:
            body = self.rfile.read(int(length))
        except (TimeoutError, ConnectionError):
            body = b""
        if len(body) < int(length):  # the client went quiet or away mid-body: nothing to answer
            self.close_connection = True
            return
        if self._route() != "/add-checkpoint":
            self._answer(Answer(404, "the witness answers POST /add-checkpoint\n"))
            return
        self._answer(self.server.witness.add_checkpoint(body))

    def do_GET(self) -> None:
        parts = self._route().split("/")
        if len(parts) == 3 and parts[0] == "" and parts[2] == "checkpoint":
            self._answer(self.server.witness.checkpoint(parts[1]))
        else:
            self._answer(Answer(404, "the witness serves GET /<origin hash>/checkpoint\n"))

    def do_HEAD(self) -> None:
        # Whatever body came with it is left unread, so the connection cannot carry another request.
        self._answer(Answer(405, "the witness answers POST /add-checkpoint and GET /<origin hash>/checkpoint\n"),
                     close=True)

    do_PUT = do_DELETE = do_PATCH = do_HEAD

    def _route(self) -> str:
        path = self.path.split("?", 1)[0]
        prefix = self.server.prefix
        return path[len(prefix):] if prefix and path.startswith(prefix + "/") else ("" if prefix else path)

    def _answer(self, answer: Answer, close: bool = False) -> None:
        body = answer.body.encode()
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(body)))
        if answer.status == 405:
            self.send_header("Allow", "GET, POST")
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, template: str, *args: object) -> None:
        log.info("%s %s", self.address_string(), template % args)
