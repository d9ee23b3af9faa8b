"""The composition root: the WSGI application, assembled from the settings and the stores (the use cases are
composed in composition.py). gunicorn runs `server.runtime.app:create_app()`; the tests and benchmarks call it
with a store of their own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask
from limits.storage import Storage, storage_from_string

from ..api import action_path, boundary, http_app, observability, security_headers
from ..api.callers import refused_authorization, viewer
from ..api.streaming import pusher
from ..config import ConfigError, Settings
from ..live.hub import Hub
from ..service.ports import ReadStore, SolverTime, Store, at_once
from ..service.public_log.guard import CheckpointRecord, ForkGuard
from ..service.public_log.log import PublicLog
from ..service.replicas import ReplicaReads
from ..service.sources import Sources
from ..service.use_cases import UseCases
from ..store import PostgresStore, migrate, open_pool
from ..transparency.notes import Signer, Verifier
from . import shared_counters  # noqa: F401 -- registers the osmosis-shared:// storage with the limits package
from .composition import compose
from .log_files import TileDirectory, record_of, record_place
from .log_key import log_signer
from .referee import RefereeTurns
from .sequencer import Sequencer
from .solver_time import ComputeQueue, JobLeases, SolverTurns
from .turns import Turns
from .upkeep import Upkeep
from .witnessing import WitnessCheckpointReader, Witnesses, witnesses_of


def create_app(
    settings: Settings | None = None,
    store: Store | None = None,
    read_store: ReadStore | None = None,
    *,
    sources: Sources | None = None,
) -> Flask:
    """The WSGI application on `store`, its reads that only answer clients on `read_store` when given (the rule
    for reading your own writes: service.ports.GameReads).

    Without a `store`, it opens its own on settings.database_url and, owning it, runs what keeps it: the solver in
    fair turns, the public log's sequencer and the upkeep (daily deals, left games, results, kept replies), each in
    its thread. A store given is its caller's: the
    solver runs at once, no key file is made (the log is signed only with settings.log_signing_key), and the
    sequencer and upkeep take a turn only when asked (`app.extensions["osmosis.sequencer"].run_once()`,
    `app.extensions["osmosis.upkeep"].run_once()`). `sources`: the clock, seeds, tokens and ids (tests give theirs)."""
    settings = settings or Settings.from_env()
    app = http_app(settings)
    pool_stats = None
    owned = store is None
    solver_time: SolverTime = at_once
    if store is None:
        store = _own_store(settings)
        pool_stats = store.pool.get_stats
        app.extensions["osmosis.pool"] = store.pool
        solver_time = SolverTurns(_solver_queue(settings))
        if read_store is None and settings.read_database_url is not None:
            read_store = _replica_reads(settings, store)
    witnesses = witnesses_of(settings)
    public_log = _public_log(settings, store, store if read_store is None else read_store, witnesses, owned)
    hub = Hub(store, poll_seconds=settings.live_poll_seconds)
    use_cases = compose(
        store,
        read_store,
        changes=hub,
        solver_time=solver_time,
        sources=sources,
        recent_games=settings.recent_games,
        public_log=public_log,
    )
    sequencer, upkeep, referee = _turns(settings, store, public_log, witnesses, use_cases, run=owned)
    app.extensions.update(
        {
            "osmosis.use_cases": use_cases,
            "osmosis.sequencer": sequencer,
            "osmosis.upkeep": upkeep,
            "osmosis.referee": referee,
            "osmosis.hub": hub,
        }
    )
    _requests_pass_through(app, settings, pool_stats)
    app.extensions["osmosis.pusher"] = pusher.install(app, use_cases.queries, hub)
    return app


def _requests_pass_through(app: Flask, settings: Settings, pool_stats: Callable[[], dict[str, int]] | None) -> None:
    """What every request passes through, from the outside in: the security headers, the proxies' view of the
    client, the actions' short path, and Flask with its hooks (request ids, metrics and logs; rate limits; the
    boundary)."""
    meter = observability.Meter(pool_stats)
    address_limits = observability.install(app, settings, meter)
    boundary.install(app, viewer, refused_authorization)
    action_path.install(app, settings, meter, address_limits)
    observability.trust_proxies(app, settings, _shared_counters(settings))
    security_headers.install(app)


def _own_store(settings: Settings) -> PostgresStore:
    if settings.database_url is None:
        raise ConfigError("DATABASE_URL is not set: run `osmosis serve`, which starts an embedded PostgreSQL")
    pool = open_pool(
        settings.database_url,
        settings.pool_min_size,
        settings.pool_max_size,
        settings.pool_timeout,
        settings.statement_timeout_ms,
    )
    return PostgresStore(pool, migrate.head_revision(), hold_limit=settings.connection_hold_limit)


def _public_log(
    settings: Settings, store: Store, reads: ReadStore, witnesses: list[tuple[Verifier, str]], owned: bool
) -> PublicLog:
    signer = log_signer(settings) if owned or settings.log_signing_key is not None else None
    return PublicLog(
        store,
        reads,
        signer,
        [w for w, _ in witnesses],
        spacing=settings.log_interval_seconds,
        **_kept_outside(settings, signer, witnesses, owned),
    )


def _turns(
    settings: Settings,
    store: Store,
    public_log: PublicLog,
    witnesses: list[tuple[Verifier, str]],
    use_cases: UseCases,
    run: bool,
) -> tuple[Sequencer, Upkeep, RefereeTurns]:
    """The public log's sequencer, the upkeep and the competitions' referee; started, each in its thread, when `run`
    (the app owns its store)."""
    sequencer = Sequencer(
        public_log,
        settings.log_interval_seconds,
        Witnesses(public_log, store, witnesses) if witnesses else None,
        refusing=observability.log_signing_refused,
    )
    upkeep = Upkeep(use_cases.chores)
    referee = RefereeTurns(use_cases.referee)
    if isinstance(store, PostgresStore) and run:
        wake_on_work(store, sequencer, upkeep, referee)
        sequencer.start()
        upkeep.start()
        referee.start()
    return sequencer, upkeep, referee


REPLICA_CONNECTION_LIFETIME = 30.0


def _replica_reads(settings: Settings, primary: PostgresStore) -> ReplicaReads:
    assert settings.read_database_url is not None
    # With prefer-standby, a connection made while no standby answered is the primary's: renewed every half
    # minute, the pool's connections go back to the standbys once they are back.
    pool = open_pool(
        settings.read_database_url,
        1,
        settings.pool_max_size,
        settings.pool_timeout,
        settings.statement_timeout_ms,
        max_lifetime=REPLICA_CONNECTION_LIFETIME,
    )
    replica = PostgresStore(pool, migrate.head_revision(), hold_limit=settings.connection_hold_limit)
    return ReplicaReads(replica, primary, settings.replica_max_lag_bytes, fell_back=observability.read_on_the_primary)


def _kept_outside(
    settings: Settings, signer: Signer | None, witnesses: list[tuple[Verifier, str]], owned: bool
) -> dict[str, Any]:
    """What the log keeps outside its database, and the guard that compares the database with it: the record of
    its checkpoints in the data directory (when this process owns its store: a store the tests give is theirs,
    and so is its log), the tiles directory with the deployment's record, and what the witnesses cosigned. The
    deployment's record is the tiles directory's when there is one, else the data directory's: its place is
    claimed in the database, and an instance keeping its record elsewhere signs nothing."""
    if signer is None:
        return {}
    records: list[tuple[str, CheckpointRecord]] = []
    if owned:
        records.append(("the last checkpoint recorded beside its key", record_of(settings.data_dir, signer.verifier)))
    mirror = TileDirectory(settings.log_tiles_dir) if settings.log_tiles_dir is not None else None
    if mirror is not None:
        records.append(("the checkpoint recorded in its tiles directory", mirror))
    place = record_place(settings.log_tiles_dir or settings.data_dir) if owned else None
    reader = WitnessCheckpointReader(signer.name, witnesses) if witnesses else None
    guard = ForkGuard(signer.verifier, records, reader, place)
    return {"records": [record for _, record in records], "guard": guard, "mirror": mirror}


def wake_on_work(store: PostgresStore, sequencer: Turns, upkeep: Turns, referee: Turns) -> None:
    """Whom the store wakes after a commit: a write that gave the public log entries (a game begun or ended) is work
    for the log's sequencer and, when a player's game ends, for the upkeep (which verifies its result); a new clock (a
    competition announced, an entrant's game begun) is the referee's, and nothing else is: a game of no competition
    costs it nothing."""

    def entries_logged() -> None:
        sequencer.wake()
        upkeep.wake()

    store.entries_logged = entries_logged
    store.clocks_set = referee.wake


def _solver_queue(settings: Settings) -> ComputeQueue:
    """Solver work in fair turns, each client's jobs in flight counted where its rate limits are counted."""
    return ComputeQueue(JobLeases(_shared_counters(settings), settings.solver_jobs_per_client))


def _shared_counters(settings: Settings) -> Storage:
    """The counters every worker (and, through Redis, every instance) shares, where the rate limits count."""
    counters = storage_from_string(settings.rate_limit_storage_uri, wrap_exceptions=True)
    if not isinstance(counters, Storage):
        raise ConfigError(f"RATE_LIMIT_STORAGE_URI names an asynchronous storage: {settings.rate_limit_storage_uri}")
    return counters
