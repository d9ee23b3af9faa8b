"""The games' blueprint: the games, their logs and the actions on them, under /games (one tag, which generated SDKs
group these operations by)."""

from __future__ import annotations

from ..common import Blueprint

blp = Blueprint("games", __name__, url_prefix="/games", description="Games and their move logs")
# Every @blp.arguments takes a schema instance, not its class: given a class, webargs builds a new schema
# on every request.
