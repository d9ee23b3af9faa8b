"""Hints during play: the best action by what the player has seen, logged as an event."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response
from flask.views import MethodView

from ...game import commands
from .. import examples
from ..callers import credential
from ..common import use_cases
from ..contract import ACTION_ERRORS, ETAG_HEADER, REPLAYED_HEADER, SOLVER_CODES, answers
from ..examples import Later
from .action_schemas import ActionRequestSchema
from .blueprint import blp
from .solver_schemas import HintResultSchema
from .writes import ACTION_CODES, action_response, write_doc, written


class Hint(MethodView):
    @write_doc("askForHint")
    @blp.arguments(ActionRequestSchema(), required=False, example={"expected_version": 5})
    @blp.response(200, HintResultSchema, headers={**ETAG_HEADER, **REPLAYED_HEADER}, example=Later(examples.hinted))
    @answers(*ACTION_ERRORS, only=(*ACTION_CODES, "hints-off", *SOLVER_CODES))
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Ask for a hint: the best action by what the player has seen

        The hint is worked out from the public view and the cards already dealt face up, never from a hidden
        card: when the player has seen every card (Peek after its first pass, say), the solver's exact best
        action; otherwise each legal action is judged on random arrangements of the unseen cards, and `hint`
        gives every action's wins and the sample size. The arrangements are drawn from a generator seeded
        with what the player has seen, so two deals that look alike to the player get the same hint.

        A hint is appended to the move log as a `hint_given` event (a replay shows that the game was
        assisted), the game's `hints` counts them, and the version moves on, as after an action. A position is
        hinted once: asked again where nothing has moved since the last hint, the answer is that hint, recorded,
        with no event appended (`events` empty) and the game as it was. A hint searches a bounded number of
        positions (`budget`): it takes two seconds at most (docs/performance.md).
        """
        return action_response(use_cases().acting.handle(commands.Hint(game_id, credential(), **written(args))))
