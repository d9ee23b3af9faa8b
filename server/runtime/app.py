"""The composition root: the WSGI application, assembled from the settings (the one place that knows every
part). gunicorn runs `server.runtime.app:create_app()`; the tests and benchmarks call it with a service of
their own."""

from __future__ import annotations

from collections.abc import Callable

from flask import Flask
from limits.storage import Storage, storage_from_string

from ..api import boundary, http_app, observability, pusher
from ..api.callers import viewer
from ..config import ConfigError, Settings
from ..live.hub import Hub
from ..service.games import GameService
from ..service.public_log import PublicLog
from ..store import PostgresStore, migrate, open_pool
from ..transparency.notes import COSIGNATURE_V1, NoteError, Verifier, parse_verifier
from . import shared_counters  # noqa: F401 -- registers the osmosis-shared:// storage with the limits package
from .log_key import log_signer
from .sequencer import Sequencer
from .solver_time import ComputeQueue, JobLeases, SolverTurns
from .turns import Turns
from .upkeep import Upkeep
from .witnessing import Witnesses


def create_app(settings: Settings | None = None, service: GameService | None = None) -> Flask:
    """The WSGI application. Without a `service`, it connects to settings.database_url, runs the solver in
    fair turns, the public log's sequencer and the close of the days; a service given is used as it is, and its
    log is sequenced, and its days closed, only when asked (`app.extensions["osmosis.sequencer"].run_once()`,
    `app.extensions["osmosis.upkeep"].run_once()`)."""
    settings = settings or Settings.from_env()
    app = http_app(settings)
    pool_stats = None
    store: PostgresStore | None = None
    if service is None:
        if settings.database_url is None:
            raise ConfigError("DATABASE_URL is not set: run `osmosis serve`, which starts an embedded PostgreSQL")
        pool = open_pool(settings.database_url, settings.pool_min_size, settings.pool_max_size,
                         settings.pool_timeout, settings.statement_timeout_ms)
        pool_stats = pool.get_stats
        app.extensions["osmosis.pool"] = pool
        store = PostgresStore(pool, migrate.head_revision())
        service = GameService(store, recent_games=settings.recent_games,
                              solver_time=SolverTurns(_solver_queue(settings)))
    witnesses = _witnesses(settings)
    # A service given (the tests') signs only with a key given: it makes no key file of its own.
    signer = log_signer(settings) if store is not None or settings.log_signing_key is not None else None
    public_log = PublicLog(service.store, service.store, signer, [w for w, _ in witnesses],
                           spacing=settings.log_interval_seconds)
    sequencer = Sequencer(public_log, settings.log_interval_seconds,
                          Witnesses(public_log, service.store, witnesses) if witnesses else None)
    app.extensions["osmosis.public_log"] = public_log
    app.extensions["osmosis.sequencer"] = sequencer
    upkeep = Upkeep(service)
    app.extensions["osmosis.upkeep"] = upkeep
    if store is not None:
        store.entries_logged = _waking(sequencer, upkeep)
        sequencer.start()
        upkeep.start()
    hub = Hub(service.store, poll_seconds=settings.live_poll_seconds)
    service.changes = hub
    app.extensions["osmosis.service"] = service
    app.extensions["osmosis.hub"] = hub
    observability.install(app, settings, pool_stats)
    boundary.install(app, viewer)
    app.extensions["osmosis.pusher"] = pusher.install(app, service, hub)
    return app


def _waking(*threads: Turns) -> Callable[[], None]:
    """What the store calls when a write gave the public log entries: a game begun or ended is work for the log's
    sequencer and, when a player's game ends, for the upkeep (which verifies its result)."""

    def wake() -> None:
        for thread in threads:
            thread.wake()

    return wake


def _solver_queue(settings: Settings) -> ComputeQueue:
    """Solver work in fair turns, each client's jobs in flight counted where its rate limits are counted."""
    counters = storage_from_string(settings.rate_limit_storage_uri, wrap_exceptions=True)
    if not isinstance(counters, Storage):
        raise ConfigError(f"RATE_LIMIT_STORAGE_URI names an asynchronous storage: {settings.rate_limit_storage_uri}")
    return ComputeQueue(JobLeases(counters, settings.solver_jobs_per_client))


def _witnesses(settings: Settings) -> list[tuple[Verifier, str]]:
    witnesses = []
    for vkey, url in settings.log_witnesses:
        try:
            verifier = parse_verifier(vkey)
        except NoteError as error:
            raise ConfigError(f"LOG_WITNESSES names a key that is not a witness's verifier key: {error}") from None
        if verifier.kind != COSIGNATURE_V1:
            raise ConfigError(f"LOG_WITNESSES: {verifier.name}'s key is not a cosignature key (type 0x04)")
        witnesses.append((verifier, url))
    return witnesses
