"""The variants, and the probes an orchestrator uses."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app
from flask.views import MethodView

from ..service.games.queries import variants
from .common import Blueprint, use_cases
from .contract import answers
from .errors import NOT_READY, problem
from .meta_schemas import HealthSchema, VariantListSchema

variants_blp = Blueprint("variants", __name__, url_prefix="/", description="The preset variants")
health_blp = Blueprint("health", __name__, url_prefix="/", description="Probes for orchestrators")


class Variants(MethodView):
    @variants_blp.doc(operationId="listVariants", security=[])
    @variants_blp.response(200, VariantListSchema, example={"variants": variants()[:2]})
    @answers(401, 422, 429)
    def get(self) -> dict[str, Any]:
        """List the preset variants and their rule parameters

        Each preset's name is what `createGame` takes as `variant`; its rules are the parameters it sets.
        """
        return {"variants": variants()}


class Health(MethodView):
    @health_blp.doc(operationId="getHealth", security=[])
    @health_blp.response(200, HealthSchema, example={"status": "ok"})
    @answers(422)
    def get(self) -> dict[str, str]:
        """Liveness: the process answers

        Never rate limited and never reads the database: for an orchestrator's liveness probe.
        """
        return {"status": "ok"}


class Readiness(MethodView):
    @health_blp.doc(operationId="getReadiness", security=[])
    @health_blp.response(200, HealthSchema, example={"status": "ready", "writes": "ok"})
    @answers(422, 503, only=("validation-failed", "not-ready"))
    def get(self) -> dict[str, str] | Response:
        """Readiness: the database is reachable and its schema is at the latest migration

        For an orchestrator's readiness probe: a 503 `not-ready` says why, with Retry-After.
        """
        health = use_cases().health
        reason = health.readiness()
        if reason is not None:
            return problem(503, NOT_READY, reason, {"Retry-After": "1"})
        untold = current_app.extensions.get("osmosis.untold_proxies")
        return {"status": "ready", **health.standing(), **(untold.standing() if untold is not None else {})}
