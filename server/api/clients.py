"""Who a client is, for everything counted per client: the rate limits, the sign-ups' own limit and the solver's
turns. An IPv4 client is its address, however it is written (`203.0.113.9`, `::ffff:203.0.113.9`, with a port);
an IPv6 client is the network of its first IPV6_CLIENT_PREFIX bits (64 by default), since a provider hands a whole
/64 to each customer (RFC 6177) and every address in it is theirs to use.

The client is worked out once a request, after the proxies' view of the address (PROXY_COUNT), and kept in the
request's WSGI environ, where the short path of the actions and Flask's hooks read it alike."""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Callable, Iterable
from typing import Any

CLIENT = "osmosis.client"
"""The request's client, in its WSGI environ."""
UNKNOWN = "unknown"
LONGEST_UNPARSED = 64
"""An address that is no IP address (a proxy's own word for it) counts as its first this many characters."""

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def client_of(address: str, ipv6_prefix: int) -> str:
    """The client an address belongs to: an IPv4 address, an IPv6 network, or the text itself when it is neither."""
    text = address.strip()
    host = text
    if text.startswith("[") and "]" in text:  # [2001:db8::1]:443
        host = text[1 : text.index("]")]
    elif text.count(":") == 1:  # 203.0.113.9:51234
        host = text.split(":", 1)[0]
    try:
        parsed = ipaddress.ip_address(host)
    except ValueError:
        return text[:LONGEST_UNPARSED] or UNKNOWN
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, ipv6_prefix), strict=False))
    return str(parsed)


def client(environ: dict[str, Any]) -> str:
    """The request's client (set by `Clients`), or its plain address where no `Clients` stands in front."""
    found = environ.get(CLIENT)
    return found if found is not None else environ.get("REMOTE_ADDR") or UNKNOWN


class Clients:
    """WSGI middleware: notes each request's client in its environ. Worked out once an address."""

    def __init__(self, wsgi_app: WsgiApp, ipv6_prefix: int) -> None:
        self._wsgi_app = wsgi_app
        self._client_of = functools.lru_cache(maxsize=8192)(functools.partial(client_of, ipv6_prefix=ipv6_prefix))

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        environ[CLIENT] = self._client_of(environ.get("REMOTE_ADDR") or UNKNOWN)
        return self._wsgi_app(environ, start_response)
