"""The boards: each closed day's board of the daily deals, and the all-time board of each preset."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ...rules import PRESETS
from ..common import Blueprint, day_named, use_cases
from ..contract import READ_ERRORS, answers, path_parameter
from ..examples import Later
from . import examples as player_examples
from .schemas import BoardQuerySchema, BoardSchema, DailyBoardQuerySchema, DailyBoardSchema

blp = Blueprint(
    "boards",
    __name__,
    url_prefix="/boards",
    description="Leaderboards anyone can recompute from the public log and the games' exports",
)


class DailyBoard(MethodView):
    @blp.doc(
        operationId="getDailyBoard",
        security=[],
        parameters=[
            path_parameter("day", {"type": "string", "format": "date"}, "A UTC day that has closed, as 2026-11-24.")
        ],
    )
    @blp.arguments(DailyBoardQuerySchema(), location="query")
    @blp.response(200, DailyBoardSchema, example=Later(player_examples.daily_board))
    @answers(*READ_ERRORS, 409, only=("validation-failed", "invalid-input", "invalid-cursor", "day-not-closed"))
    def get(self, args: dict[str, Any], day: str) -> dict[str, Any]:
        """A day's board of a preset's daily deal, humans or bots

        Published when the day closes (before, 409 `day-not-closed`). Won first, then cards home, fewest hints,
        fewest actions, least time from the first action to the last. Each row links the game's export and its
        entries in the public log: `osmosis audit --board` recomputes the board from them.
        """
        return use_cases().boards.daily(
            day_named(day), args["variant"], args["kind"], args["limit"], args.get("cursor")
        )


class PresetBoard(MethodView):
    @blp.doc(
        operationId="getBoard",
        security=[],
        parameters=[
            path_parameter("variant", {"type": "string", "pattern": "^(" + "|".join(PRESETS) + ")$"}, "A preset.")
        ],
    )
    @blp.arguments(BoardQuerySchema(), location="query")
    @blp.response(200, BoardSchema, example=Later(player_examples.board))
    @answers(*READ_ERRORS, 404, only=("validation-failed", "invalid-cursor", "not-found"))
    def get(self, args: dict[str, Any], variant: str) -> dict[str, Any]:
        """The all-time board of a preset, humans or bots

        Players with at least 20 finished games of the preset, ranked by the lower bound of their win rate's 95%
        interval: a rate over many games outranks the same rate over few.
        """
        return use_cases().boards.all_time(variant, args["kind"], args["limit"], args.get("cursor"))
