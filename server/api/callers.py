"""Who calls: the bearer token of a request, read once, as a game's own player token or a player's API token."""

from __future__ import annotations

from uuid import UUID

from flask import g, request

from ..game.callers import Caller
from ..game.commands import Credential
from ..service.errors import ServiceError, Unauthorized
from ..service.players.tokens import PLAY, is_api_token
from .common import use_cases

API_TOKEN: list[dict[str, list[str]]] = [{"apiToken": []}]
"""An operation's security: a player's API token."""
TOKEN_CODES = ("unauthorized", "forbidden")
"""What an operation that needs an API token may answer for the token: none or a dead one, or too few scopes."""


def bearer() -> str | None:
    """The request's bearer token, if it has one."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def refused_authorization() -> str | None:
    """Why the request's Authorization header cannot be honoured (None when it has none, or one that can be): not
    `Bearer <token>`, or an API token that opens nothing. A client with a broken token is told so, never served as
    if it had sent none."""
    header = request.environ.get("HTTP_AUTHORIZATION")  # the header, without building werkzeug's view of them all
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or " " in token:
        return "the Authorization header is not `Bearer <token>`: send your token that way, or no Authorization header"
    if is_api_token(token):
        try:
            caller()
        except Unauthorized as refused:
            return str(refused)
    return None


def credential() -> Credential:
    """What the request presents to act on a game; checked before anything else in the request, so that no one
    learns more. An API token (`osm_…`) is the player it names."""
    token = bearer()
    if token is None:
        raise Unauthorized(
            "this action needs the game's player token, or your API token: Authorization: Bearer <token>"
        )
    return caller() if is_api_token(token) else token


def caller() -> Caller:
    """The player whose API token the request presents; Unauthorized without a live one."""
    if "osmosis_caller" not in g:
        token = bearer()
        if token is None or not is_api_token(token):
            raise Unauthorized("this needs your API token: Authorization: Bearer osm_…")
        g.osmosis_caller = use_cases().accounts.authenticate(token)
    found: Caller = g.osmosis_caller
    return found


def optional_caller() -> Caller | None:
    """The player calling, when the request presents an API token; None when it presents none."""
    token = bearer()
    return caller() if token is not None and is_api_token(token) else None


def optional_player() -> Caller | None:
    """The player calling where only a player's API token means anything (a game's player token names no one):
    Unauthorized for any other token."""
    token = bearer()
    if token is not None and not is_api_token(token):
        raise Unauthorized(
            "this takes your API token (osm_…) or no Authorization header; a game's token names no player"
        )
    return optional_caller()


def viewer() -> UUID | None:
    """The player calling, for the rate limits and solver time: the player of the request's API token; None for a
    request without one, or with one that opens nothing now (a read that anyone may make answers it all the same;
    an action is refused by its own check)."""
    found = _live_caller()
    return None if found is None else found.player.id


def reader() -> UUID | None:
    """The player calling, for what only they may read (their daily games before the day closes): the player of
    the request's API token when it has the `play` scope (an `account` token manages tokens, and reads what
    anyone reads); None otherwise."""
    found = _live_caller()
    return None if found is None or PLAY not in found.token.scopes else found.player.id


def _live_caller() -> Caller | None:
    try:
        return optional_caller()
    except ServiceError:
        return None


def readable(game_id: UUID) -> None:
    """Raises GameNotFound unless the request may read the game (service.queries.readable)."""
    use_cases().queries.readable(game_id, reader())
