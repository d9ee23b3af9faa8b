"""Event streams handed over: after its opening, a stream's connection belongs to this process's pusher,
which writes each change to it directly. Under gunicorn's gevent workers only.

A follower held by a waiting greenlet costs that greenlet's stack and the whole request (some 40 kB), and
each event wakes it and runs it through Flask's and gunicorn's layers. Handed over, a follower is its
socket and a few fields: a change of a game is rendered once, as one chunk of the chunked HTTP body, and
written to each of the game's followers with one non-blocking send. A follower that cannot take a chunk
at once gets a greenlet of its own until it has caught up (and is cut off if it falls far behind); one
that missed events (a gap, a change told without them) reads them from the log in a greenlet of its own.

The handover rests on gunicorn's documented hook for applications that take a connection over
(`ALREADY_HANDLED`, made for websockets): the request writes the response's head and opening itself, on
a duplicate of the socket, and gunicorn lets the connection go.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any
from uuid import UUID

import gevent

from ...live.following import GameFollowing
from ...live.hub import Change, Hub, Subscription
from ...service.games.queries import GameQueries
from ..observability import LIVE_FOLLOWERS
from . import streams

log = logging.getLogger(__name__)

HANDOVER = "osmosis.handover"
"""The WSGI environ key under which a stream view leaves what the middleware hands over."""
CAN_HAND_OVER = "osmosis.can_hand_over"
END = b"0\r\n\r\n"
"""The end of a chunked body."""
BEHIND_LIMIT = 256 * 1024
"""Bytes a follower may leave unread before it is cut off (it reconnects and resumes)."""
WRITE_SECONDS = 30.0
"""How long a follower that cannot keep up has to take what is waiting for it."""


def chunk(text: str) -> bytes:
    data = text.encode()
    return b"%X\r\n%s\r\n" % (len(data), data)


class Follower:
    __slots__ = ("backlog", "following", "game_id", "gone", "pending", "sock", "until")

    def __init__(self, game_id: str, after: int) -> None:
        self.game_id = game_id
        self.following = GameFollowing(game_id, after)
        self.sock: socket.socket | None = None
        self.until = time.monotonic() + streams.STREAM_SECONDS
        self.pending: bytearray | None = None
        """Bytes waiting for a slow reader, while a greenlet writes them; None when it keeps up."""
        self.backlog: list[Change] | None = []
        """Changes that came before it was attached or while it reads the log; None once it follows."""
        self.gone: Any = None
        """gevent's watcher of the socket: a stream's reader sends nothing, so a readable socket means
        the reader closed it."""


class Pusher:
    """This process's handed-over event streams, by game."""

    def __init__(self, queries: GameQueries, hub: Hub) -> None:
        self._queries = queries
        self._hub = hub
        self._by_game: dict[str, set[Follower]] = {}
        self._subscriptions: dict[str, Subscription] = {}
        self._ticker: threading.Thread | None = None
        hub.on_stop(self._stop)

    def open(self, environ: dict[str, Any], game_id: UUID, after: int) -> list[str]:
        """A stream to hand over: the follower is prepared before the opening is read (so that nothing
        committed meanwhile is missed), and left in `environ` for the middleware with the opening. The
        response's own body is then empty; a game already over is sent whole, as usual."""
        follower = self.prepare(str(game_id), after)
        try:
            _, document = self._queries.get_game(game_id)
            events = follower.following.from_log(self._queries)
        except Exception:
            self.forget(follower)
            raise
        opening = streams.RETRY + streams.game_message(document) + streams.event_messages(events)
        if follower.following.ended or streams.is_over(document):
            self.forget(follower)
            return [opening]
        environ[HANDOVER] = (follower, opening)
        return []

    def prepare(self, game_id: str, after: int) -> Follower:
        """A follower of the game whose changes are kept from now on: prepare before reading the opening."""
        follower = Follower(game_id, after)
        followers = self._by_game.setdefault(game_id, set())
        followers.add(follower)
        if game_id not in self._subscriptions:
            self._subscriptions[game_id] = self._hub.open([game_id], on_change=self._changed)
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="osmosis-live-ticker", daemon=True)
            self._ticker.start()
        return follower

    def attach(self, follower: Follower, sock: socket.socket) -> None:
        """The follower's connection, its opening sent: from here on the pusher writes to it."""
        sock.settimeout(0.0)
        follower.sock = sock
        LIVE_FOLLOWERS.inc()
        follower.gone = gevent.get_hub().loop.io(sock.fileno(), 1)
        follower.gone.start(self.forget, follower)
        if self._hub.stopped:
            self._end(follower, chunk(streams.SHUTDOWN) + END)
            return
        backlog, follower.backlog = follower.backlog or [], None
        for change in backlog:
            self._push(follower, change)

    def forget(self, follower: Follower) -> None:
        followers = self._by_game.get(follower.game_id)
        if followers is not None:
            followers.discard(follower)
            if not followers:
                del self._by_game[follower.game_id]
                self._hub.close(self._subscriptions.pop(follower.game_id))
        if follower.gone is not None:
            follower.gone.close()
            follower.gone = None
        if follower.sock is not None:
            with contextlib.suppress(OSError):
                follower.sock.close()
            follower.sock = None
            LIVE_FOLLOWERS.dec()

    # --- inside -----------------------------------------------------------------------------------

    def _changed(self, change: Change) -> None:
        rendered: dict[int, bytes] = {}  # by position: the followers of a game are nearly always at one
        for follower in list(self._by_game.get(change.game_id, ())):
            self._push(follower, change, rendered)

    def _push(self, follower: Follower, change: Change, rendered: dict[int, bytes] | None = None) -> None:
        if follower.backlog is not None:
            follower.backlog.append(change)
            return
        position = follower.following.position
        fresh = follower.following.take(change)
        if fresh is None:
            self._catch_up(follower)
            return
        if not fresh:
            return
        data = rendered.get(position) if rendered is not None else None
        if data is None:
            data = chunk(streams.event_messages(fresh))
            if rendered is not None:
                rendered[position] = data
        if follower.following.ended:
            self._end(follower, data + END)
        else:
            self._write(follower, data)

    def _catch_up(self, follower: Follower) -> None:
        """Read what the follower missed from the log, in a greenlet of its own; changes wait meanwhile."""
        follower.backlog = []

        def read() -> None:
            try:
                events = follower.following.from_log(self._queries)
            except Exception:
                log.warning("a follower could not catch up from the log", exc_info=True)
                self._end(follower, chunk(streams.FALLEN_BEHIND) + END)
                return
            data = chunk(streams.event_messages(events)) if events else b""
            if follower.following.ended:
                self._end(follower, data + END)
                return
            if data:
                self._write(follower, data)
            backlog, follower.backlog = follower.backlog or [], None
            for change in backlog:
                self._push(follower, change)

        threading.Thread(target=read, daemon=True).start()

    def _write(self, follower: Follower, data: bytes) -> None:
        if follower.sock is None:  # forgotten meanwhile: it went away, or was cut off
            return
        if follower.pending is not None:
            follower.pending += data
            if len(follower.pending) > BEHIND_LIMIT:
                self.forget(follower)
            return
        try:
            sent = follower.sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:  # the reader went away
            self.forget(follower)
            return
        if sent < len(data):
            follower.pending = bytearray(data[sent:])
            threading.Thread(target=self._flush, args=(follower,), daemon=True).start()

    def _flush(self, follower: Follower) -> None:
        """Write what waits for a slow reader, blocking this greenlet only."""
        sock = follower.sock
        if sock is None:
            return
        sock.settimeout(WRITE_SECONDS)
        try:
            while follower.pending:
                data, follower.pending = bytes(follower.pending), bytearray()
                sock.sendall(data)
        except OSError:
            self.forget(follower)
            return
        follower.pending = None
        sock.settimeout(0.0)

    def _end(self, follower: Follower, last: bytes) -> None:
        if follower.sock is not None and follower.pending is None:
            with contextlib.suppress(OSError):
                follower.sock.send(last)
        self.forget(follower)

    def _tick(self) -> None:
        """Every KEEP_ALIVE_SECONDS: a comment to every follower, and the end to those past their time."""
        keep_alive, expired = chunk(streams.KEEP_ALIVE), chunk(streams.RETRY) + END
        while not self._hub.stopped:
            time.sleep(streams.KEEP_ALIVE_SECONDS)
            now = time.monotonic()
            for follower in [f for followers in self._by_game.values() for f in followers if f.sock is not None]:
                if now >= follower.until:
                    self._end(follower, expired)
                elif follower.backlog is None:
                    self._write(follower, keep_alive)

    def _stop(self) -> None:
        goodbye = chunk(streams.SHUTDOWN) + END
        for follower in [f for followers in self._by_game.values() for f in followers]:
            self._end(follower, goodbye)


def install(app: Any, queries: GameQueries, hub: Hub) -> Pusher | None:
    """Hand streams over when the app runs under gunicorn's gevent workers; None elsewhere."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None or not monkey.is_module_patched("socket"):
        return None
    from gunicorn.workers.base_async import ALREADY_HANDLED

    pusher = Pusher(queries, hub)
    serve = app.wsgi_app

    def hand_over_streams(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if (
            "gunicorn.socket" not in environ
            or environ.get("SERVER_PROTOCOL") != "HTTP/1.1"
            or not environ.get("PATH_INFO", "").endswith("/events/stream")
        ):
            served: Iterable[bytes] = serve(environ, start_response)
            return served
        environ[CAN_HAND_OVER] = True
        captured: list[Any] = []
        result = serve(environ, lambda status, headers, exc_info=None: captured.extend((status, headers)))
        handover = environ.get(HANDOVER)
        if handover is None or not captured[0].startswith("200"):
            start_response(*captured)
            return result  # type: ignore[no-any-return]
        with contextlib.closing(result) if hasattr(result, "close") else contextlib.nullcontext():
            follower, opening = handover
            head = "".join(f"{name}: {value}\r\n" for name, value in captured[1])
            own = socket.socket(fileno=os.dup(environ["gunicorn.socket"].fileno()))
            try:
                own.sendall(
                    f"HTTP/1.1 {captured[0]}\r\n{head}Transfer-Encoding: chunked\r\n\r\n".encode() + chunk(opening)
                )
            except OSError:
                own.close()
                pusher.forget(follower)
            else:
                pusher.attach(follower, own)
        return ALREADY_HANDLED  # type: ignore[no-any-return]

    app.wsgi_app = hand_over_streams
    return pusher
