"""What every response tells the browser about how it may be used: the front end keeps a player's API token in
localStorage, so a page of it framed by another site could be clicked through, and a file sniffed as another type
could run. Pages load only the server's own scripts, styles, images and connections, and no one may frame them;
everything else (the API, static files, the guides) may not be framed, run or sniffed at all."""

from __future__ import annotations

from flask import Flask, Response

PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The front end's pages: its modules, its stylesheet and SVG from the server itself, fetch and EventSource to it."""

RESOURCE_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
"""Anything that is not a page: a JSON answer, a script or a stylesheet fetched, a Markdown guide."""


def install(app: Flask) -> None:
    @app.after_request
    def protect(response: Response) -> Response:
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"  # frame-ancestors' older spelling, for older browsers
        response.headers["Referrer-Policy"] = "same-origin"
        page = response.mimetype == "text/html"
        response.headers["Content-Security-Policy"] = PAGE_POLICY if page else RESOURCE_POLICY
        return response
