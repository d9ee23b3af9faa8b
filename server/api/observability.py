"""Request ids, JSON logs, Prometheus metrics and rate limits: what operators see and control.

Metrics work across gunicorn's worker processes through prometheus_client's multiprocess mode
(deploy/gunicorn.conf.py sets PROMETHEUS_MULTIPROC_DIR); without it, one process's own registry is
served.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, g, request
from flask_limiter import HeaderNames, Limiter
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as prometheus_multiprocess
from werkzeug.middleware.proxy_fix import ProxyFix

from ..config import Settings

REQUEST_ID_HEADER = "X-Request-ID"
LIMITER_RETRY_AFTER = "X-RateLimit-Retry-After"
UNMETERED = {"health.Health", "health.Readiness", "metrics"}
ACTION_ENDPOINTS = {"games.Moves", "games.Draw", "games.Resignation"}

REQUESTS = Counter("osmosis_http_requests_total", "HTTP requests", ["route", "method", "status"])
LATENCY = Histogram("osmosis_http_request_duration_seconds", "HTTP request latency", ["route", "method"],
                    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
ACTIONS = Counter("osmosis_actions_total", "Game actions that landed", ["kind"])
VERSION_CONFLICTS = Counter("osmosis_version_conflicts_total", "Actions refused with 412")
IDEMPOTENT_REPLAYS = Counter("osmosis_idempotent_replays_total", "Retries answered from a stored response")
RATE_LIMITED = Counter("osmosis_rate_limited_total", "Requests refused with 429")
POOL_CONNECTIONS = Gauge("osmosis_pool_connections", "Database connections open in the pool",
                         multiprocess_mode="livesum")
POOL_IDLE = Gauge("osmosis_pool_connections_idle", "Database connections idle in the pool",
                  multiprocess_mode="livesum")
POOL_WAITING = Gauge("osmosis_pool_requests_waiting", "Requests waiting for a database connection",
                     multiprocess_mode="livesum")

request_log = logging.getLogger("osmosis.request")


class JsonFormatter(logging.Formatter):
    """One JSON object a line; fields passed with `extra={"fields": {...}}` are merged in."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def _request_id() -> str:
    given = request.headers.get(REQUEST_ID_HEADER, "")
    if 0 < len(given) <= 128 and given.isprintable():
        return given
    return uuid.uuid4().hex


def install(app: Flask, settings: Settings, pool_stats: Callable[[], dict[str, int]] | None) -> Limiter | None:
    """Request ids, the request log, metrics and /metrics, and the rate limiter (unless turned off)."""
    pool_gauges = _PoolGauges(pool_stats) if pool_stats is not None else None
    if settings.proxy_count:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxy_count, x_proto=settings.proxy_count)  # type: ignore[method-assign]

    @app.before_request
    def start() -> None:
        g.request_id = _request_id()
        g.started = time.perf_counter()

    @app.after_request
    def finish(response: Response) -> Response:
        # Runs after the limiter's own hook (Flask runs these in reverse order of registration).
        if response.status_code == 429:
            response.headers["Retry-After"] = str(max(1, int(response.headers.get(LIMITER_RETRY_AFTER, "1"))))
        request_id = getattr(g, "request_id", None) or _request_id()
        response.headers[REQUEST_ID_HEADER] = request_id
        elapsed = time.perf_counter() - getattr(g, "started", time.perf_counter())
        route = request.url_rule.rule if request.url_rule is not None else "unmatched"
        endpoint = request.endpoint or ""
        if endpoint not in UNMETERED:
            REQUESTS.labels(route, request.method, str(response.status_code)).inc()
            LATENCY.labels(route, request.method).observe(elapsed)
            _count_outcome(endpoint, response)
            if pool_gauges is not None:
                pool_gauges.refresh()
        if request_log.isEnabledFor(logging.INFO):
            request_log.info("%s %s %s", request.method, request.path, response.status_code, extra={"fields": {
                "request_id": request_id, "method": request.method, "path": request.path, "route": route,
                "status": response.status_code, "duration_ms": round(elapsed * 1000, 2)}})
        return response

    @app.get("/metrics", endpoint="metrics")
    def metrics() -> Response:
        registry = REGISTRY
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            prometheus_multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)

    if not settings.rate_limit:
        return None
    return Limiter(
        key_func=lambda: request.remote_addr or "unknown",
        app=app,
        default_limits=[settings.rate_limit] if settings.rate_limit else [],
        storage_uri=settings.rate_limit_storage_uri,
        headers_enabled=True,
        # The limiter would write Retry-After on every response, even over a 503's own; it writes this
        # instead, and a 429 gets its Retry-After from it.
        header_name_mapping={HeaderNames.RETRY_AFTER: LIMITER_RETRY_AFTER},
        default_limits_exempt_when=lambda: request.endpoint in UNMETERED or request.endpoint == "web.static",
        on_breach=lambda limit: RATE_LIMITED.inc(),
    )


class _PoolGauges:
    """The pool gauges, refreshed at most once a second per process rather than on every request."""

    def __init__(self, pool_stats: Callable[[], dict[str, int]]) -> None:
        self._pool_stats = pool_stats
        self._next = 0.0

    def refresh(self) -> None:
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + 1.0
        stats = self._pool_stats()
        POOL_CONNECTIONS.set(stats.get("pool_size", 0))
        POOL_IDLE.set(stats.get("pool_available", 0))
        POOL_WAITING.set(stats.get("requests_waiting", 0))


def _count_outcome(endpoint: str, response: Response) -> None:
    if response.headers.get("Idempotent-Replayed"):
        IDEMPOTENT_REPLAYS.inc()
    elif endpoint in ACTION_ENDPOINTS and response.status_code == 200:
        ACTIONS.labels(endpoint.removeprefix("games.").lower()).inc()
    if response.status_code == 412:
        VERSION_CONFLICTS.inc()
