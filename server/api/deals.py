"""Sealed deals, and the verification of uploaded replays."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response
from flask.views import MethodView

from .common import IDEMPOTENCY_KEY, Blueprint, game_service, request_idempotency, written
from .schemas import ReplaySchema, SealedDealSchema, VerdictSchema

deals_blp = Blueprint("deals", __name__, url_prefix="/deals",
                      description="Sealed deals: the server commits to its seed before it sees yours")
replays_blp = Blueprint("replays", __name__, url_prefix="/replays", description="Verification of replay exports")


@deals_blp.route("")
class SealedDeals(MethodView):
    @deals_blp.doc(operationId="createSealedDeal", parameters=[IDEMPOTENCY_KEY])
    @deals_blp.response(201, SealedDealSchema, headers={
        "Location": {"description": "The sealed deal's URL.", "schema": {"type": "string"}}})
    @deals_blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
    @deals_blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def post(self) -> Response:
        """Seal a deal: a secret server seed, shown only as its commitment until its game is over"""
        result = game_service().create_sealed_deal(request_idempotency())
        return written(result, {"Location": f"/deals/{result.body['id']}"})


@deals_blp.route("/<uuid:deal_id>")
class SealedDealResource(MethodView):
    @deals_blp.doc(operationId="getSealedDeal")
    @deals_blp.response(200, SealedDealSchema)
    @deals_blp.alt_response(404, response="NOT_FOUND")
    @deals_blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self, deal_id: UUID) -> dict[str, Any]:
        """Read a sealed deal: its commitment and the game made from it, if any"""
        return game_service().get_sealed_deal(deal_id)


@replays_blp.route("/verification")
class ReplayVerification(MethodView):
    @replays_blp.doc(operationId="verifyReplay")
    @replays_blp.arguments(ReplaySchema())
    @replays_blp.response(200, VerdictSchema)
    @replays_blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
    def post(self, document: dict[str, Any]) -> dict[str, Any]:
        """Verify an uploaded replay export, as `osmosis verify` does offline"""
        return game_service().verify_replay(document)
