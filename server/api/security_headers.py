"""What every response tells the browser about how it may be used: the front end keeps a player's API token in
localStorage, so a page of it framed by another site could be clicked through, and a file sniffed as another type
could run. Pages load only the server's own scripts, styles, images and connections, and no one may frame them;
everything else (the API, static files, the guides) may not be framed, run or sniffed at all."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask

PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The front end's pages: its modules, its stylesheet and SVG from the server itself, fetch and EventSource to it."""

RESOURCE_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
"""Anything that is not a page: a JSON answer, a script or a stylesheet fetched, a Markdown guide."""


COMMON = [
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),  # frame-ancestors' older spelling, for older browsers
    ("Referrer-Policy", "same-origin"),
]
PAGE_HEADERS = [*COMMON, ("Content-Security-Policy", PAGE_POLICY)]
RESOURCE_HEADERS = [*COMMON, ("Content-Security-Policy", RESOURCE_POLICY)]


def install(app: Flask) -> None:
    """Added where the response starts (WSGI), as a list: Flask's header objects cost a request a hundred calls."""
    serve = app.wsgi_app

    def with_policies(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            # No body, no policy (a 304, a 204): a browser keeps the policy of the copy it revalidated, and a
            # resource's policy sent with a page's 304 would block the page's own scripts.
            added = COMMON
            for name, value in headers:
                if name == "Content-Type":
                    added = PAGE_HEADERS if value.startswith("text/html") else RESOURCE_HEADERS
                    break
            return start_response(status, headers + added, exc_info)

        served: Iterable[bytes] = serve(environ, start)
        return served

    app.wsgi_app = with_policies  # type: ignore[method-assign]
