"""The multi-game feed: many games on one connection, for a lobby or a page of spectators."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from ...rules import InvalidInput
from ...service.errors import GameNotFound
from ...service.feed import FeedPosition
from .. import examples
from ..common import Blueprint, event_stream, live_hub, use_cases
from ..contract import READ_ERRORS, answers, ref
from ..examples import Later
from ..games.reading_schemas import FeedHeadersSchema, FeedQuerySchema
from . import streams

blp = Blueprint("live", __name__, url_prefix="/events", description="Live feeds of many games on one connection")

FEED_DESCRIPTION = (
    "Server-sent events. Without `game_id`: each new event of every game (of `variant`, if given), from now "
    "on. With `game_id` (up to 100 of them): each game as GET /games/{game_id} shows it (event `game`), then "
    "each new event of those games. The data of an `event: game` message is a "
    "[Game](#/components/schemas/Game); every other message's data is an [Event](#/components/schemas/Event) "
    "with its `game_id`, and its `id` is the event's position in the feed. Events come in one order for "
    "everyone: each game's in the order of its seqs, every event once. Reconnect with `Last-Event-ID` (an "
    "EventSource does it by itself) and the feed goes on after that event, with nothing lost or repeated, "
    "whatever happened meanwhile. A comment line comes every 15 s while nothing happens; the stream ends "
    "after 30 minutes or when the server stops (with a `retry:` hint)."
)


class Feed(MethodView):
    @blp.doc(
        operationId="streamEvents",
        security=[],
        responses={
            "200": {
                "description": FEED_DESCRIPTION,
                "content": {
                    "text/event-stream": {"schema": ref("FeedMessage"), "example": Later(examples.feed_message_example)}
                },
            }
        },
    )
    @blp.arguments(FeedQuerySchema(), location="query")
    @blp.arguments(FeedHeadersSchema(), location="headers")
    @blp.response(200, content_type="text/event-stream", description=FEED_DESCRIPTION)
    @answers(*READ_ERRORS, 404, only=("game-not-found", "validation-failed", "invalid-input"))
    def get(self, args: dict[str, Any], headers: dict[str, Any]) -> Response:
        """Follow many games live: the events of the games named, or of every game, as server-sent events

        One connection for a lobby or a page of spectators, instead of one per game.
        """
        games = use_cases().queries
        game_ids = args.get("game_id")
        after = _position_of(headers["last_event_id"]) if "last_event_id" in headers else None
        if game_ids is not None:
            found = games.versions(game_ids)
            missing = next((game_id for game_id in game_ids if str(game_id) not in found), None)
            if missing is not None:
                raise GameNotFound(missing)  # a 404 now, not inside the stream
        return event_stream(streams.feed_stream(games, live_hub(), game_ids, args.get("variant"), after))


def _position_of(last_event_id: str) -> FeedPosition:
    try:
        return FeedPosition.parse(last_event_id)
    except ValueError:
        raise InvalidInput("Last-Event-ID must be the id of an event message this feed sent") from None
