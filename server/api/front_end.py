"""The reference front end: static files that use only the public HTTP API, as any third party would."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

from ..config import shipped

STATIC = Path(__file__).parent / "web"
GUIDES = shipped("docs")
"""The guides the OpenAPI document points to (externalDocs)."""

blp = Blueprint("web", __name__, static_folder=str(STATIC), static_url_path="/app")


@blp.get("/")
def index() -> Response:
    return send_from_directory(STATIC, "index.html")


@blp.get("/favicon.ico")
def favicon() -> Response:
    """Browsers ask for it at this address even when the page names another one."""
    return send_from_directory(STATIC, "favicon.svg", mimetype="image/svg+xml")


@blp.get("/docs/<name>.md")
def guide(name: str) -> Response:
    return send_from_directory(GUIDES, f"{name}.md", mimetype="text/markdown")
