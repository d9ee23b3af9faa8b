"""A proxy in front that the server was not told of (PROXY_COUNT 0), said in the log and in /readyz.

Behind such a proxy every client has the proxy's address: one client's requests lock every other out of the rate
limits and the solver's turns, and the sign-ups' limit is the whole site's. A request naming a forwarded address
(X-Forwarded-For, Forwarded, X-Real-IP) while PROXY_COUNT is 0 is noted in the counters every worker of the server
shares (RATE_LIMIT_STORAGE_URI: every instance's, through Redis), at most once a minute a process so that a flood of
them costs nothing; each process logs it once, and /readyz says so until an hour after it was last noted."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from limits.storage import Storage

from .clients import WsgiApp
from .rate_limits import FORWARDED_HEADERS

UNTOLD = "osmosis/untold-proxy"
KEPT_SECONDS = 3600
NOTED_EVERY_SECONDS = 60.0
ADVICE = (
    "requests name a forwarded address (X-Forwarded-For, Forwarded or X-Real-IP) but PROXY_COUNT is 0: every client "
    "has the proxy's address, and one of them can lock out the others; set PROXY_COUNT to the proxies in front"
)

log = logging.getLogger(__name__)


class UntoldProxies:
    """WSGI middleware of a server told of no proxy: notes the requests that came through one."""

    def __init__(self, wsgi_app: WsgiApp, counters: Storage) -> None:
        self._wsgi_app = wsgi_app
        self._storage = counters
        self._next_note = 0.0
        self._logged = False

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if any(name in environ for name in FORWARDED_HEADERS):
            self._note()
        return self._wsgi_app(environ, start_response)

    def standing(self) -> dict[str, str]:
        """For /readyz: `proxies` and why, while a forwarded request was noted within the hour."""
        try:
            seen = self._storage.get(UNTOLD)
        except Exception:  # the counters out of reach: /readyz says what it knows of the rest
            return {}
        return {"proxies": ADVICE} if seen else {}

    def _note(self) -> None:
        now = time.monotonic()
        if now < self._next_note:
            return
        self._next_note = now + NOTED_EVERY_SECONDS
        if not self._logged:
            self._logged = True
            log.warning(ADVICE)
        try:
            self._storage.incr(UNTOLD, KEPT_SECONDS)
        except Exception:
            log.warning("the shared counters are out of reach: a forwarded request was not noted for /readyz")
