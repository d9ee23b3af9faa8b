"""Games: create, read, list, act (move, draw, resign) and read the move log."""

from __future__ import annotations

import re
from http import HTTPStatus
from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from flask import Response, current_app, request
from flask.views import MethodView

from ..documents import to_json
from ..repository import VersionConflict
from ..rules import InvalidInput, Rules, preset
from ..service import MAX_SEQ, Result, Unauthorized
from . import streams
from .common import IDEMPOTENCY_KEY, Blueprint, event_stream, game_service, live_hub, request_idempotency, written
from .pusher import CAN_HAND_OVER
from .schemas import (
    ActionRequestSchema,
    ActionResultSchema,
    CreatedGameSchema,
    CreateGameSchema,
    EventListSchema,
    EventQuerySchema,
    EventStreamHeadersSchema,
    EventStreamQuerySchema,
    GameListQuerySchema,
    GameListSchema,
    GameSchema,
    MoveSchema,
    ReplaySchema,
    StateAtSchema,
    VerdictSchema,
    move_from_request,
)

blp = Blueprint("games", __name__, url_prefix="/games", description="Games and their move logs")
# Every @blp.arguments takes a schema instance, not its class: given a class, webargs builds a new schema
# on every request.

IF_MATCH = {
    "name": "If-Match",
    "in": "header",
    "required": False,
    "description": "The game's ETag: the action is refused with 412 if the game has moved on.",
    "schema": {"type": "string"},
}
ETAG_HEADER = {"ETag": {"description": "The game's version, for If-None-Match and If-Match.",
                        "schema": {"type": "string"}}}
LINK_HEADER = {"Link": {"description": 'The next page, as <url>; rel="next", when there is one.',
                        "schema": {"type": "string"}}}
WRITE_ERRORS = ("UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "PRECONDITION_FAILED",
                "UNPROCESSABLE_ENTITY", "SERVICE_UNAVAILABLE")


def _etag(version: int) -> str:
    return f'"{version}"'


def _bearer_token() -> str:
    """The player token; checked before anything else in the request, so that no one learns more."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("this action needs the game's player token: Authorization: Bearer <player_token>")
    return token.strip()


def _expected_versions(args: dict[str, Any]) -> frozenset[int] | None:
    """The versions the action may be taken on (None: any), from `expected_version` in the body and the
    If-Match header; when both are given, the body's version must be one the header names."""
    from_body = args.get("expected_version")
    if_match = request.headers.get("If-Match")
    if if_match is None or if_match.strip() == "*":
        return None if from_body is None else frozenset((from_body,))
    named = _versions_named(if_match)
    if from_body is None:
        return named
    if from_body not in named:
        raise InvalidInput(f"If-Match names other versions than expected_version ({from_body})")
    return frozenset((from_body,))


_ENTITY_TAG = re.compile(r'\s*(?:W/)?"([^"]*)"\s*|\s*([0-9]+)\s*')


def _versions_named(if_match: str) -> frozenset[int]:
    """The versions an If-Match list names (RFC 9110: any of them may match). A weak tag counts like a strong
    one: a version names the game exactly, and proxies that compress make tags weak. A tag that is not a
    version of any game, or a list that cannot be read, names none, and the action is refused with 412."""
    versions = set()
    for element in if_match.split(","):
        match = _ENTITY_TAG.fullmatch(element)
        if match is None:
            raise VersionConflict("If-Match is not a list of ETags like \"3\"")
        tag = match.group(1) if match.group(1) is not None else match.group(2)
        if tag.isascii() and tag.isdigit() and len(tag) <= 10:
            versions.add(int(tag))
    if not versions:
        raise VersionConflict("If-Match names no version of this game: its ETag is its version, like \"3\"")
    return frozenset(versions)


def _json(body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """The body as JSON, as the service made it. The schemas in the decorators document these bodies
    (and schemathesis checks the two agree); dumping them through marshmallow again would only cost time
    on the hottest paths."""
    return Response(to_json(body), status=status, headers=headers, mimetype="application/json")


def _action_response(result: Result) -> Response:
    return written(result, {"ETag": _etag(result.body["game"]["version"])})


def _link_next(path: str, params: dict[str, Any]) -> dict[str, str]:
    return {"Link": f'<{path}?{urlencode(params)}>; rel="next"'}


@blp.route("")
class Games(MethodView):
    @blp.doc(operationId="createGame", parameters=[IDEMPOTENCY_KEY])
    @blp.arguments(CreateGameSchema(), required=False, example={"variant": "osmosis", "deal_number": 4711})
    @blp.response(201, CreatedGameSchema, headers={
        "Location": {"description": "The new game's URL.", "schema": {"type": "string"}}, **ETAG_HEADER})
    @blp.alt_response(404, response="NOT_FOUND")
    @blp.alt_response(409, response="CONFLICT")
    @blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
    @blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def post(self, args: dict[str, Any]) -> Response:
        """Create a game from a preset or custom rules, optionally a public deal number"""
        rules = Rules.from_mapping(args["rules"]) if "rules" in args else preset(args.get("variant", "osmosis"))
        result = game_service().create_game(rules, args.get("deal_number"), request_idempotency(),
                                            args.get("sealed_deal_id"), args.get("client_seed", ""))
        game = result.body
        return written(result, {"Location": f"/games/{game['id']}", "ETag": _etag(game["version"])})

    @blp.doc(operationId="listGames")
    @blp.arguments(GameListQuerySchema(), location="query")
    @blp.response(200, GameListSchema, headers=LINK_HEADER)
    @blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
    @blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self, args: dict[str, Any]) -> Response:
        """List games, newest first (keyset pagination: follow the Link header)"""
        games, cursor = game_service().list_games(args["limit"], args.get("cursor"))
        headers = _link_next("/games", {"limit": args["limit"], "cursor": cursor}) if cursor else {}
        return _json({"games": games}, headers=headers)


@blp.route("/<uuid:game_id>")
class Game(MethodView):
    @blp.doc(operationId="getGame", parameters=[
        {"name": "If-None-Match", "in": "header", "required": False, "schema": {"type": "string"},
         "description": "The ETag you have: 304 Not Modified if the game has not moved since."}])
    @blp.response(200, GameSchema, headers=ETAG_HEADER)
    @blp.alt_response(304, description="Not modified since the ETag in If-None-Match")
    @blp.alt_response(404, response="NOT_FOUND")
    @blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self, game_id: UUID) -> Response:
        """Read a game: public view, legal actions, version and chain head"""
        version, document = game_service().get_game(game_id)
        etag = _etag(version)
        if etag in {tag.strip().removeprefix("W/") for tag in request.headers.get("If-None-Match", "").split(",")}:
            return Response(status=304, headers={"ETag": etag})
        return Response(document, headers={"ETag": etag}, mimetype="application/json")


def _write_doc(operation_id: str) -> Any:
    return blp.doc(operationId=operation_id, parameters=[IDEMPOTENCY_KEY, IF_MATCH],
                   security=[{"playerToken": []}])


def _write_errors(view: Any) -> Any:
    for name in WRITE_ERRORS:
        view = blp.alt_response(HTTPStatus[name].value, response=name)(view)
    return view


@blp.route("/<uuid:game_id>/moves")
class Moves(MethodView):
    @_write_doc("playMove")
    @blp.arguments(MoveSchema(), example={"card": "7S"})
    @blp.response(200, ActionResultSchema, headers=ETAG_HEADER)
    @_write_errors
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Play a card to its foundation, or to the free cell with "to": "cell\""""
        token, idempotency = _bearer_token(), request_idempotency()
        result = game_service().move(game_id, token, move_from_request(args), _expected_versions(args), idempotency)
        return _action_response(result)


@blp.route("/<uuid:game_id>/draw")
class Draw(MethodView):
    @_write_doc("drawCards")
    @blp.arguments(ActionRequestSchema(), required=False, example={"expected_version": 3})
    @blp.response(200, ActionResultSchema, headers=ETAG_HEADER)
    @_write_errors
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Deal from the stock to the waste, or redeal the waste when the stock is empty"""
        token, idempotency = _bearer_token(), request_idempotency()
        return _action_response(game_service().draw(game_id, token, _expected_versions(args), idempotency))


@blp.route("/<uuid:game_id>/resign")
class Resignation(MethodView):
    @_write_doc("resignGame")
    @blp.arguments(ActionRequestSchema(), required=False, example={})
    @blp.response(200, ActionResultSchema, headers=ETAG_HEADER)
    @_write_errors
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Give up the game: it ends as resigned and its seeds are revealed"""
        token, idempotency = _bearer_token(), request_idempotency()
        return _action_response(game_service().resign(game_id, token, _expected_versions(args), idempotency))


@blp.route("/<uuid:game_id>/events")
class Events(MethodView):
    @blp.doc(operationId="listGameEvents")
    @blp.arguments(EventQuerySchema(), location="query")
    @blp.response(200, EventListSchema, headers=LINK_HEADER)
    @blp.alt_response(404, response="NOT_FOUND")
    @blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
    @blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Read the move log: events with seq > after, oldest first; with wait, a long poll"""
        events, next_after = streams.wait_for_events(game_service(), live_hub(), game_id, args["after"], args["limit"],
                                                     args["wait"])
        headers = {}
        if next_after is not None:
            headers = _link_next(f"/games/{game_id}/events", {"after": next_after, "limit": args["limit"]})
        return _json({"events": events}, headers=headers)


@blp.route("/<uuid:game_id>/states/<int:seq>")
class StateAt(MethodView):
    @blp.doc(operationId="getGameStateAt")
    @blp.response(200, StateAtSchema)
    @blp.alt_response(404, response="NOT_FOUND")
    @blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self, game_id: UUID, seq: int) -> Response:
        """Time travel: the public view and legal actions right after event seq"""
        return _json(game_service().state_at(game_id, seq))


@blp.route("/<uuid:game_id>/replay")
class Replay(MethodView):
    @blp.doc(operationId="getGameReplay")
    @blp.response(200, ReplaySchema)
    @blp.alt_response(404, response="NOT_FOUND")
    @blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self, game_id: UUID) -> dict[str, Any]:
        """Export the game as an osmosis-replay/1 document, for offline verification"""
        return game_service().replay(game_id)


@blp.route("/<uuid:game_id>/verification")
class Verification(MethodView):
    @blp.doc(operationId="getGameVerification")
    @blp.response(200, VerdictSchema)
    @blp.alt_response(404, response="NOT_FOUND")
    @blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self, game_id: UUID) -> dict[str, Any]:
        """Re-check the game from its stored log: commitment, deal, every move, the hash chain, the projection"""
        return game_service().verification(game_id)


STREAM_EXAMPLE = (
    'event: game\ndata: {"id":"65eee5b0-…","status":"playing","version":2,…}\n\n'
    'id: 2\ndata: {"seq":2,"kind":"cards_dealt","data":{"cards":["AS","5H","TH"]},"hash":"…"}\n\n'
)
STREAM_DESCRIPTION = (
    "Server-sent events. The first message (event `game`) is the game as GET /games/{game_id} shows it; then "
    "each event of the log after `after` (or after the Last-Event-ID header), one message each, with the "
    "event's seq as its id and the event as JSON as its data; then each new event as it commits. A comment "
    "line comes every 15 s while nothing happens. The stream ends after the game's last event, after 30 "
    "minutes, or when the server stops (with `retry: 1000`); an EventSource reconnects by itself and resumes "
    "with Last-Event-ID. For clients without EventSource, GET /games/{game_id}/events with `wait` is the same "
    "feed by long polling."
)
STREAM_RESPONSE = {"description": STREAM_DESCRIPTION,
                   "content": {"text/event-stream": {"schema": {"type": "string"}, "example": STREAM_EXAMPLE}}}


def _seq_of(last_event_id: str) -> int:
    """The seq a Last-Event-ID names: the id of an event message this server sent."""
    if not (last_event_id.isascii() and last_event_id.isdigit() and len(last_event_id) <= 10
            and int(last_event_id) <= MAX_SEQ):
        raise InvalidInput("Last-Event-ID must be the id of an event this stream sent: its seq, a whole number")
    return int(last_event_id)


@blp.route("/<uuid:game_id>/events/stream")
class EventStream(MethodView):
    @blp.doc(operationId="streamGameEvents", responses={"200": STREAM_RESPONSE})
    @blp.arguments(EventStreamQuerySchema(), location="query")
    @blp.arguments(EventStreamHeadersSchema(), location="headers")
    @blp.response(200, content_type="text/event-stream", description=STREAM_DESCRIPTION)
    @blp.alt_response(404, response="NOT_FOUND")
    @blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
    @blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self, args: dict[str, Any], headers: dict[str, Any], game_id: UUID) -> Response:
        """Follow a game live: the game, then its events as server-sent events, from a seq on"""
        after = args["after"]
        if "last_event_id" in headers:
            after = _seq_of(headers["last_event_id"])
        games, environ = game_service(), request.environ
        pusher = current_app.extensions.get("osmosis.pusher")
        if pusher is not None and environ.get(CAN_HAND_OVER):
            return event_stream(iter(pusher.open(environ, game_id, after)))
        games.get_game(game_id)  # a 404 now, not inside the stream
        return event_stream(streams.game_stream(games, live_hub(), game_id, after))
