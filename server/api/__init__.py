"""The HTTP API: the Flask app with its routes, the OpenAPI setup, and the blueprints. The parts it runs on (a
service, the live hub) are put in by the composition root, server/runtime/app.py."""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
import threading
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, current_app
from flask import json as flask_json
from flask_cors import CORS
from flask_smorest import Api as SmorestApi

from ..config import Settings
from . import contract, errors, examples, front_end, routes

API_TITLE = "Osmosis game server"
API_VERSION = importlib.metadata.version("osmosis-server")
API_DESCRIPTION = """\
Play Osmosis (Treasure Trove) patience and its variants over HTTP. Every action is an event in an
append-only, hash-chained move log; every game body carries the public view of the position, the legal
actions, the version (for `If-Match` / `expected_version`) and the head of the hash chain.

A bot's loop: create a game (`createGame`), keep its `player_token`, then read the game, pick one of
its `legal_actions` and post it as it is (`takeAction`), until `status` is no longer `playing`.

Writes need the game's player token (`Authorization: Bearer <player_token>`), returned once when the
game is created. Every POST accepts an `Idempotency-Key`. Errors are RFC 9457 `application/problem+json`
bodies with a stable `code`; each operation lists the codes it can answer.

Words: a *deal* is two things here. The shuffle that lays out a game is a deal (`deal_number`,
`POST /deals` for a sealed one, `deal` in a game body); taking cards from the stock to the waste is
the action `deal` (`cards_dealt` in the log, `POST /games/{game_id}/draw`). See docs/api.md.
"""


class _Flask(Flask):
    """Flask, asking once per function whether it is a coroutine function instead of on every call: Flask,
    MethodView and flask-smorest ask again for every request, half a dozen times a request."""

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        if _is_coroutine_function(getattr(func, "__func__", func)):
            return self.async_to_sync(func)
        return func


# Bounded: the functions asked about are the app's views and hooks, a fixed set.
_is_coroutine_function = functools.lru_cache(maxsize=1024)(inspect.iscoroutinefunction)


class Api(SmorestApi):  # type: ignore[misc]
    """flask-smorest, with problem+json for every documented and actual error, and the document written when it is
    first read: a blueprint's routes are registered at once, its views' documentation (some 0.15 s of every worker's
    start, most of it flask-smorest copying each view's doc) when the document is asked for."""

    def __init__(self, app: Flask, **options: Any) -> None:
        self._undocumented: list[tuple[Any, str, Any]] = []
        self._documenting = threading.Lock()
        self._document: dict[str, Any] | None = None
        super().__init__(app, **options)

    def register_blueprint(self, blp: Any, *, parameters: Any = None, **options: Any) -> None:
        """flask-smorest's, less the views' documentation, which `document` writes, in the same order."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        self._undocumented.append((blp, name, parameters))

    def _register_error_handlers(self) -> None:
        errors.register(self._app)

    def _register_pagination_header(self) -> None:
        """Paging here is keyset paging with a Link header, not flask-smorest's page numbers."""

    def _register_responses(self) -> None:
        """The contract's own: the error responses with their codes, the shared components (contract.py)."""
        contract.register(self.spec)

    def document(self) -> dict[str, Any]:
        """The OpenAPI document, its examples made (examples.Later): written once, at the first call (some examples,
        a verification among them, are worked out anew each time they are made)."""
        with self._documenting:
            if self._document is None:
                for blp, name, parameters in self._undocumented:
                    blp.register_views_in_doc(self, self._app, self.spec, name=name, parameters=parameters)
                    self.spec.tag({"name": name, "description": blp.description})
                self._undocumented.clear()
                self._document = examples.rendered(self.spec.to_dict())
            return self._document

    def _openapi_json(self) -> Response:
        """flask-smorest's route of the document, with the examples made."""
        return current_app.response_class(
            flask_json.dumps(self.document(), indent=2, sort_keys=False), mimetype="application/json"
        )


def _app_and_api() -> tuple[Flask, Api]:
    app = _Flask(__name__)
    app.config.update(
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        API_SPEC_OPTIONS={
            "info": {
                "description": API_DESCRIPTION,
                "license": {"name": "MIT", "url": "https://spdx.org/licenses/MIT.html"},
            },
            "servers": [{"url": "/"}],
            "externalDocs": {
                "description": "The API guide: vocabulary, acting, versions, retries, errors by "
                "operation, live updates",
                "url": "/docs/api.md",
            },
        },
        MAX_CONTENT_LENGTH=4 * 1024 * 1024,  # a replay export of a long game
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    api = Api(app, spec_kwargs={"marshmallow_plugin": contract.ContractPlugin()})
    api.spec.components.security_scheme(
        "playerToken",
        {"type": "http", "scheme": "bearer", "description": "The player_token returned when the game was created."},
    )
    api.spec.components.security_scheme(
        "apiToken",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "A player's API token (`osm_…`): `createPlayer` gives the first, `createApiToken` more. Its "
            "scopes say what it may do.",
        },
    )
    for blueprint in routes.blueprints():
        api.register_blueprint(blueprint)
    return app, api


CORS_REQUEST_HEADERS = [
    "Authorization",
    "Content-Type",
    "Idempotency-Key",
    "If-Match",
    "If-None-Match",
    "Last-Event-ID",
]
CORS_RESPONSE_HEADERS = ["ETag", "Location", "Link", "Retry-After", "Idempotent-Replayed"]


def http_app(settings: Settings) -> Flask:
    """The Flask app with every route of the API and the front end, its OpenAPI document, and CORS as
    `settings` allow it: no service yet (server/runtime/app.py puts one in)."""
    app, _ = _app_and_api()
    app.config["BODY_SECONDS"] = settings.body_seconds
    if settings.cors_origins:
        CORS(
            app,
            origins=list(settings.cors_origins),
            allow_headers=CORS_REQUEST_HEADERS,
            expose_headers=CORS_RESPONSE_HEADERS,
            max_age=600,
        )
    app.register_blueprint(front_end.blp)
    return app


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document, as committed in openapi/openapi.json; needs no database."""
    _, api = _app_and_api()
    return api.document()
