"""Request ids, JSON logs, Prometheus metrics and rate limits: what operators see and control.

Metrics work across gunicorn's worker processes through prometheus_client's multiprocess mode
(deploy/gunicorn.conf.py sets PROMETHEUS_MULTIPROC_DIR); without it, one process's own registry is
served.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, g, request
from limits.storage import Storage
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
from . import clients, proxies, rate_limits
from .rate_limits import LIMITER_RETRY_AFTER, AddressLimits

REQUEST_ID_HEADER = "X-Request-ID"
UNMETERED = {"health.Health", "health.Readiness", "metrics"}
ACTION_ENDPOINTS = {
    "games.Actions": "actions",
    "games.Moves": "moves",
    "games.Draw": "draw",
    "games.Resignation": "resignation",
}
METHODS = frozenset(("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"))
"""Methods a metric names; any other a client makes up counts as "other", so that no request adds a series."""

REQUESTS = Counter("osmosis_http_requests_total", "HTTP requests", ["route", "method", "status"])
LATENCY = Histogram(
    "osmosis_http_request_duration_seconds",
    "HTTP request latency",
    ["route", "method"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
ACTIONS = Counter("osmosis_actions_total", "Game actions that landed", ["kind"])
VERSION_CONFLICTS = Counter("osmosis_version_conflicts_total", "Actions refused with 412")
IDEMPOTENT_REPLAYS = Counter("osmosis_idempotent_replays_total", "Retries answered from a stored response")
READS_ON_THE_PRIMARY = Counter(
    "osmosis_reads_on_the_primary_total",
    "Reads meant for a replica that the primary answered: the replica had not replayed every write before them, "
    "lacked part of the answer, or could not be reached",
    ["read"],
)
POOL_CONNECTIONS = Gauge(
    "osmosis_pool_connections", "Database connections open in the pool", multiprocess_mode="livesum"
)
POOL_IDLE = Gauge("osmosis_pool_connections_idle", "Database connections idle in the pool", multiprocess_mode="livesum")
LIVE_FOLLOWERS = Gauge(
    "osmosis_live_followers", "Event streams the live tier writes to (handed over)", multiprocess_mode="livesum"
)
POOL_WAITING = Gauge(
    "osmosis_pool_requests_waiting", "Requests waiting for a database connection", multiprocess_mode="livesum"
)
LOG_SIGNING_REFUSED = Gauge(
    "osmosis_log_signing_refused",
    "1 while the public log signs or publishes nothing: its database is behind, or diverges from, a checkpoint it "
    "handed out; or a checkpoint it signed cannot be handed out (no standby confirms it, its tiles cannot be written)",
    multiprocess_mode="max",
)

request_log = logging.getLogger("osmosis.request")


def log_signing_refused(refused: bool) -> None:
    LOG_SIGNING_REFUSED.set(1 if refused else 0)


def read_on_the_primary(read: str) -> None:
    READS_ON_THE_PRIMARY.labels(read).inc()


_SENSIBLE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")
"""What ids are made of (UUIDs, hex, a W3C traceparent, `trace-42`): the id is echoed in a header and logged."""


class _RequestIds:
    """The caller's X-Request-ID when it is a sensible one, else a new one: 32 hex digits, a random half
    drawn once per process and a counter, so ids are unique across processes without drawing randomness
    on every request."""

    def __init__(self) -> None:
        self._prefix = secrets.token_hex(8)
        self._counter = itertools.count()

    def __call__(self, given: str) -> str:
        if _SENSIBLE_REQUEST_ID.fullmatch(given):
            return given
        return f"{self._prefix}{next(self._counter):016x}"


class _Children:
    """A metric's labelled children, each looked up once rather than on every request."""

    def __init__(self, metric: Any) -> None:
        self._metric = metric
        self._children: dict[tuple[str, ...], Any] = {}

    def __call__(self, *values: str) -> Any:
        child = self._children.get(values)
        if child is None:
            child = self._children[values] = self._metric.labels(*values)
        return child


class Meter:
    """What every request tells the operators, once it is answered: its id (the caller's X-Request-ID when it is
    a sensible one), the request metrics and the request log. Flask's hooks and the actions' short path
    (action_path.py) both answer through it."""

    def __init__(self, pool_stats: Callable[[], dict[str, int]] | None) -> None:
        self.request_id_for = _RequestIds()
        self._pool_gauges = _PoolGauges(pool_stats) if pool_stats is not None else None
        self._requests, self._latency, self._actions = _Children(REQUESTS), _Children(LATENCY), _Children(ACTIONS)

    def answered(
        self,
        method: str,
        path: str,
        route: str,
        endpoint: str,
        status: int,
        replayed: bool,
        request_id: str,
        elapsed: float,
    ) -> None:
        if endpoint not in UNMETERED:
            named = method if method in METHODS else "other"
            self._requests(route, named, str(status)).inc()
            self._latency(route, named).observe(elapsed)
            if replayed:
                IDEMPOTENT_REPLAYS.inc()
            elif status == 200 and endpoint in ACTION_ENDPOINTS:
                self._actions(ACTION_ENDPOINTS[endpoint]).inc()
            if status == 412:
                VERSION_CONFLICTS.inc()
            if self._pool_gauges is not None:
                self._pool_gauges.refresh()
        if request_log.isEnabledFor(logging.INFO):
            _log_request(method, path, route, status, request_id, elapsed)


def install(app: Flask, settings: Settings, meter: Meter) -> AddressLimits | None:
    """Request ids, the request log, metrics and /metrics, and the rate limiter (unless turned off): what the
    actions' short path counts with it."""

    @app.before_request
    def start() -> None:
        g.request_id = meter.request_id_for(request.headers.get(REQUEST_ID_HEADER, ""))
        g.started = time.perf_counter()

    @app.after_request
    def finish(response: Response) -> Response:
        # Runs after the limiter's own hook (Flask runs these in reverse order of registration).
        status = response.status_code
        if status == 429:
            response.headers["Retry-After"] = str(max(1, int(response.headers.get(LIMITER_RETRY_AFTER, "1"))))
        current = request._get_current_object()  # type: ignore[attr-defined]
        request_id = g.get("request_id") or meter.request_id_for(current.headers.get(REQUEST_ID_HEADER, ""))
        response.headers[REQUEST_ID_HEADER] = request_id
        elapsed = time.perf_counter() - g.get("started", time.perf_counter())
        route = current.url_rule.rule if current.url_rule is not None else "unmatched"
        # A read is never a retry answered from a kept reply: its headers are not searched for it.
        replayed = current.method not in ("GET", "HEAD") and bool(response.headers.get("Idempotent-Replayed"))
        meter.answered(
            current.method, current.path, route, current.endpoint or "", status, replayed, request_id, elapsed
        )
        return response

    app.add_url_rule("/metrics", "metrics", _metrics, methods=["GET"])
    return rate_limits.install(app, settings, UNMETERED) if settings.rate_limit else None


def trust_proxies(app: Flask, settings: Settings, counters: Storage) -> None:
    """The client's address as the proxies in front (PROXY_COUNT of them) forwarded it, and the client it belongs to
    (clients.py), before anything reads them; with no proxy counted, a request that came through one is noted
    (proxies.py)."""
    app.wsgi_app = clients.Clients(app.wsgi_app, settings.ipv6_client_prefix)  # type: ignore[method-assign]
    if not settings.proxy_count:
        untold = proxies.UntoldProxies(app.wsgi_app, counters)
        app.wsgi_app = untold  # type: ignore[method-assign]
        app.extensions["osmosis.untold_proxies"] = untold
    if settings.proxy_count:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxy_count, x_proto=settings.proxy_count)  # type: ignore[method-assign]


def _log_request(method: str, path: str, route: str, status: int, request_id: str, elapsed: float) -> None:
    fields = {
        "request_id": request_id,
        "method": method,
        "path": path,
        "route": route,
        "status": status,
        "duration_ms": round(elapsed * 1000, 2),
    }
    request_log.info("%s %s %s", method, path, status, extra={"fields": fields})


def _metrics() -> Response:
    registry = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        prometheus_multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)


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
