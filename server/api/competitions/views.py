"""Competitions: announcing one, entering it, the entrant's game, the standings while it runs, the results after."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response
from flask.views import MethodView

from ...rules import Rules, preset
from ...service.competitions.organizing import Announcement
from ...service.games.cursors import decode_position, encode_position
from .. import replies
from ..callers import API_TOKEN, TOKEN_CODES, caller
from ..common import Blueprint, event_stream, request_idempotency, use_cases
from ..contract import BODY_ERRORS, LINK_HEADER, READ_ERRORS, REPLAYED_HEADER, answers, header, parameter, ref
from ..examples import Later
from ..pages import json_response, link_header, next_page
from ..schemas import GameSchema
from ..streaming import streams
from . import examples
from .schemas import (
    AmendmentSchema,
    CompetitionListQuerySchema,
    CompetitionListSchema,
    CompetitionSchema,
    CreateCompetitionSchema,
    ResultsSchema,
    StandingsSchema,
)

blp = Blueprint(
    "competitions",
    __name__,
    url_prefix="/competitions",
    description="Competitions: many entrants, one sealed deal, each on their own clock; standings anyone recomputes "
    "from the public log",
)

NOT_FOUND = "competition-not-found"


class Competitions(MethodView):
    @blp.doc(operationId="listCompetitions", security=[])
    @blp.arguments(CompetitionListQuerySchema(), location="query")
    @blp.response(200, CompetitionListSchema, headers=LINK_HEADER, example=Later(examples.competition_list))
    @answers(*READ_ERRORS, only=("validation-failed", "invalid-cursor"))
    def get(self, args: dict[str, Any]) -> Response:
        """The competitions, the latest start first, optionally by status

        `open` (entries taken, not started), `running`, `closed` (results provisional while the organizer may
        amend them), `final`.
        """
        before = decode_position(args["cursor"]) if "cursor" in args else None
        page, following = use_cases().organizing.competitions(args["limit"], args.get("status"), before)
        cursor = None if following is None else encode_position(*following)
        next_url = None if cursor is None else next_page("/competitions", {**args, "cursor": cursor})
        body = {"competitions": page, "next": next_url, "next_cursor": cursor}
        return json_response(body, headers=link_header(next_url))

    @blp.doc(operationId="createCompetition", parameters=[parameter("IdempotencyKey")], security=API_TOKEN)
    @blp.arguments(
        CreateCompetitionSchema(),
        examples={
            "a ten-minute race": {
                "value": {
                    "name": "Sunday race",
                    "format": "race",
                    "variant": "osmosis",
                    "entrants": "human",
                    "starts_at": "2026-12-06T18:00:00Z",
                    "limit_s": 600,
                }
            }
        },
    )
    @blp.response(
        201,
        CompetitionSchema,
        headers={"Location": header("Location"), **REPLAYED_HEADER},
        example=Later(examples.competition),
    )
    @answers(
        *READ_ERRORS,
        *BODY_ERRORS,
        401,
        403,
        409,
        only=(
            "validation-failed",
            "invalid-input",
            "invalid-rules",
            "too-many-competitions",
            "idempotency-key-reused",
            *TOKEN_CODES,
        ),
    )
    def post(self, args: dict[str, Any]) -> Response:
        """Announce a competition: its terms and its sealed deal's commitment enter the public log

        Needs an API token with the `organize` scope (a sign-up's first token has every scope). Its deal is sealed
        now: every entrant's game is dealt from it, and its seed is revealed at the close. An organizer has at most
        20 competitions not closed yet.
        """
        rules: Rules = Rules.from_mapping(args["rules"]) if "rules" in args else preset(args.get("variant", "osmosis"))
        asked = Announcement(
            args["name"],
            args["format"],
            rules,
            args["entrants"],
            args["starts_at"],
            args["limit_s"],
            args.get("ends_at"),
            args.get("winnable", False),
            args["max_entrants"],
            args["hints"],
            args["review_s"],
        )
        answered = use_cases().organizing.announce(caller(), asked, request_idempotency())
        return replies.sent(answered, {"Location": f"/competitions/{replies.replied_body(answered)['id']}"})


class Competition(MethodView):
    @blp.doc(operationId="getCompetition", security=[])
    @blp.response(200, CompetitionSchema, example=Later(examples.competition))
    @answers(*READ_ERRORS, 404, only=("validation-failed", NOT_FOUND))
    def get(self, competition_id: UUID) -> dict[str, Any]:
        """A competition: its terms, schedule, commitment, status and field's size"""
        return use_cases().organizing.competition(competition_id)


class Entries(MethodView):
    @blp.doc(operationId="enterCompetition", security=API_TOKEN)
    @blp.response(201, CompetitionSchema, example=Later(examples.competition, entered=1))
    @answers(
        *READ_ERRORS,
        *BODY_ERRORS,
        401,
        403,
        404,
        409,
        only=(
            "validation-failed",
            NOT_FOUND,
            "entries-closed",
            "already-entered",
            "competition-full",
            "not-eligible",
            "not-yet-logged",
            *TOKEN_CODES,
        ),
    )
    def post(self, competition_id: UUID) -> Response:
        """Enter a competition

        Needs an API token with the `play` scope, of a player of the competition's `entrants` kind whose
        `player_joined` entry is in the public log before the competition's announcement. Entries close at the
        start of a race, and at the last moment a whole clock fits before a window's close. Your entry enters the
        public log.
        """
        use_cases().entering.enter(caller(), competition_id)
        return json_response(use_cases().organizing.competition(competition_id), 201)


class MyEntry(MethodView):
    @blp.doc(operationId="withdrawFromCompetition", security=API_TOKEN)
    @blp.response(204, description="Withdrawn: your withdrawal is in the public log")
    @answers(
        *READ_ERRORS,
        *BODY_ERRORS,
        401,
        403,
        404,
        409,
        only=("validation-failed", NOT_FOUND, "not-entered", "already-started", *TOKEN_CODES),
    )
    def delete(self, competition_id: UUID) -> Response:
        """Withdraw from a competition, before your clock starts"""
        use_cases().entering.withdraw(caller(), competition_id)
        return Response(status=204)


class EntrantGame(MethodView):
    @blp.doc(operationId="getCompetitionGame", security=API_TOKEN)
    @blp.response(201, GameSchema, example=Later(examples.entrant_game))
    @blp.alt_response(
        200, schema=GameSchema, description="Your game, made by an earlier call", example=Later(examples.entrant_game)
    )
    @answers(
        *READ_ERRORS,
        *BODY_ERRORS,
        401,
        403,
        404,
        409,
        only=("validation-failed", NOT_FOUND, "not-entered", "not-started", "start-closed", *TOKEN_CODES),
    )
    def post(self, competition_id: UUID) -> Response:
        """Your game of the competition's deal: made at your first call from the start, the same one after

        Before the start: 409 `not-started` with Retry-After. A race's clock starts at its start for every entrant,
        fetched or not; a window's at your first call. Play it with the game's actions and your API token: no undo,
        hints only if the competition counts them, nothing after your clock runs out. Until the competition
        closes the game is yours alone: to anyone else it does not exist.
        """
        reply = use_cases().entering.game(caller(), competition_id)
        return Response(reply.text, status=reply.status, mimetype="application/json")


class Standings(MethodView):
    @blp.doc(operationId="getCompetitionStandings", security=[])
    @blp.response(200, StandingsSchema, example=Later(examples.standings))
    @answers(*READ_ERRORS, 404, only=("validation-failed", NOT_FOUND))
    def get(self, competition_id: UUID) -> Response:
        """Everyone's progress, ranked by the competition's rule: name, kind, status, cards home, actions, time

        Progress only: no game and no card, before the close or after (the results name each game). As read within
        the last second: every reader in that second shares one reading.
        """
        text = use_cases().watching.standings_json(competition_id)
        return Response(text, mimetype="application/json")


STREAM_DESCRIPTION = (
    "Server-sent events (text/event-stream). The first message, `event: standings`, has the competition and its "
    "standings as its data, as getCompetitionStandings answers them; then a message for each change, looked at "
    "every second: `entered`, `withdrawn`, `started`, `progress`, `finished`, `timed_out` with the entrant's row, "
    "`closed` and `amended` with the competition. Progress only: no game and no card. A comment line comes every "
    "15 s while nothing changes; the stream ends once the results are final, or after 30 minutes (reconnect: the "
    "standings again)."
)


class Stream(MethodView):
    @blp.doc(
        operationId="streamCompetition",
        security=[],
        responses={
            "200": {
                "description": STREAM_DESCRIPTION,
                "content": {
                    "text/event-stream": {
                        "schema": ref("CompetitionStreamMessage"),
                        "example": Later(examples.stream_message),
                    }
                },
            }
        },
    )
    @blp.response(200, content_type="text/event-stream", description=STREAM_DESCRIPTION)
    @answers(*READ_ERRORS, 404, only=("validation-failed", NOT_FOUND))
    def get(self, competition_id: UUID) -> Response:
        """Follow a competition live: its standings, then each change as server-sent events"""
        watching = use_cases().watching
        watching.standings(competition_id)  # a 404 now, not inside the stream
        return event_stream(streams.competition_stream(watching, competition_id))


class Results(MethodView):
    @blp.doc(operationId="getCompetitionResults", security=[])
    @blp.response(200, ResultsSchema, example=Later(examples.results))
    @answers(*READ_ERRORS, 404, 409, only=("validation-failed", NOT_FOUND, "competition-not-closed"))
    def get(self, competition_id: UUID) -> Response:
        """The results, once closed: ranked rows with each game, and the standings root the public log holds

        `final` once the review time is over. Recompute them with `osmosis audit --competition ID URL`.
        """
        return Response(use_cases().organizing.results(competition_id), mimetype="application/json")


class Amendments(MethodView):
    @blp.doc(operationId="amendCompetitionResults", security=API_TOKEN)
    @blp.arguments(
        AmendmentSchema(),
        examples={
            "a disqualification": {
                "value": {"player": "mallory", "action": "disqualify", "reason": "a second account of alice's"}
            }
        },
    )
    @blp.response(201, ResultsSchema, example=Later(examples.results, struck="a second account of alice's"))
    @answers(
        *READ_ERRORS,
        *BODY_ERRORS,
        401,
        403,
        404,
        409,
        only=(
            "validation-failed",
            NOT_FOUND,
            "player-not-found",
            "not-entered",
            "competition-not-closed",
            "results-final",
            *TOKEN_CODES,
        ),
    )
    def post(self, args: dict[str, Any], competition_id: UUID) -> Response:
        """Disqualify an entrant, or reinstate one, while the results are open to review

        The organizer's, with an API token holding `organize`. Appended to the public log with the new standings
        root: the results show a struck row with its reason; nothing is rewritten.
        """
        amended = use_cases().organizing.amend(caller(), competition_id, args["player"], args["action"], args["reason"])
        return Response(amended, status=201, mimetype="application/json")
