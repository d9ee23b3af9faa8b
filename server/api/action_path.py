"""The action routes' short path: a bot's action (POST /games/{game_id}/actions, /moves, /draw or /resign) answered
without Flask's dispatch, which costs an action more than its rules, its chain and its write together
(docs/performance.md, "The game's home (issue 51), step two").

It takes only a request it can answer exactly as the full path would: a game's own player token, a JSON body its
route's schema loads (or none), no query string, and no Origin when CORS is on. It reads the body and the headers
with the same functions the views use, makes the command the view would make, counts the request in the rate
limiter's counters under the limiter's own keys, and answers with the view's status, body and headers, and the
request id, metrics and request log every request gets (observability.Meter). Anything else, and anything it finds
wrong before the command runs (an unreadable body, a key or an If-Match it cannot read, a limit reached), it leaves
to the full path untouched, which answers it as it answers every request: no request is answered two ways. An
error the command itself raises is answered by the app's own error handlers.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable, Iterable
from typing import Any
from uuid import UUID

from blinker import Namespace
from flask import Flask
from marshmallow import ValidationError
from webargs.core import missing
from werkzeug.exceptions import RequestTimeout
from werkzeug.http import HTTP_STATUS_CODES

from ..config import Settings
from ..log import strict_json
from ..service.players.tokens import is_api_token
from ..service.use_cases import UseCases
from .boundary import BODY_BYTES, reading_deadline
from .common import idempotency_of
from .errors import problem_for
from .games.actions import ACTION_ROUTES, ActionCommand, ActionRoute
from .games.writes import Written, action_headers, versions_of
from .observability import REQUEST_ID_HEADER, Meter
from .rate_limits import AddressLimits
from .replies import answer_of

action_answered = Namespace().signal("action-answered")
"""Sent with each answer the short path gives (route, status, mimetype, body), as Flask sends `request_finished`
with each of its own: the tests hold every answer to the OpenAPI document."""

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
LimitHeaders = Callable[[str | None], list[tuple[str, str]]]

_PATH = re.compile(r"/games/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/([a-z]+)")
_ENVIRON_REQUEST_ID = "HTTP_" + REQUEST_ID_HEADER.upper().replace("-", "_")


class _Taken:
    """A request the short path answers: its route, its path for the log, and the command it makes (or the body's
    timeout, RequestTimeout, which it answers without one)."""

    __slots__ = ("command", "path", "route")

    def __init__(self, route: ActionRoute, path: str, command: ActionCommand | RequestTimeout) -> None:
        self.route, self.path, self.command = route, path, command


class ActionPath:
    """WSGI: the action routes' short path in front of the full Flask app (`full`)."""

    def __init__(self, app: Flask, full: Wsgi, meter: Meter, limits: AddressLimits | None, settings: Settings) -> None:
        self._app = app
        self._full = full
        self._meter = meter
        self._limits = limits
        self._cors = bool(settings.cors_origins)
        rules = {rule.endpoint: rule.rule for rule in app.url_map.iter_rules()}
        self._rules = {route.endpoint: rules[route.endpoint] for route in ACTION_ROUTES.values()}
        self._without_body = {route.endpoint: _loaded_alone(route) for route in ACTION_ROUTES.values()}

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "POST":  # a read passes by at the cost of one look
            return self._full(environ, start_response)
        started = time.perf_counter()
        taken = self._taken(environ)
        if taken is None:
            return self._full(environ, start_response)
        limit_headers: LimitHeaders | None = None
        if self._limits is not None:
            limit_headers = self._limits.counted(environ)
            if limit_headers is None and not isinstance(taken.command, RequestTimeout):
                return self._full(environ, start_response)
        use_cases: UseCases = self._app.extensions["osmosis.use_cases"]
        try:
            if isinstance(taken.command, RequestTimeout):  # counted, as the full path counts it before it reads
                raise taken.command
            answered = use_cases.acting.handle(taken.command)
        except Exception as error:  # answered as the app's error handlers answer it
            return self._problem(environ, start_response, error, started, taken, limit_headers)
        headers = action_headers(answered)
        status, text = answer_of(answered, headers)
        body = text.encode()
        request_id = self._meter.request_id_for(environ.get(_ENVIRON_REQUEST_ID, ""))
        response_headers = [
            *headers.items(),
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            (REQUEST_ID_HEADER, request_id),
        ]
        if limit_headers is not None:
            response_headers += limit_headers(None)
        start_response(f"{status} {HTTP_STATUS_CODES[status].upper()}", response_headers)
        self._told(taken, status, "Idempotent-Replayed" in headers, request_id, started, "application/json", body)
        return [body]

    def _taken(self, environ: dict[str, Any]) -> _Taken | None:
        """The request's command when the short path answers it; None when the full path does."""
        if environ.get("QUERY_STRING"):
            return None
        matched = _PATH.fullmatch(environ.get("PATH_INFO", ""))
        if matched is None or (self._cors and "HTTP_ORIGIN" in environ):
            return None
        route = ACTION_ROUTES.get(matched.group(2))
        token = _game_token(environ.get("HTTP_AUTHORIZATION"))
        if route is None or token is None:
            return None
        if self._limits is not None and not self._limits.allow(environ):
            return None  # refused before its body is read, as the full path refuses it
        path = matched.group(0)
        try:
            body = self._body(environ)
        except RequestTimeout as too_slow:
            return _Taken(route, path, too_slow)
        if body is None:
            return None
        try:
            args = self._args(route, body)
            idempotency = idempotency_of(environ.get("HTTP_IDEMPOTENCY_KEY"), "POST", path, body, [])
            written: Written = {
                "versions": versions_of(args.get("expected_version"), environ.get("HTTP_IF_MATCH")),
                "idempotency": idempotency,
            }
            return _Taken(route, path, route.command(args, UUID(matched.group(1)), token, written))
        except Exception:  # nothing has happened yet: the full path answers it, as it answers every such request
            return None

    def _args(self, route: ActionRoute, body: Any) -> dict[str, Any]:
        """The body as its route's schema loads it; no body, or {}, as it loaded {} once (a draw's usual body)."""
        if body is missing or not body:
            alone = self._without_body[route.endpoint]
            if alone is None:
                raise ValidationError("the route's schema refuses an empty body")
            return dict(alone)
        loaded: dict[str, Any] = route.schema.load(body)
        return loaded

    def _body(self, environ: dict[str, Any]) -> Any:
        """The body as JSON (`missing`: none); None when the full path is to read it: chunked, too long, not JSON."""
        if "HTTP_TRANSFER_ENCODING" in environ:
            return None
        length = environ.get("CONTENT_LENGTH") or "0"
        if length == "0":
            return missing
        limit = self._app.config["MAX_CONTENT_LENGTH"]
        content_type = environ.get("CONTENT_TYPE", "").partition(";")[0].strip().lower()
        if not length.isdigit() or (limit is not None and int(length) > limit) or content_type != "application/json":
            return None
        with reading_deadline(self._app.config["BODY_SECONDS"]):
            data = environ["wsgi.input"].read(int(length))
        environ["wsgi.input"] = io.BytesIO(data)
        if len(data) != int(length):
            return None  # the client went away: werkzeug answers that
        environ[BODY_BYTES] = data
        try:
            body = strict_json.loads(data)
        except strict_json.JSONRefused:
            return None
        return body if isinstance(body, dict) else None

    def _problem(
        self,
        environ: dict[str, Any],
        start_response: Callable[..., Any],
        error: Exception,
        started: float,
        taken: _Taken,
        limit_headers: LimitHeaders | None,
    ) -> Iterable[bytes]:
        with self._app.app_context():
            response = problem_for(error)
        request_id = self._meter.request_id_for(environ.get(_ENVIRON_REQUEST_ID, ""))
        response.headers[REQUEST_ID_HEADER] = request_id
        if limit_headers is not None:
            response.headers.extend(limit_headers(response.headers.get("Retry-After")))
        self._told(
            taken, response.status_code, False, request_id, started, response.mimetype or "", response.get_data()
        )
        return response(environ, start_response)

    def _told(
        self, taken: _Taken, status: int, replayed: bool, request_id: str, started: float, mimetype: str, body: bytes
    ) -> None:
        """The metrics and the request log of an answer, and `action_answered`."""
        endpoint = taken.route.endpoint
        route = self._rules[endpoint]
        elapsed = time.perf_counter() - started
        self._meter.answered("POST", taken.path, route, endpoint, status, replayed, request_id, elapsed)
        if action_answered.receivers:
            action_answered.send(self, route=route, status=status, mimetype=mimetype, body=body)


def _loaded_alone(route: ActionRoute) -> dict[str, Any] | None:
    """What the route's schema makes of an empty body; None when it refuses one."""
    try:
        loaded: dict[str, Any] = route.schema.load({})
    except ValidationError:
        return None
    return loaded


def _game_token(authorization: str | None) -> str | None:
    """A game's player token, when the header is exactly `Bearer <token>` with one: what `callers.credential` and
    `callers.refused_authorization` both read alike. An API token names a player, whom the full path looks up."""
    if authorization is None or authorization != authorization.strip():
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token or token != token.strip() or " " in token or is_api_token(token):
        return None
    return token


def install(app: Flask, settings: Settings, meter: Meter, limits: AddressLimits | None) -> None:
    if settings.action_short_path:
        app.wsgi_app = ActionPath(app, app.wsgi_app, meter, limits, settings)  # type: ignore[method-assign]
