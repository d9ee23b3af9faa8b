"""The witness over HTTP/1.1 with keep-alive, as C2SP tlog-witness asks: POST /add-checkpoint and
GET /<origin hash>/checkpoint, one prefix for both.

A witness is a small public service that logs reach rarely; what it must not do is let clients that send
slowly, or not at all, keep the honest ones out. So it serves every connection on one event loop (an idle one
costs a few kilobytes, not a thread), and each request, from its first byte to its last, has REQUEST_SECONDS in
all: a client dripping its headers a byte at a time is cut off then, however often it sends. A kept-alive
connection waits IDLE_SECONDS for its next request. At MAX_CONNECTIONS, a new connection takes the place of the
one idle longest, or else of the one whose request began first (the slowest, by then): a new client always gets
in. The witness's own work (checking and cosigning, its state file) runs off the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate
from http import HTTPStatus

from .protocol import MAX_REQUEST_BYTES, Answer, Witness

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 512
IDLE_SECONDS = 10.0
REQUEST_SECONDS = 5.0
MAX_HEADER_LINES = 64
MAX_LINE_BYTES = 8192
SERVER = "osmosis-witness"
ALLOWED = "GET, POST"


@dataclass(eq=False)
class _Connection:
    writer: asyncio.StreamWriter
    since: float = field(default_factory=time.monotonic)
    """When it last became idle, or when its request began."""
    idle: bool = True


class _Refused(Exception):
    """A request this server answers with an error and then closes the connection."""

    def __init__(self, answer: Answer, method: str = "") -> None:
        self.answer, self.method = answer, method


NOT_ALLOWED = Answer(405, "the witness answers POST /add-checkpoint and GET /<origin hash>/checkpoint\n")


class WitnessServer:
    def __init__(self, address: tuple[str, int], witness: Witness, prefix: str = "") -> None:
        self.witness = witness
        self.prefix = prefix.rstrip("/")
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self._socket = socket.create_server(address, family=family, backlog=128)
        self.server_address = self._socket.getsockname()
        self.server_port: int = self.server_address[1]
        self._loop = asyncio.new_event_loop()
        self._stopping: asyncio.Event | None = None
        self._stopped = threading.Event()
        self._connections: set[_Connection] = set()

    def serve_forever(self) -> None:
        try:
            self._loop.run_until_complete(self._serve())
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop serve_forever (from another thread) and wait until it has returned."""
        self._loop.call_soon_threadsafe(lambda: self._stopping.set() if self._stopping else None)
        self._stopped.wait(30)

    def server_close(self) -> None:
        self._socket.close()
        if not self._loop.is_running():
            self._loop.close()

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        server = await asyncio.start_server(self._connected, sock=self._socket, limit=MAX_LINE_BYTES)
        async with server:
            await self._stopping.wait()
            server.close()
            for connection in list(self._connections):
                connection.writer.close()

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self._connections) >= MAX_CONNECTIONS:
            self._make_room()
        connection = _Connection(writer)
        self._connections.add(connection)
        try:
            await self._serve_connection(connection, reader)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, TimeoutError):
            pass  # the client went away, or was too slow, too long-winded, or past its time: nothing to answer
        finally:
            self._connections.discard(connection)
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    def _make_room(self) -> None:
        idle = [c for c in self._connections if c.idle]
        oldest = min(idle or self._connections, key=lambda c: c.since)
        self._connections.discard(oldest)
        oldest.writer.close()

    async def _serve_connection(self, connection: _Connection, reader: asyncio.StreamReader) -> None:
        while True:
            connection.idle, connection.since = True, time.monotonic()
            first = await asyncio.wait_for(reader.read(1), IDLE_SECONDS)
            if not first:
                return
            connection.idle, connection.since = False, time.monotonic()
            try:
                async with asyncio.timeout(REQUEST_SECONDS):
                    method, path, version, headers, body = await _request(first, reader)
            except _Refused as refused:
                await self._send(connection.writer, refused.method, refused.answer, close=True)
                return
            try:
                answer = await self._answer(method, path, body)
            except Exception:
                log.exception("the witness failed to answer %s %s", method, path[:200])
                answer = Answer(500, "the witness failed to answer; it has been logged\n")
            close = version != "HTTP/1.1" or headers.get("connection", "").lower() == "close"
            await self._send(connection.writer, method, answer, close)
            if close:
                return

    async def _answer(self, method: str, path: str, body: bytes) -> Answer:
        route = self._route(path)
        if method == "POST":
            if route != "/add-checkpoint":
                return Answer(404, "the witness answers POST /add-checkpoint\n")
            return await asyncio.get_running_loop().run_in_executor(None, self.witness.add_checkpoint, body)
        parts = route.split("/")
        if len(parts) == 3 and parts[0] == "" and parts[2] == "checkpoint":
            return await asyncio.get_running_loop().run_in_executor(None, self.witness.checkpoint, parts[1])
        return Answer(404, "the witness serves GET /<origin hash>/checkpoint\n")

    def _route(self, path: str) -> str:
        path = path.split("?", 1)[0]
        prefix = self.prefix
        return path[len(prefix) :] if prefix and path.startswith(prefix + "/") else ("" if prefix else path)

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, method: str, answer: Answer, close: bool) -> None:
        body = answer.body.encode()
        lines = [
            f"HTTP/1.1 {answer.status} {HTTPStatus(answer.status).phrase}",
            f"Server: {SERVER}",
            f"Date: {formatdate(usegmt=True)}",
            f"Content-Type: {answer.content_type}",
            f"Content-Length: {len(body)}",
        ]
        if answer.status == 405:
            lines.append(f"Allow: {ALLOWED}")
        if close:
            lines.append("Connection: close")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (b"" if method == "HEAD" else body))
        await writer.drain()


async def _request(first: bytes, reader: asyncio.StreamReader) -> tuple[str, str, str, dict[str, str], bytes]:
    """A request whose first byte has come: its method, path, version, headers (names in lower case) and body;
    _Refused for one this witness answers with an error."""
    line = (first + await reader.readuntil(b"\n")).decode("latin-1").strip()
    parts = line.split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _Refused(Answer(400, "not an HTTP/1.1 request line\n"))
    method, path, version = parts
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADER_LINES + 1):
        header = (await reader.readuntil(b"\n")).decode("latin-1").strip()
        if not header:
            break
        name, _, value = header.partition(":")
        headers[name.strip().lower()] = value.strip()
    else:
        raise _Refused(Answer(431, f"a request has at most {MAX_HEADER_LINES} header lines\n"))
    if method not in ("GET", "POST"):
        # Whatever body came with it is left unread, so the connection cannot carry another request.
        raise _Refused(NOT_ALLOWED, method)
    if method == "GET":
        if headers.get("content-length", "0") != "0" or "transfer-encoding" in headers:
            raise _Refused(Answer(400, "a GET carries no body\n"), method)
        return method, path, version, headers, b""
    length = headers.get("content-length")
    if length is None or not length.isdigit() or "transfer-encoding" in headers:
        raise _Refused(Answer(411, "an add-checkpoint request states its Content-Length\n"))
    if int(length) > MAX_REQUEST_BYTES:
        raise _Refused(Answer(413, f"an add-checkpoint request is at most {MAX_REQUEST_BYTES} bytes\n"))
    return method, path, version, headers, await reader.readexactly(int(length))
