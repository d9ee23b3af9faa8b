"""Sealed deals, and the verification of uploaded replays."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response
from flask.views import MethodView

from .. import examples, replies
from ..common import Blueprint, request_idempotency, use_cases
from ..contract import BODY_ERRORS, READ_ERRORS, REPLAYED_HEADER, SOLVER_CODES, answers, header, parameter
from ..examples import Later
from .schemas import ReplayDocumentSchema, SealedDealSchema, VerdictSchema

deals_blp = Blueprint(
    "deals",
    __name__,
    url_prefix="/deals",
    description="Sealed deals: the server commits to its seed before it sees yours",
)
replays_blp = Blueprint("replays", __name__, url_prefix="/replays", description="Verification of replay exports")


class SealedDeals(MethodView):
    @deals_blp.doc(operationId="createSealedDeal", parameters=[parameter("IdempotencyKey")], security=[])
    @deals_blp.response(
        201,
        SealedDealSchema,
        headers={"Location": header("Location"), **REPLAYED_HEADER},
        example=Later(examples.sealed_deal),
    )
    @answers(*READ_ERRORS, *BODY_ERRORS, only=("validation-failed", "idempotency-key-reused"))
    def post(self) -> Response:
        """Seal a deal: a secret server seed, shown only as its commitment until its game is over

        Takes no body (or `{}`). Then create a game with `sealed_deal_id` and a `client_seed` of your
        choosing: the server's seed was fixed before it saw yours. One sealed deal makes one game.
        """
        result = use_cases().sealing.create_sealed_deal(request_idempotency(), replies.sealed_deal)
        deal_id = result.outcome.deal.id if result.outcome else replies.replied_body(result)["id"]
        return replies.sent(result, {"Location": f"/deals/{deal_id}"})


class SealedDealResource(MethodView):
    @deals_blp.doc(operationId="getSealedDeal", security=[])
    @deals_blp.response(200, SealedDealSchema, example=Later(examples.sealed_deal))
    @answers(*READ_ERRORS, 404, only=("sealed-deal-not-found", "validation-failed"))
    def get(self, deal_id: UUID) -> dict[str, Any]:
        """Read a sealed deal: its commitment and the game made from it, if any

        Its seed stays secret until the game made from it is over; then that game's log reveals it.
        """
        return use_cases().sealing.get_sealed_deal(deal_id)


class ReplayVerification(MethodView):
    @replays_blp.doc(operationId="verifyReplay", security=[])
    @replays_blp.arguments(ReplayDocumentSchema(), example=Later(examples.replay))
    @replays_blp.response(200, VerdictSchema, example=Later(examples.verdict))
    @answers(400, 401, 408, 413, 415, 422, 429, 503, only=("validation-failed", *SOLVER_CODES))
    def post(self, document: dict[str, Any]) -> dict[str, Any]:
        """Verify an uploaded replay export, as `osmosis verify` does offline

        Needs no database: the verdict comes from the document alone. A document that is not shaped like an
        export is a 422; one that is, whatever was changed in it, gets a verdict saying what is wrong and
        at which event. The check searches at most 300,000 solver positions (re-deriving a winnable deal,
        recomputing hints); what that does not pay for is listed in `unchecked` (`osmosis verify` checks
        everything offline).
        """
        return use_cases().verifying.verify_replay(document)
