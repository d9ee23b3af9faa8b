"""Games: create, list and read them, read their move logs, replay and verify them, follow them live.
Acting on them is in actions.py, on this blueprint."""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

from flask import Response, current_app, request
from flask.views import MethodView

from ...game.commands import DealSource, FreshDeal, FromSealedDeal, NewGame, NumberedDeal, TodaysDeal
from ...rules import InvalidInput, Rules, preset
from ...service.errors import LogBehind, LogNotStarted
from ...service.games.positions import MAX_SEQ
from .. import examples, replies
from ..callers import optional_player, readable, reader
from ..common import etag, event_stream, live_hub, request_idempotency, use_cases
from ..contract import (
    BODY_ERRORS,
    ETAG_HEADER,
    LINK_HEADER,
    READ_ERRORS,
    REPLAYED_HEADER,
    SOLVER_CODES,
    answers,
    header,
    parameter,
    path_parameter,
    ref,
)
from ..deals.schemas import ReplaySchema, VerdictSchema
from ..examples import Later
from ..pages import game_list, json_response, link_header, next_page
from ..schemas import SEQ_PATTERN, CreateGameSchema, GameListQuerySchema, GameListSchema, GameSchema
from ..streaming import streams
from ..streaming.pusher import CAN_HAND_OVER
from .blueprint import blp
from .reading_schemas import (
    EventListSchema,
    EventQuerySchema,
    EventStreamHeadersSchema,
    EventStreamQuerySchema,
    StateAtSchema,
)


def _deal_source(args: dict[str, Any]) -> DealSource:
    if args.get("daily", False):
        return TodaysDeal()
    if args.get("sealed_deal_id") is not None:
        return FromSealedDeal(args["sealed_deal_id"], args.get("client_seed", ""))
    if args.get("deal_number") is not None:
        return NumberedDeal(args["deal_number"])
    return FreshDeal()


class Games(MethodView):
    @blp.doc(operationId="createGame", parameters=[parameter("IdempotencyKey")], security=[])
    @blp.arguments(
        CreateGameSchema(),
        required=False,
        examples={
            "deal number": {"value": {"variant": "osmosis", "deal_number": 4711}},
            "custom rules": {"value": {"rules": {"draw": 1, "max_passes": 3}}},
            "sealed deal": {"value": {"sealed_deal_id": examples.SEALED_DEAL_ID, "client_seed": "my lucky seed"}},
            "winnable deal": {"value": {"variant": "osmosis", "deal_number": 42, "winnable": True}},
            "the daily deal": {"value": {"variant": "peek", "daily": True}},
        },
    )
    @blp.response(
        201,
        ref("CreatedGame"),
        example=Later(examples.created_game),
        headers={"Location": header("Location"), **ETAG_HEADER, **REPLAYED_HEADER},
    )
    @answers(
        *READ_ERRORS,
        *BODY_ERRORS,
        401,
        403,
        404,
        409,
        only=(
            "sealed-deal-not-found",
            "sealed-deal-used",
            "validation-failed",
            "invalid-rules",
            "idempotency-key-reused",
            "no-winnable-deal",
            "unauthorized",
            "forbidden",
            "daily-deal-played",
            *SOLVER_CODES,
        ),
    )
    def post(self, args: dict[str, Any]) -> Response:
        """Create a game from a preset or custom rules, optionally a public deal number

        With no body (or `{}`): the `osmosis` preset and a fresh secret deal. `variant` names a preset
        (`listVariants`); `rules` gives custom rules instead, a parameter left out taking the `osmosis`
        value. `deal_number` makes a public deal anyone can replay; `sealed_deal_id` with `client_seed` deals
        from a sealed deal (`createSealedDeal`) and your own seed. `winnable: true` deals the first of the
        seeds' candidate deals the solver proves winnable, and records which in `deal.winnable`. The answer
        carries `player_token`, this once: keep it, it is the only key to the game's actions. With your API
        token (`Authorization: Bearer osm_…`, scope `play`) the game is yours: it names you as its `player`, is
        listed among your games, and your token acts on it too.
        """
        rules = Rules.from_mapping(args["rules"]) if "rules" in args else preset(args.get("variant", "osmosis"))
        new = NewGame(
            rules,
            _deal_source(args),
            winnable=args.get("winnable", False),
            owner=optional_player(),
            idempotency=request_idempotency(answer_holds_a_secret=True),
        )
        result = use_cases().creating.handle(new)
        game_id, version = (
            (result.outcome.game.id, result.outcome.game.version)
            if result.outcome
            else (replies.replied_body(result)["id"], replies.replied_body(result)["version"])
        )
        return replies.sent(result, {"Location": f"/games/{game_id}", "ETag": etag(version)})

    @blp.doc(operationId="listGames", security=[])
    @blp.arguments(GameListQuerySchema(), location="query")
    @blp.response(200, GameListSchema, headers=LINK_HEADER, example=Later(examples.game_list))
    @answers(*READ_ERRORS, only=("validation-failed", "invalid-cursor"))
    def get(self, args: dict[str, Any]) -> Response:
        """List games, newest first, optionally by status, variant and how lately they were acted on

        Keyset pagination: `next_cursor` (and the `next` URL, and the Link header) gives the next page,
        which stays right while games are added. Filters apply to every page; pass them again with the
        cursor, as `next` does. A daily game is listed once its day has closed (before, to its player only,
        with their API token).
        """
        status, variant, acted_within = args.get("status"), args.get("variant"), args.get("acted_within")
        games, cursor = use_cases().queries.list_games(
            args["limit"], args.get("cursor"), status, variant, reader(), acted_within=acted_within
        )
        next_url = None
        if cursor:
            filters = {"status": status, "variant": variant, "acted_within": acted_within}
            next_url = next_page("/games", {"limit": args["limit"], **filters, "cursor": cursor})
        return game_list(games, next_url, cursor)


class Game(MethodView):
    @blp.doc(operationId="getGame", parameters=[parameter("IfNoneMatch")], security=[])
    @blp.response(200, GameSchema, headers=ETAG_HEADER, example=Later(examples.game))
    @blp.alt_response(304, description="Not modified since the ETag in If-None-Match", headers=ETAG_HEADER)
    @answers(*READ_ERRORS, 404, only=("game-not-found", "validation-failed"))
    def get(self, game_id: UUID) -> Response:
        """Read a game: public view, legal actions, version and chain head

        Everything a front end or a bot needs, so that neither has to know the rules: the public view
        (`state`), every action allowed now (`legal_actions`), the version (also the ETag) and the hash of
        the last event (`head_hash`, a receipt).
        """
        readable(game_id)
        version, document = use_cases().queries.get_game(game_id)
        tag = etag(version)
        if tag in {tag.strip().removeprefix("W/") for tag in request.headers.get("If-None-Match", "").split(",")}:
            return Response(status=304, headers={"ETag": tag})
        return Response(document, headers={"ETag": tag}, mimetype="application/json")


class Events(MethodView):
    @blp.doc(operationId="listGameEvents", security=[])
    @blp.arguments(EventQuerySchema(), location="query")
    @blp.response(200, EventListSchema, headers=LINK_HEADER, example=Later(examples.event_list))
    @answers(*READ_ERRORS, 404, only=("game-not-found", "validation-failed"))
    def get(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Read the move log: events with seq > after, oldest first; with wait, a long poll

        `next_after` (and `next`, and the Link header) continue the log. With `wait`, the answer waits up to
        that many seconds for an event after `after` when there is none yet: the live feed for clients
        without server-sent events.
        """
        readable(game_id)
        events, next_after = streams.wait_for_events(
            use_cases().queries, live_hub(), game_id, args["after"], args["limit"], args["wait"]
        )
        next_url = None
        if next_after is not None:
            next_url = next_page(f"/games/{game_id}/events", {"after": next_after, "limit": args["limit"]})
        return json_response(
            {"events": events, "next": next_url, "next_after": next_after}, headers=link_header(next_url)
        )


class StateAt(MethodView):
    @blp.doc(
        operationId="getGameStateAt",
        security=[],
        parameters=[
            path_parameter("seq", {"type": "integer", "minimum": 1}, "An event's seq, from 1 to the game's version.")
        ],
    )
    @blp.response(200, StateAtSchema, example=Later(examples.state_at))
    @answers(*READ_ERRORS, 404, only=("game-not-found", "event-not-found", "validation-failed"))
    def get(self, game_id: UUID, seq: int) -> Response:
        """Time travel: the public view and legal actions right after event seq

        The events one action appends together (its own, then `game_won` or `game_lost`, then
        `seeds_revealed`) are one step: each shows the position after that action.
        """
        readable(game_id)
        return json_response(use_cases().queries.state_at(game_id, seq))


class Replay(MethodView):
    @blp.doc(operationId="getGameReplay", security=[])
    @blp.response(200, ReplaySchema, example=Later(examples.replay))
    @answers(*READ_ERRORS, 404, only=("game-not-found", "validation-failed"))
    def get(self, game_id: UUID) -> dict[str, Any]:
        """Export the game as an osmosis-replay/1 document, for offline verification

        The game's rules, deal, commitment and whole log (docs/replay-format.md). Once the game is over the
        log reveals the seeds, and `osmosis verify` (or `verifyReplay`) checks everything from it alone. Once
        the public log has sequenced the game, `transparency` carries its entries' proofs of inclusion in a
        signed checkpoint, which `osmosis verify --log-key` checks.
        """
        readable(game_id)
        document = use_cases().queries.replay(game_id)
        try:
            proofs = use_cases().public_log.game_proofs(game_id)
        except LogNotStarted:
            return document
        except LogBehind as behind:
            # The game's hash chain stands alone: its export is whole without the log's proofs.
            return {**document, "transparency_unavailable": str(behind)}
        return {**document, "transparency": proofs.to_dict()} if proofs.leaves else document


class Verification(MethodView):
    @blp.doc(operationId="getGameVerification", security=[])
    @blp.response(200, VerdictSchema, example=Later(examples.verdict))
    @answers(*READ_ERRORS, 404, only=("game-not-found", "validation-failed", *SOLVER_CODES))
    def get(self, game_id: UUID) -> dict[str, Any]:
        """Re-check the game from its stored log: commitment, deal, every move, the hash chain, the projection

        While the game is on, the seeds are secret and the verdict is `complete: false`.
        """
        readable(game_id)
        return use_cases().verifying.verification(game_id)


STREAM_DESCRIPTION = (
    "Server-sent events (text/event-stream). The first message, `event: game`, has the game as its data, a "
    "[Game](#/components/schemas/Game) as GET /games/{game_id} shows it. Then each event of the log after "
    "`after` (or after the Last-Event-ID header), one message each with the event's seq as its `id` and the "
    "event as its data, an [Event](#/components/schemas/Event); then each new event as it commits. A comment "
    "line comes every 15 s while nothing happens. The stream ends after the game's last event, after 30 "
    "minutes, or when the server stops (with `retry: 1000`); an EventSource reconnects by itself and resumes "
    "with Last-Event-ID. For clients without EventSource, `listGameEvents` with `wait` is the same feed by "
    "long polling."
)
STREAM_RESPONSE = {
    "description": STREAM_DESCRIPTION,
    "content": {"text/event-stream": {"schema": ref("GameStreamMessage"), "example": Later(examples.stream_message)}},
}


def _seq_of(last_event_id: str) -> int:
    """The seq a Last-Event-ID names: the id of an event message this server sent (past the last seq a log can
    hold: after every event)."""
    if _SEQ.fullmatch(last_event_id) is None:
        raise InvalidInput("Last-Event-ID must be the id of an event this stream sent: its seq, a whole number")
    return min(int(last_event_id), MAX_SEQ)


_SEQ = re.compile(SEQ_PATTERN)


class EventStream(MethodView):
    @blp.doc(operationId="streamGameEvents", responses={"200": STREAM_RESPONSE}, security=[])
    @blp.arguments(EventStreamQuerySchema(), location="query")
    @blp.arguments(EventStreamHeadersSchema(), location="headers")
    @blp.response(200, content_type="text/event-stream", description=STREAM_DESCRIPTION)
    @answers(*READ_ERRORS, 404, only=("game-not-found", "validation-failed", "invalid-input"))
    def get(self, args: dict[str, Any], headers: dict[str, Any], game_id: UUID) -> Response:
        """Follow a game live: the game, then its events as server-sent events, from a seq on

        Each message's data is JSON: a Game for `event: game`, else an Event. See docs/api.md, "Live updates",
        for typing them with the generated types.
        """
        readable(game_id)
        after = args["after"]
        if "last_event_id" in headers:
            after = _seq_of(headers["last_event_id"])
        games, environ = use_cases().queries, request.environ
        pusher = current_app.extensions.get("osmosis.pusher")
        if pusher is not None and environ.get(CAN_HAND_OVER):
            return event_stream(iter(pusher.open(environ, game_id, after)))
        games.get_game(game_id)  # a 404 now, not inside the stream
        return event_stream(streams.game_stream(games, live_hub(), game_id, after))
