"""What every blueprint needs: its Blueprint class, the use cases, and the request's Idempotency-Key."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

import flask_smorest
from flask import Response, current_app, request
from webargs.core import missing

from ..game.commands import Idempotency
from ..live.hub import Hub
from ..rules import InvalidInput
from ..service.use_cases import UseCases
from .boundary import Parser, json_body
from .schemas import IDEMPOTENCY_KEY_PATTERN

_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)

View = Callable[..., Any]


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """flask-smorest's Blueprint, without the layers its documenting decorators add at run time, and with the
    parameters `doc` names added to those its `arguments` document, not put in their place.

    `doc` and `alt_response` only add to the OpenAPI document, yet each wraps the view in a function
    that calls it through `current_app.ensure_sync`: a write route with its seven documented errors
    paid for eight such calls on every request. Here they attach their documentation to the view
    itself; the OpenAPI document is the same. flask-smorest's own `doc(parameters=...)` replaces the
    query parameters `@arguments` documents, so that a generated SDK could not send them.
    """

    ARGUMENTS_PARSER = Parser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prepare_doc_cbks.append(_add_named_parameters)

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[View], View]:
        parameters = kwargs.pop("parameters", [])
        documented = _documentation_only(flask_smorest.Blueprint.doc(**kwargs))

        def attach(view: View) -> View:
            documented(view)._apidoc.setdefault(_NAMED_PARAMETERS, []).extend(parameters)  # type: ignore[attr-defined]
            return view

        return attach

    def alt_response(self, status_code: int, **kwargs: Any) -> Callable[[View], View]:
        return _documentation_only(super().alt_response(status_code, **kwargs))


_NAMED_PARAMETERS = "osmosis_parameters"


def _add_named_parameters(doc: dict[str, Any], doc_info: dict[str, Any], **_: Any) -> dict[str, Any]:
    named = doc_info.get(_NAMED_PARAMETERS, [])
    if named:
        doc["parameters"] = [*doc.get("parameters", []), *named]
    return doc


def _documentation_only(decorator: Callable[[View], View]) -> Callable[[View], View]:
    def attach(view: View) -> View:
        view._apidoc = decorator(view)._apidoc  # type: ignore[attr-defined]
        return view

    return attach


def etag(version: int) -> str:
    """A game's entity tag: its version."""
    return f'"{version}"'


def use_cases() -> UseCases:
    """The server's use cases, as the composition root built them (server/runtime/composition.py)."""
    found: UseCases = current_app.extensions["osmosis.use_cases"]
    return found


def live_hub() -> Hub:
    found: Hub = current_app.extensions["osmosis.hub"]
    return found


def event_stream(messages: Iterator[str]) -> Response:
    """Server-sent events, passed on as they come (nginx buffers nothing of them either)."""
    return Response(
        messages, mimetype="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )


def request_idempotency(answer_holds_a_secret: bool = False) -> Idempotency | None:
    """The request's Idempotency-Key, with a digest of the request to tell a retry from another request.

    `answer_holds_a_secret`: the first answer carries a token made for its caller (a sign-up's API token, a new
    game's player token), which a retry gets again; it is then kept for the same client address only, so that the
    key and the body, should they leak, do not hand the token to someone else (docs/api.md, "Idempotency")."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    caller = [request.remote_addr] if answer_holds_a_secret else []
    return idempotency_of(key, request.method, request.path, json_body(), caller)


def idempotency_of(key: str | None, method: str, path: str, body: Any, caller: list[str | None]) -> Idempotency | None:
    """An Idempotency-Key and the digest of the request it names (`body`: `missing` when there is none)."""
    if key is None:
        return None
    if _IDEMPOTENCY_KEY.fullmatch(key) is None:
        raise InvalidInput("Idempotency-Key must be 1 to 255 visible ASCII characters (spaces allowed between them)")
    fingerprint = hashlib.sha256(
        json.dumps(
            [method, path, None if body is missing else body, *caller],
            sort_keys=True,
            separators=(",", ":"),
        ).encode()
    ).hexdigest()
    return Idempotency(key, fingerprint)


def day_named(day: str) -> date:
    """A UTC day as a path names it, 2026-11-24; InvalidInput if it is not one."""
    try:
        return date.fromisoformat(day) if len(day) == 10 else date.fromisoformat("")
    except ValueError:
        raise InvalidInput(f"{day[:40]!r} is not a day: write it as 2026-11-24") from None
