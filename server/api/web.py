"""The reference front end: static files that use only the public HTTP API, as any third party would."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

STATIC = Path(__file__).parent / "web"

blp = Blueprint("web", __name__, static_folder=str(STATIC), static_url_path="/app")


@blp.get("/")
def index() -> Response:
    return send_from_directory(STATIC, "index.html")
