"""Rate limits: each client's requests (clients.py: an IPv6 client is its /64), on whatever routes (RATE_LIMIT),
each player's from any address, the sign-ups' own (SIGN_UP_RATE_LIMIT), counted where every worker counts them
(RATE_LIMIT_STORAGE_URI).

flask-limiter counts the requests Flask dispatches. The actions' short path (action_path.py) counts its own in the
same counters, under the same keys, through `AddressLimits`: one count whichever path a request takes."""

from __future__ import annotations

import functools
import ipaddress
import time
from collections.abc import Callable, Collection
from typing import Any

from flask import Flask, g, request
from flask_limiter import ApplicationLimit, HeaderNames, Limiter, RequestLimit
from limits import RateLimitItem, parse_many
from prometheus_client import Counter

from ..config import Settings
from .callers import viewer
from .clients import client

LIMITER_RETRY_AFTER = "X-RateLimit-Retry-After"
"""Where the limiter writes its Retry-After: a 429 gets its Retry-After from it, a 503 keeps its own."""
RATE_LIMITED = Counter("osmosis_rate_limited_total", "Requests refused with 429")
FORWARDED_HEADERS = ("HTTP_FORWARDED", "HTTP_X_FORWARDED_FOR", "HTTP_X_REAL_IP")
"""Forwarded, X-Forwarded-For and X-Real-IP, as the WSGI environ names them."""
ADDRESS_SCOPE, PLAYER_SCOPE = "address", "player"
"""The counters' scopes: RATE_LIMIT's of each address, and of each player (flask-limiter keys a count by the
limit, the key and the scope)."""


def install(app: Flask, settings: Settings, unmetered: Collection[str]) -> AddressLimits:
    """Each address's limit, and each player's from any address; the sign-up's own, tighter. What the actions'
    short path counts with them is returned."""
    exempt = ExemptAddresses(settings)

    def uncounted() -> bool:
        return request.endpoint in unmetered or request.endpoint == "web.static" or exempt.of_request()

    per_address = ApplicationLimit(settings.rate_limit, scope=ADDRESS_SCOPE, exempt_when=uncounted)
    per_player = ApplicationLimit(
        settings.rate_limit,
        key_function=_calling_player,
        scope=PLAYER_SCOPE,
        exempt_when=lambda: uncounted() or not _calling_player(),
    )
    limiter = Limiter(
        key_func=lambda: client(request.environ),
        app=app,
        # Each request counts against its address, whatever its route, and a player's against the player too,
        # from whatever address: neither many routes nor many addresses multiply one client's allowance.
        application_limits=[per_address, per_player],
        storage_uri=settings.rate_limit_storage_uri,
        headers_enabled=True,
        # The limiter would write Retry-After on every response, even over a 503's own; it writes this
        # instead, and a 429 gets its Retry-After from it.
        header_name_mapping={HeaderNames.RETRY_AFTER: LIMITER_RETRY_AFTER},
        on_breach=lambda limit: RATE_LIMITED.inc(),
        # Redis out of reach: count in this process meanwhile (and log it) rather than refuse every request.
        in_memory_fallback_enabled=True,
        swallow_errors=True,
    )
    if settings.sign_up_rate_limit:
        signing_up = "players.Players"
        limited: Any = limiter.limit(
            settings.sign_up_rate_limit,
            methods=["POST"],
            scope="sign-up",
            exempt_when=exempt.of_request,
            override_defaults=False,
        )(app.view_functions[signing_up])
        app.view_functions[signing_up] = limited
    return AddressLimits(limiter, settings, exempt)


class ExemptAddresses:
    """Whether a request comes from a network RATE_LIMIT_EXEMPT lists. Through a proxy PROXY_COUNT does not count,
    every client would look like the proxy's own address: a request that names a forwarded address is then never
    exempt. Worked out once an address."""

    def __init__(self, settings: Settings) -> None:
        self._networks = [ipaddress.ip_network(network) for network in settings.rate_limit_exempt]
        self._trusts_proxies = settings.proxy_count > 0
        self._listed = functools.lru_cache(maxsize=4096)(self._in_networks)

    def of(self, environ: dict[str, Any]) -> bool:
        if not self._networks:
            return False
        forwarded = not self._trusts_proxies and any(name in environ for name in FORWARDED_HEADERS)
        return not forwarded and self._listed(environ.get("REMOTE_ADDR") or "")

    def of_request(self) -> bool:
        """The Flask request's, worked out once (the limiter asks twice)."""
        if not self._networks:
            return False
        found: bool | None = g.get("osmosis_rate_exempt")
        if found is None:
            found = g.osmosis_rate_exempt = self.of(request.environ)
        return found

    def _in_networks(self, remote_addr: str) -> bool:
        try:
            address = ipaddress.ip_address(remote_addr)
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self._networks)


def _calling_player() -> str:
    """The player a request's API token names (`player:<id>`), or "" when it names none (callers.viewer)."""
    found = viewer()
    return "" if found is None else f"player:{found}"


class AddressLimits:
    """RATE_LIMIT for a request that names no player (a game's own token): what flask-limiter counts for it,
    counted in its counters under its keys (the address, its scope), with the headers it would write.

    It only counts a request every limit still allows: one that a limit refuses, or one met while the counters are
    out of reach, is left to the full path, whose limiter answers it (429, or counting in memory meanwhile)."""

    def __init__(self, limiter: Limiter, settings: Settings, exempt: ExemptAddresses) -> None:
        self._limiter = limiter
        self._items: list[RateLimitItem] = sorted(parse_many(settings.rate_limit))
        self._exempt = exempt

    def allow(self, environ: dict[str, Any]) -> bool:
        """Whether every limit still allows the request (nothing counted): a client at its limit is refused at once,
        before its body is read."""
        if self._exempt.of(environ):
            return True
        if self._limiter._storage_dead:  # counting in memory until the storage is back: the limiter's own business
            return False
        args = (client(environ), ADDRESS_SCOPE)
        try:
            return all(self._limiter.limiter.test(item, *args) for item in self._items)
        except Exception:  # the storage failed: the full path's limiter falls back to memory and says so
            return False

    def counted(self, environ: dict[str, Any]) -> Callable[[str | None], list[tuple[str, str]]] | None:
        """Counts the request; the headers of its answer (given the answer's own Retry-After), or None when the full
        path must answer it (another request took the last one since `allow`)."""
        if self._exempt.of(environ):
            return lambda retry_after: []
        args = [client(environ), ADDRESS_SCOPE]
        counters = self._limiter.limiter
        try:
            if not all([counters.hit(item, *args) for item in self._items]):
                return None
        except Exception:  # the storage failed: the full path's limiter falls back to memory and says so
            return None
        shown = RequestLimit(self._limiter, self._items[0], args, False, False)
        return functools.partial(_limit_headers, shown)


def _limit_headers(shown: RequestLimit, retry_after: str | None) -> list[tuple[str, str]]:
    """The headers flask-limiter writes for the limit it shows (Limiter.__inject_headers)."""
    reset_at = shown.reset_at
    if retry_after is not None and retry_after.isdigit():
        reset_at = max(int(time.time() + int(retry_after)), reset_at)
    return [
        ("X-RateLimit-Limit", str(shown.limit.amount)),
        ("X-RateLimit-Remaining", str(shown.remaining)),
        ("X-RateLimit-Reset", str(shown.reset_at)),
        (LIMITER_RETRY_AFTER, str(int(reset_at - time.time()))),
    ]
