"""Settings, read from the environment once, at start-up. Every variable is listed in the README."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_RATE_LIMIT = "1200 per minute;50 per second"
DEFAULT_RATE_LIMIT_EXEMPT = ("127.0.0.0/8", "::1/128")
DEFAULT_SIGN_UP_RATE_LIMIT = "20 per hour;5 per minute"
DEFAULT_LOG_ORIGIN = "localhost/osmosis-log"


def shipped(name: str) -> Path:
    """A directory the server ships beside its code: inside the package when installed from a wheel,
    beside it in a checkout (the repository keeps `migrations/` and `deploy/` at its top)."""
    package = Path(__file__).resolve().parent
    inside = package / name
    return inside if inside.is_dir() else package.parent / name


class ConfigError(RuntimeError):
    """An environment variable has a value the server cannot use."""


@dataclass(frozen=True, slots=True)
class Settings:
    database_url: str | None = None
    read_database_url: str | None = None
    """Streaming replicas for the reads that can wait a moment (server/store/replicas.py); None: the primary's."""
    replica_max_lag_bytes: int = 1 << 20
    """PostgreSQL to use; None means: start the embedded server in `data_dir`."""
    data_dir: Path = field(default_factory=lambda: Path(os.environ.get("OSMOSIS_DATA_DIR", "var")))
    pool_min_size: int = 2
    pool_max_size: int = 10
    pool_timeout: float = 5.0
    """Seconds a request waits for a database connection before it gets 503."""
    statement_timeout_ms: int = 5000
    """The longest a statement runs, and a commit waits as long for its synchronous standby (0: no limit)."""
    cors_origins: tuple[str, ...] = ()
    """Browser origins allowed to call the API from other sites; "*" for any. Empty: same origin only."""
    rate_limit: str = DEFAULT_RATE_LIMIT
    """Per client address, in flask-limiter's notation; empty turns rate limiting off."""
    rate_limit_exempt: tuple[str, ...] = DEFAULT_RATE_LIMIT_EXEMPT
    """Networks whose requests no rate limit counts: by default this machine's own (a bot beside its server plays at
    full speed). A request that came through a proxy not counted in PROXY_COUNT is never exempt."""
    sign_up_rate_limit: str = DEFAULT_SIGN_UP_RATE_LIMIT
    """Sign-ups (POST /players) per client address, beside RATE_LIMIT: accounts made by the hundred are what a
    scout of the daily deal, or a cheat of the boards, needs. Empty: only RATE_LIMIT counts them."""
    rate_limit_storage_uri: str = "osmosis-shared://"
    """Where the counts of rate limits and solver jobs live: by default in memory every worker of this server
    shares (server/runtime/shared_counters.py); redis://… shares them between all instances too."""
    proxy_count: int = 0
    """How many proxies (nginx, a load balancer) stand in front: their X-Forwarded-For is trusted."""
    ipv6_client_prefix: int = 64
    """How many leading bits of an IPv6 address name its client, for every count kept per client
    (server/api/clients.py): a provider hands each customer a whole /64."""
    recent_games: int = 1024
    """Games each process keeps as it last wrote them, so that their next action skips the read."""
    action_short_path: bool = True
    """Whether a bot's plain action is answered without Flask's dispatch (server/api/action_path.py), exactly as
    the full path answers it; off: every request takes the full path."""
    body_seconds: float = 10.0
    """A request's body must arrive within this time (408 otherwise)."""
    live_poll_seconds: float = 2.0
    """How often each process reads the versions of the games it has followers of, in case a change
    notification was lost."""
    solver_jobs_per_client: int = 2
    """Solver jobs (hints, winnable deals, analyses, verifications) one client may have in flight."""
    log_signing_key: str | None = None
    """The public log's Ed25519 signing key in note format (PRIVATE+KEY+...); None: the one kept in `data_dir`,
    made on first start."""
    log_origin: str | None = None
    """The log's origin line (and key name); None: the signing key's name, or DEFAULT_LOG_ORIGIN for a new key."""
    log_interval_seconds: float = 1.0
    """The least time between two checkpoints: the sequencer signs one at most this often."""
    log_witnesses: tuple[tuple[str, str], ...] = ()
    """(verifier key, URL) of each witness every checkpoint is sent to, and whose cosignature it must carry to
    be published."""
    log_tiles_dir: Path | None = None
    """Where the log's tiles, bundles and published checkpoint are also written as they are made (C2SP
    tlog-tiles' layout), to serve as static files and to recover the log from; None: only in the database."""
    wal_archive: Path | None = None
    """Where the embedded PostgreSQL keeps every WAL segment as it is written, for `osmosis restore`."""

    @property
    def connection_hold_limit(self) -> float | None:
        """A request's statements' time and as much again for its commit to reach a standby."""
        return 2 * self.statement_timeout_ms / 1000 if self.statement_timeout_ms else None

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        return cls(
            database_url=env.get("DATABASE_URL") or None,
            read_database_url=env.get("READ_DATABASE_URL") or None,
            replica_max_lag_bytes=_int(env, "REPLICA_MAX_LAG_BYTES", 1 << 20, minimum=0),
            data_dir=Path(env.get("OSMOSIS_DATA_DIR", "var")),
            pool_min_size=_int(env, "POOL_MIN_SIZE", 2, minimum=0),
            pool_max_size=_int(env, "POOL_MAX_SIZE", 10, minimum=1),
            pool_timeout=float(_int(env, "POOL_TIMEOUT_MS", 5000, minimum=1)) / 1000,
            statement_timeout_ms=_int(env, "STATEMENT_TIMEOUT_MS", 5000, minimum=0),
            cors_origins=tuple(origin.strip() for origin in env.get("CORS_ORIGINS", "").split(",") if origin.strip()),
            rate_limit=env.get("RATE_LIMIT", DEFAULT_RATE_LIMIT),
            rate_limit_exempt=_networks(env, "RATE_LIMIT_EXEMPT", DEFAULT_RATE_LIMIT_EXEMPT),
            sign_up_rate_limit=env.get("SIGN_UP_RATE_LIMIT", DEFAULT_SIGN_UP_RATE_LIMIT),
            rate_limit_storage_uri=env.get("RATE_LIMIT_STORAGE_URI") or "osmosis-shared://",
            proxy_count=_int(env, "PROXY_COUNT", 0, minimum=0),
            ipv6_client_prefix=_int(env, "IPV6_CLIENT_PREFIX", 64, minimum=1, maximum=128),
            recent_games=_int(env, "RECENT_GAMES", 1024, minimum=0),
            action_short_path=_switch(env, "ACTION_SHORT_PATH", default=True),
            body_seconds=float(_int(env, "BODY_SECONDS", 10, minimum=1)),
            live_poll_seconds=float(_int(env, "LIVE_POLL_MS", 2000, minimum=10)) / 1000,
            solver_jobs_per_client=_int(env, "SOLVER_JOBS_PER_CLIENT", 2, minimum=1),
            log_signing_key=_key(env),
            log_origin=env.get("LOG_ORIGIN") or None,
            log_interval_seconds=float(_int(env, "LOG_INTERVAL_MS", 1000, minimum=10)) / 1000,
            log_witnesses=_witnesses(env.get("LOG_WITNESSES", "")),
            log_tiles_dir=Path(env["LOG_TILES_DIR"]) if env.get("LOG_TILES_DIR") else None,
            wal_archive=Path(env["OSMOSIS_WAL_ARCHIVE"]) if env.get("OSMOSIS_WAL_ARCHIVE") else None,
        )


def _key(env: Mapping[str, str]) -> str | None:
    """LOG_SIGNING_KEY, or the contents of the file LOG_SIGNING_KEY_FILE names."""
    if env.get("LOG_SIGNING_KEY"):
        return env["LOG_SIGNING_KEY"].strip()
    if env.get("LOG_SIGNING_KEY_FILE"):
        try:
            return Path(env["LOG_SIGNING_KEY_FILE"]).read_text().strip()
        except OSError as error:
            raise ConfigError(f"LOG_SIGNING_KEY_FILE cannot be read: {error}") from None
    return None


def _witnesses(raw: str) -> tuple[tuple[str, str], ...]:
    """LOG_WITNESSES: comma-separated witnesses, each its verifier key and its URL, separated by a space."""
    witnesses = []
    for item in raw.split(","):
        if not item.strip():
            continue
        parts = item.split()
        if len(parts) != 2 or not parts[1].startswith(("http://", "https://")):
            raise ConfigError(f"LOG_WITNESSES lists each witness as '<verifier key> <URL>', not {item.strip()!r}")
        witnesses.append((parts[0], parts[1]))
    return tuple(witnesses)


def _networks(env: Mapping[str, str], name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    """Comma-separated networks (10.0.0.0/8, ::1); an empty value is none at all."""
    raw = env.get(name)
    if raw is None:
        return default
    networks = []
    for item in raw.split(","):
        if item.strip():
            try:
                networks.append(str(ipaddress.ip_network(item.strip(), strict=False)))
            except ValueError:
                raise ConfigError(f"{name} lists networks like 127.0.0.0/8 or ::1, not {item.strip()!r}") from None
    return tuple(networks)


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw == "":
        return default
    if raw not in ("on", "off"):
        raise ConfigError(f"{name} must be on or off, not {raw[:20]!r}")
    return raw == "on"


def _int(env: Mapping[str, str], name: str, default: int, minimum: int, maximum: int | None = None) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, not {raw!r}") from None
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, not {value}")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{name} must be at most {maximum}, not {value}")
    return value
