"""A finished game's analysis by the solver: was the deal winnable, and where was it lost."""

from __future__ import annotations

from uuid import UUID

from flask import Response
from flask.views import MethodView

from .. import examples
from ..callers import readable
from ..common import use_cases
from ..contract import READ_ERRORS, SOLVER_CODES, answers
from ..examples import Later
from .blueprint import blp
from .solver_schemas import AnalysisSchema


class Analysis(MethodView):
    @blp.doc(operationId="getGameAnalysis", security=[])
    @blp.response(200, AnalysisSchema, example=Later(examples.analysis))
    @answers(
        *READ_ERRORS,
        404,
        409,
        only=(
            "game-not-found",
            "game-not-over",
            "day-not-closed",
            "competition-not-closed",
            "validation-failed",
            *SOLVER_CODES,
        ),
    )
    def get(self, game_id: UUID) -> Response:
        """Analyse a finished game: was the deal winnable, and where was it lost

        The solver searches with every card known, so a game still being played has no analysis (409
        `game-not-over`): it would tell about hidden cards. For a lost or resigned game whose deal was
        winnable, `last_winnable` is the last position that could still be won (with a win from there) and
        `lost_by` the action after which it could not. Each search is bounded (`budget` positions), so the
        first read takes at most a few seconds; the analysis is then kept, and later reads are one query. A
        daily game is analysed once its day has closed (409 `day-not-closed`), a competition game once its competition
        has (409 `competition-not-closed`): the analysis would show the deal.
        """
        readable(game_id)
        text = use_cases().analyses.analysis(game_id)
        return Response(text, mimetype="application/json")
