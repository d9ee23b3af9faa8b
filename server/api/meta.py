"""The variants, and the probes an orchestrator uses."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from ..service import GameService
from .errors import problem
from .schemas import HealthSchema, VariantListSchema

blp = Blueprint("meta", __name__, url_prefix="/", description="Variants and health probes")


def _service() -> GameService:
    service: GameService = current_app.extensions["osmosis.service"]
    return service


@blp.route("/variants")
class Variants(MethodView):
    @blp.doc(operationId="listVariants", tags=["variants"])
    @blp.response(200, VariantListSchema)
    def get(self) -> dict[str, Any]:
        """List the preset variants and their rule parameters"""
        return {"variants": GameService.variants()}


@blp.route("/healthz")
class Health(MethodView):
    @blp.doc(operationId="getHealth", tags=["health"])
    @blp.response(200, HealthSchema)
    def get(self) -> dict[str, str]:
        """Liveness: the process answers"""
        return {"status": "ok"}


@blp.route("/readyz")
class Readiness(MethodView):
    @blp.doc(operationId="getReadiness", tags=["health"])
    @blp.response(200, HealthSchema)
    @blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self) -> dict[str, str] | Response:
        """Readiness: the database is reachable and its schema is at the latest migration"""
        reason = _service().readiness()
        if reason is not None:
            return problem(503, "not-ready", reason, {"Retry-After": "1"})
        return {"status": "ready"}
