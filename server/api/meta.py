"""The variants, and the probes an orchestrator uses."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from ..service import GameService
from .common import Blueprint, game_service
from .errors import problem
from .schemas import HealthSchema, VariantListSchema

variants_blp = Blueprint("variants", __name__, url_prefix="/", description="The preset variants")
health_blp = Blueprint("health", __name__, url_prefix="/", description="Probes for orchestrators")


@variants_blp.route("/variants")
class Variants(MethodView):
    @variants_blp.doc(operationId="listVariants")
    @variants_blp.response(200, VariantListSchema)
    def get(self) -> dict[str, Any]:
        """List the preset variants and their rule parameters"""
        return {"variants": GameService.variants()}


@health_blp.route("/healthz")
class Health(MethodView):
    @health_blp.doc(operationId="getHealth")
    @health_blp.response(200, HealthSchema)
    def get(self) -> dict[str, str]:
        """Liveness: the process answers"""
        return {"status": "ok"}


@health_blp.route("/readyz")
class Readiness(MethodView):
    @health_blp.doc(operationId="getReadiness")
    @health_blp.response(200, HealthSchema)
    @health_blp.alt_response(503, response="SERVICE_UNAVAILABLE")
    def get(self) -> dict[str, str] | Response:
        """Readiness: the database is reachable and its schema is at the latest migration"""
        reason = game_service().readiness()
        if reason is not None:
            return problem(503, "not-ready", reason, {"Retry-After": "1"})
        return {"status": "ready"}
