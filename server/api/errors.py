"""Every error becomes an RFC 9457 problem+json body with a stable `code`; the mapping is this one table."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any
from uuid import UUID

from flask import Flask, Response, current_app, json
from werkzeug.exceptions import HTTPException

from ..game.competitions import (
    CompetitionFull,
    EntriesClosed,
    NotEligible,
    NotStarted,
    StartClosed,
)
from ..game.errors import ClockExpired, DayClosed, HintsOff, UndoInCompetition, VersionConflict
from ..rules import GameOver, IllegalAction, InvalidInput, InvalidRules
from ..service.errors import (
    AlreadyEntered,
    AlreadyStarted,
    ApiTokenNotFound,
    CompetitionNotClosed,
    CompetitionNotFound,
    DailyDealPlayed,
    DayNotClosed,
    DayNotOpened,
    EventNotFound,
    Forbidden,
    GameGone,
    GameNotFound,
    GameNotOver,
    IdempotencyKeyReused,
    InvalidCursor,
    LogBehind,
    LogNotStarted,
    NameTaken,
    NotEntered,
    NotYetInLog,
    PlayerNotFound,
    ResultsFinal,
    SealedDealNotFound,
    SealedDealUsed,
    SolverBusy,
    SolverSaturated,
    StoreUnavailable,
    TileNotFound,
    TooManyCompetitions,
    TooManyTokens,
    Unauthorized,
)
from ..service.players.names import NameRefused, NameReserved
from ..solver.winnable import NoWinnableDeal

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger(__name__)

# Order matters: the first matching class wins, so subclasses come before their bases.
ERRORS: list[tuple[type[Exception], HTTPStatus, str]] = [
    (GameNotFound, HTTPStatus.NOT_FOUND, "game-not-found"),
    (GameGone, HTTPStatus.GONE, "game-gone"),
    (SealedDealNotFound, HTTPStatus.NOT_FOUND, "sealed-deal-not-found"),
    (EventNotFound, HTTPStatus.NOT_FOUND, "event-not-found"),
    (TileNotFound, HTTPStatus.NOT_FOUND, "not-in-log"),
    (LogNotStarted, HTTPStatus.NOT_FOUND, "log-not-started"),
    (PlayerNotFound, HTTPStatus.NOT_FOUND, "player-not-found"),
    (ApiTokenNotFound, HTTPStatus.NOT_FOUND, "token-not-found"),
    (DayNotOpened, HTTPStatus.NOT_FOUND, "day-not-found"),
    (NameTaken, HTTPStatus.CONFLICT, "name-taken"),
    (DailyDealPlayed, HTTPStatus.CONFLICT, "daily-deal-played"),
    (DayClosed, HTTPStatus.CONFLICT, "day-closed"),
    (DayNotClosed, HTTPStatus.CONFLICT, "day-not-closed"),
    (TooManyTokens, HTTPStatus.CONFLICT, "too-many-tokens"),
    (NameReserved, HTTPStatus.CONFLICT, "name-reserved"),
    (NameRefused, HTTPStatus.UNPROCESSABLE_ENTITY, "invalid-name"),
    (SealedDealUsed, HTTPStatus.CONFLICT, "sealed-deal-used"),
    (GameOver, HTTPStatus.CONFLICT, "game-over"),
    (IllegalAction, HTTPStatus.CONFLICT, "illegal-action"),
    (GameNotOver, HTTPStatus.CONFLICT, "game-not-over"),
    (NoWinnableDeal, HTTPStatus.UNPROCESSABLE_ENTITY, "no-winnable-deal"),
    (InvalidRules, HTTPStatus.UNPROCESSABLE_ENTITY, "invalid-rules"),
    (InvalidInput, HTTPStatus.UNPROCESSABLE_ENTITY, "invalid-input"),
    (InvalidCursor, HTTPStatus.UNPROCESSABLE_ENTITY, "invalid-cursor"),
    (IdempotencyKeyReused, HTTPStatus.UNPROCESSABLE_ENTITY, "idempotency-key-reused"),
    (VersionConflict, HTTPStatus.PRECONDITION_FAILED, "version-conflict"),
    (Unauthorized, HTTPStatus.UNAUTHORIZED, "unauthorized"),
    (Forbidden, HTTPStatus.FORBIDDEN, "forbidden"),
    (LogBehind, HTTPStatus.SERVICE_UNAVAILABLE, "log-behind"),
    (StoreUnavailable, HTTPStatus.SERVICE_UNAVAILABLE, "service-unavailable"),
    (SolverBusy, HTTPStatus.TOO_MANY_REQUESTS, "solver-busy"),
    (SolverSaturated, HTTPStatus.SERVICE_UNAVAILABLE, "solver-saturated"),
    (CompetitionNotFound, HTTPStatus.NOT_FOUND, "competition-not-found"),
    (TooManyCompetitions, HTTPStatus.CONFLICT, "too-many-competitions"),
    (EntriesClosed, HTTPStatus.CONFLICT, "entries-closed"),
    (AlreadyEntered, HTTPStatus.CONFLICT, "already-entered"),
    (CompetitionFull, HTTPStatus.CONFLICT, "competition-full"),
    (NotEligible, HTTPStatus.FORBIDDEN, "not-eligible"),
    (NotYetInLog, HTTPStatus.CONFLICT, "not-yet-logged"),
    (NotEntered, HTTPStatus.FORBIDDEN, "not-entered"),
    (AlreadyStarted, HTTPStatus.CONFLICT, "already-started"),
    (NotStarted, HTTPStatus.CONFLICT, "not-started"),
    (StartClosed, HTTPStatus.CONFLICT, "start-closed"),
    (ClockExpired, HTTPStatus.CONFLICT, "clock-expired"),
    (UndoInCompetition, HTTPStatus.CONFLICT, "undo-in-competition"),
    (HintsOff, HTTPStatus.CONFLICT, "hints-off"),
    (CompetitionNotClosed, HTTPStatus.CONFLICT, "competition-not-closed"),
    (ResultsFinal, HTTPStatus.CONFLICT, "results-final"),
]

HTTP_CODES = {
    400: "bad-request",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    408: "request-timeout",
    413: "payload-too-large",
    414: "uri-too-long",
    415: "unsupported-media-type",
    417: "expectation-failed",
    422: "validation-failed",
    428: "precondition-required",
    429: "rate-limited",
    431: "request-header-fields-too-large",
    500: "internal-error",
    501: "not-implemented",
}

NOT_READY = "not-ready"
RETRY_AFTER_SECONDS = "1"
SOLVER_RETRY_AFTER_SECONDS = "2"
"""What a client refused solver time is told to wait: about one job's time."""
OPT_IN = frozenset((NOT_READY, "solver-busy", "solver-saturated", "not-in-log", "log-not-started", "log-behind"))
"""Codes an operation's documentation lists only when it names them: few operations can answer them."""


def codes_of(status: int) -> list[str]:
    """The problem codes this server answers with `status`."""
    codes = [code for _, error_status, code in ERRORS if error_status == status]
    if status in HTTP_CODES:
        codes.append(HTTP_CODES[status])
    if status == HTTPStatus.SERVICE_UNAVAILABLE:
        codes.append(NOT_READY)
    return codes


def every_code() -> list[str]:
    return [*dict.fromkeys([code for _, _, code in ERRORS] + list(HTTP_CODES.values()) + [NOT_READY])]


BEARER_CHALLENGE = 'Bearer realm="osmosis"'


def problem(status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any) -> Response:
    body = {
        "type": f"urn:osmosis:problem:{code}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)
    response.headers.update(headers or {})
    return response


def register(app: Flask) -> None:
    for error_class, handler in _handlers().items():
        app.register_error_handler(error_class, handler)


def problem_for(error: Exception) -> Response:
    """The answer Flask's error handlers give `error` (the nearest class handled, as Flask finds it), for a request
    answered outside Flask's dispatch; needs the app's context."""
    handlers = _handlers()
    for error_class in type(error).__mro__:
        if error_class in handlers:
            return handlers[error_class](error)
    return _handle_unexpected(error)


@functools.cache
def _handlers() -> dict[type[Exception], Callable[[Any], Response]]:
    handlers: dict[type[Exception], Callable[[Any], Response]] = {}
    for error_class, status, code in ERRORS:
        handlers.setdefault(error_class, _handler(status, code))
    handlers[GameNotFound] = _game_not_found
    handlers[HTTPException] = handle_http_exception
    handlers[Exception] = _handle_unexpected
    return handlers


def _handler(status: HTTPStatus, code: str) -> Callable[[Exception], Response]:
    def handle(error: Exception) -> Response:
        extra: dict[str, Any] = {}
        headers: dict[str, str] = {}
        if isinstance(error, IllegalAction) and not isinstance(error, GameOver):
            extra["rule"] = error.rule
        if isinstance(error, GameGone):
            extra["log_entry"] = error.log_entry
        if status == HTTPStatus.UNAUTHORIZED:
            headers["WWW-Authenticate"] = BEARER_CHALLENGE
        if status == HTTPStatus.SERVICE_UNAVAILABLE:
            headers["Retry-After"] = RETRY_AFTER_SECONDS
        if isinstance(error, SolverBusy | SolverSaturated):
            headers["Retry-After"] = SOLVER_RETRY_AFTER_SECONDS
        if isinstance(error, NotStarted):
            headers["Retry-After"] = str(error.retry_after)
        if isinstance(error, NotYetInLog):
            headers["Retry-After"] = SOLVER_RETRY_AFTER_SECONDS
        return problem(status.value, code, str(error), headers, **extra)

    return handle


_not_found = _handler(HTTPStatus.NOT_FOUND, "game-not-found")
_gone = _handler(HTTPStatus.GONE, "game-gone")


def _game_not_found(error: GameNotFound) -> Response:
    """410 Gone for a game the public log saw created but the database lacks (restored from an older backup), so
    that its player learns what happened; 404 for any other."""
    use_cases = current_app.extensions.get("osmosis.use_cases")
    game_id = error.game_id
    if use_cases is not None and isinstance(game_id, UUID):
        entry = use_cases.public_log.creation_logged(game_id)
        if entry is not None:
            return _gone(GameGone(game_id, entry))
    return _not_found(error)


def handle_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    headers = {key: value for key, value in error.get_headers() if key.lower() != "content-type"}
    data = getattr(error, "data", None) or {}
    extra: dict[str, Any] = {}
    detail = error.description or HTTPStatus(status).phrase
    if "messages" in data:
        extra["errors"] = _flatten_locations(data["messages"])
        detail = "the request has invalid fields: see errors"
    elif "message" in data:
        detail = data["message"]
    return problem(
        status, HTTP_CODES.get(status, HTTPStatus(status).phrase.lower().replace(" ", "-")), detail, headers, **extra
    )


def _flatten_locations(messages: dict[str, Any]) -> dict[str, Any]:
    """webargs nests errors by location ("json", "query"); clients care about the fields."""
    flat: dict[str, Any] = {}
    for location, fields in messages.items():
        if isinstance(fields, dict):
            flat.update(fields)
        else:
            flat[location] = fields
    return flat


def _handle_unexpected(error: Exception) -> Response:
    # The detail stays generic: an unexpected error's text is for the log, never for the client.
    log.exception("unhandled error", exc_info=error)
    return problem(500, "internal-error", "the server failed to handle this request; it has been logged")
