"""The multi-game feed: many games on one connection, for a lobby or a page of spectators."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from ..repository import GameNotFound
from . import examples, streams
from .common import Blueprint, event_stream, game_service, live_hub
from .contract import READ_ERRORS, answers
from .schemas import FeedQuerySchema

blp = Blueprint("live", __name__, url_prefix="/events", description="Live feeds of many games on one connection")

FEED_DESCRIPTION = (
    "Server-sent events. With `game_id` (up to 100 of them): each game as GET /games/{game_id} shows it "
    "(event `game`), then each new event of those games as it commits. Without: each new event of every game "
    "(of `variant`, if given), from now on; a change told without its events comes as the game's document "
    "(event `game`). The data of an `event: game` message is a [Game](#/components/schemas/Game); every other "
    "message's data is an [Event](#/components/schemas/Event) with its `game_id`. A comment line comes every "
    "15 s while nothing happens; the stream ends after 30 minutes, when the server stops, or when the client "
    "reads too slowly to keep up (each with a `retry:` hint): reconnect, and the games named come again as "
    "they are then."
)


@blp.route("/stream")
class Feed(MethodView):
    @blp.doc(operationId="streamEvents", security=[], responses={"200": {
        "description": FEED_DESCRIPTION,
        "content": {"text/event-stream": {"schema": {"type": "string"}, "example": examples.feed()}}}})
    @blp.arguments(FeedQuerySchema(), location="query")
    @blp.response(200, content_type="text/event-stream", description=FEED_DESCRIPTION)
    @answers(*READ_ERRORS, 404, only=("game-not-found", "validation-failed"))
    def get(self, args: dict[str, Any]) -> Response:
        """Follow many games live: the events of the games named, or of every game, as server-sent events

        One connection for a lobby or a page of spectators, instead of one per game.
        """
        games = game_service()
        game_ids = args.get("game_id")
        if game_ids is not None:
            found = games.versions(game_ids)
            missing = next((game_id for game_id in game_ids if str(game_id) not in found), None)
            if missing is not None:
                raise GameNotFound(missing)  # a 404 now, not inside the stream
        return event_stream(streams.feed_stream(games, live_hub(), game_ids, args.get("variant")))
