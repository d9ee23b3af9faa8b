"""The daily deal: today's deals and their commitments, and any past day's with its seeds revealed."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ..callers import optional_caller
from ..common import Blueprint, day_named, use_cases
from ..contract import READ_ERRORS, answers, path_parameter
from ..examples import Later
from . import examples as player_examples
from .schemas import DailySchema

blp = Blueprint(
    "daily",
    __name__,
    url_prefix="/daily",
    description="The daily deal: one deal per preset and UTC day, the same for every player",
)


class Today(MethodView):
    @blp.doc(operationId="getDaily", security=[])
    @blp.response(200, DailySchema, example=Later(player_examples.daily))
    @answers(*READ_ERRORS, 401, only=("validation-failed", "unauthorized"))
    def get(self) -> dict[str, Any]:
        """Today's daily deals: one per preset, their commitments, and when the day closes

        Each UTC day every preset has one deal, sealed: its commitment is in the public log from the day's
        start, and its seed is revealed when the day closes (midnight UTC). Play it with `createGame`,
        `{"variant": …, "daily": true}` and your API token: one attempt per preset a day. With your token,
        `your_game` names your game of each deal you have begun.
        """
        return use_cases().days.page(None, optional_caller())


class Day(MethodView):
    @blp.doc(
        operationId="getDailyOfDay",
        security=[],
        parameters=[
            path_parameter(
                "day",
                {"type": "string", "format": "date", "example": "2026-11-24"},
                "A UTC day, as 2026-11-24: today or before.",
            )
        ],
    )
    @blp.response(200, DailySchema, example=Later(player_examples.daily, closed=True))
    @answers(*READ_ERRORS, 401, 404, only=("validation-failed", "invalid-input", "unauthorized", "day-not-found"))
    def get(self, day: str) -> dict[str, Any]:
        """A day's daily deals: once the day has closed, with their seeds revealed

        Check any daily game of that day against its deal: the commitment here is the one its log names, and
        the seed here hashes to it.
        """
        return use_cases().days.page(day_named(day), optional_caller())
