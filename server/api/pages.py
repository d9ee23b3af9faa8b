"""Bodies as the use cases made them, and pages of lists: the next page's URL, in the body and the Link header."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import Response

from ..game.document import to_json


def json_response(body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """The body as JSON, as the service made it. The schemas in the decorators document these bodies
    (and schemathesis checks the two agree); dumping them through marshmallow again would only cost time
    on the hottest paths."""
    return Response(to_json(body), status=status, headers=headers, mimetype="application/json")


def next_page(path: str, params: dict[str, Any]) -> str:
    return f"{path}?{urlencode({name: value for name, value in params.items() if value is not None})}"


def game_list(games: list[dict[str, Any]], next_url: str | None, cursor: str | None) -> Response:
    """A page of games, with the next page's URL in the body and the Link header."""
    return json_response({"games": games, "next": next_url, "next_cursor": cursor}, headers=link_header(next_url))


def link_header(next_url: str | None) -> dict[str, str]:
    return {"Link": f'<{next_url}>; rel="next"'} if next_url else {}
