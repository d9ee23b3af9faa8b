"""What a request may carry: a body only as JSON (read once, strictly), and only the query parameters its
operation declares. Everything else is refused with a problem+json before any view runs, so no request
is half-understood: a body in another content type is never silently dropped, and with it a version.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, cast
from uuid import UUID

from flask import Flask, Response, current_app, request
from marshmallow import RAISE, fields
from webargs import core
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge, RequestTimeout

from ..log import strict_json
from ..service.ports import requester
from .clients import client
from .errors import BEARER_CHALLENGE, problem

_BODY = "osmosis.body"
BODY_BYTES = "osmosis.body-bytes"
"""Where the environ keeps the request's body once read (the actions' short path reads it before Flask does)."""
_NO_BODY: Any = core.missing


def json_body() -> Any:
    """The request's body as JSON, read once; `missing` when there is none. Raises BadRequest (400)."""
    cached = request.environ.get(_BODY, _NO_BODY)
    if cached is not _NO_BODY:
        return cached
    data = _body()
    value = _NO_BODY
    if data:
        try:
            value = strict_json.loads(data)
        except strict_json.JSONRefused as error:
            raise BadRequest(f"the body is not JSON this server reads: {error}") from None
    request.environ[_BODY] = value
    return value


def _body() -> bytes:
    """The body's bytes; RequestEntityTooLarge (413) when it is longer than MAX_CONTENT_LENGTH, and
    RequestTimeout (408) when it takes longer than BODY_SECONDS to arrive.

    Werkzeug refuses a longer Content-Length, but a chunked body it cuts at the limit and hands on the
    first part as if it were all: whether more follows is asked of the connection itself.
    """
    environ = request.environ
    cached: bytes | None = environ.get(BODY_BYTES)
    if cached is not None:  # read and checked once a request (the check before the view, then the view's parser)
        return cached
    if environ.get("CONTENT_LENGTH") in (None, "", "0") and "chunked" not in environ.get("HTTP_TRANSFER_ENCODING", ""):
        environ[BODY_BYTES] = b""  # no body announced, none streamed: werkzeug reads nothing of such a request either
        return b""
    with reading_deadline(current_app.config["BODY_SECONDS"]):
        data = request.get_data(cache=True)
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    if (
        request.content_length is None
        and limit is not None
        and len(data) >= limit
        and request.environ["wsgi.input"].read(1)
    ):
        raise RequestEntityTooLarge()
    request.environ[BODY_BYTES] = data
    return data


def reading_deadline(seconds: float) -> AbstractContextManager[object]:
    """A time limit on reading from the client. Under gevent's workers a slow client holds only its own
    greenlet, and this ends it; under threads (the tests) there is nothing to limit."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is None or not monkey.is_module_patched("socket"):
        return contextlib.nullcontext()
    import gevent

    too_slow = RequestTimeout(f"the body did not arrive within {seconds:g} seconds")
    return cast(AbstractContextManager[object], gevent.Timeout(seconds, too_slow))


class Parser(FlaskParser):
    """webargs' parser, reading bodies through json_body and holding query strings to their schemas.

    webargs would read the body again with Python's lenient json module, and by default ignores unknown
    query parameters whatever the schema says.
    """

    DEFAULT_UNKNOWN_BY_LOCATION = {  # noqa: RUF012 -- webargs reads it from the class
        **FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION,
        "query": RAISE,
        "querystring": RAISE,
    }

    def _raw_load_json(self, req: Any) -> Any:
        return json_body()


class _Operation:
    """What one documented operation takes: a JSON body or not, the query parameters it declares (which of them may
    come more than once: the lists), and whether it reads the Authorization header (its contract lists 401: every
    operation but the probes, which answer an orchestrator whatever it sends)."""

    def __init__(self, locations: set[str], query: dict[str, bool], authorizes: bool) -> None:
        self.authorizes = authorizes
        self.takes_body = "json" in locations
        self.query = frozenset(query)
        self.lists = frozenset(name for name, is_list in query.items() if is_list)


def install(
    app: Flask, player_calling: Callable[[], UUID | None], refused_authorization: Callable[[], str | None]
) -> None:
    """Refuse, before any view, an Authorization header that cannot be honoured (`refused_authorization` says why), a
    body that is not JSON and query parameters the operation does not know; and note
    whose solver turns the request's work takes, if it has any: the player of its live API token (players behind
    one address, a school or a carrier's NAT, do not share one client's two jobs), else its address."""
    operations = _documented_operations(app)

    def requester_of_request() -> str:
        player = player_calling()
        return f"player:{player}" if player is not None else client(request.environ)

    @app.before_request
    def check() -> Response | None:
        requester.set(requester_of_request)
        operation = operations.get((request.endpoint or "", request.method))
        if operation is None:  # not an API operation: the front end, /metrics, the OpenAPI document
            return None
        refused = refused_authorization() if operation.authorizes else None
        if refused is not None:
            return problem(401, "unauthorized", refused, {"WWW-Authenticate": BEARER_CHALLENGE})
        return _refused_query(operation) or _refused_body(operation)


def _refused_query(operation: _Operation) -> Response | None:
    """A parameter the operation does not take, or one given twice that is not a list."""
    if not request.environ.get("QUERY_STRING"):
        return None  # nothing to parse: an action's usual request
    repeated = sorted(
        {name for name, values in request.args.lists() if len(values) > 1 and name not in operation.lists}
    )
    unknown = sorted(set(request.args) - operation.query)
    if not (repeated or unknown):
        return None
    errors = {name: ["Unknown field."] for name in unknown}
    errors.update({name: ["Given more than once."] for name in repeated})
    detail = "the query string has parameters this operation does not take: see errors"
    return problem(422, "validation-failed", detail, errors=errors)


def _refused_body(operation: _Operation) -> Response | None:
    """A body that is not JSON, or any body but {} for an operation that takes none."""
    if request.method in ("GET", "HEAD") or not _body():
        return None
    if not request.is_json:
        detail = "send the body as JSON, with Content-Type: application/json"
        return problem(415, "unsupported-media-type", detail, {"Accept-Post": "application/json"})
    if not operation.takes_body and json_body() != {}:
        detail = f"{request.method} {request.path} takes no body"
        return problem(422, "validation-failed", detail, errors={"body": ["This operation takes no body."]})
    return None


def _documented_operations(app: Flask) -> dict[tuple[str, str], _Operation]:
    operations = {}
    for endpoint, view in app.view_functions.items():
        view_class = getattr(view, "view_class", None)
        for method in getattr(view_class, "methods", None) or ():
            arguments = declared_arguments(view_class, method)
            if arguments is not None:
                locations, query = arguments
                responses = getattr(view_class, method.lower())._apidoc.get("manual_doc", {}).get("responses", {})
                operations[endpoint, method] = _Operation(locations, query, "401" in responses)
    return operations


def declared_arguments(view_class: Any, method: str) -> tuple[set[str], dict[str, bool]] | None:
    """Where a view's operation takes arguments from, and the query parameters it reads (each: whether it is a
    list), from its `@blp.arguments`; None for a view that is not an API operation."""
    documentation = getattr(getattr(view_class, method.lower()), "_apidoc", None)
    if documentation is None:
        return None
    parameters = documentation.get("arguments", {}).get("parameters", [])
    query = {
        field.data_key or name: isinstance(field, fields.List)
        for parameter in parameters
        if parameter["in"] == "query"
        for name, field in _instance(parameter["schema"]).fields.items()
    }
    return {parameter["in"] for parameter in parameters}, query


def _instance(schema: Any) -> Any:
    return schema() if isinstance(schema, type) else schema
