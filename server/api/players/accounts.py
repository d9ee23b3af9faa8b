"""Players: signing up, who you are, your API tokens, a player's page."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote
from uuid import UUID

from flask import Response
from flask.views import MethodView

from ...service.errors import ApiTokenNotFound
from ...service.games.documents import api_token_view, player_view
from .. import examples, replies
from ..callers import API_TOKEN, TOKEN_CODES, caller, reader
from ..common import Blueprint, request_idempotency, use_cases
from ..contract import BODY_ERRORS, LINK_HEADER, READ_ERRORS, REPLAYED_HEADER, answers, header, parameter
from ..examples import Later
from ..pages import game_list, next_page
from ..schemas import GameListQuerySchema, GameListSchema
from . import examples as player_examples
from .schemas import (
    ApiTokenCreatedSchema,
    ApiTokenListSchema,
    CreateApiTokenSchema,
    CreatePlayerSchema,
    PlayerCreatedSchema,
    PlayerProfileSchema,
    PlayerSchema,
)

blp = Blueprint(
    "players",
    __name__,
    url_prefix="/players",
    description="Players: accounts with API tokens (no passwords), their games and statistics",
)


class Players(MethodView):
    @blp.doc(operationId="createPlayer", parameters=[parameter("IdempotencyKey")], security=[])
    @blp.arguments(
        CreatePlayerSchema(),
        examples={"a person": {"value": {"name": "alice"}}, "a bot": {"value": {"name": "greedy-bot", "kind": "bot"}}},
    )
    @blp.response(
        201,
        PlayerCreatedSchema,
        headers={"Location": header("Location"), **REPLAYED_HEADER},
        example=Later(player_examples.player_made),
    )
    @answers(
        *READ_ERRORS,
        *BODY_ERRORS,
        409,
        only=("validation-failed", "invalid-name", "name-taken", "name-reserved", "idempotency-key-reused"),
    )
    def post(self, args: dict[str, Any]) -> Response:
        """Sign up: choose a name, get your first API token

        No password: the answer carries `token`, an API token with every scope, this once. Keep it (the front
        end keeps it in the browser); send it as `Authorization: Bearer osm_…` to create games that are yours,
        play them, and manage your tokens. `kind: bot` marks a bot's account: bots have boards of their own.
        Names are unique without regard to case or look-alike characters.
        """
        idempotency = request_idempotency(answer_holds_a_secret=True)
        result = use_cases().accounts.sign_up(args["name"], args["kind"], idempotency, replies.player_created)
        name = result.outcome.player.name if result.outcome else replies.replied_body(result)["player"]["name"]
        return replies.sent(result, {"Location": f"/players/{name}"}, secret_field="token")


class Me(MethodView):
    @blp.doc(operationId="getMe", security=API_TOKEN)
    @blp.response(200, PlayerSchema, example=Later(player_examples.player))
    @answers(*READ_ERRORS, 401, only=("validation-failed", *TOKEN_CODES))
    def get(self) -> dict[str, Any]:
        """Who your API token belongs to

        Any live token of yours answers, whatever its scopes: a client checks a token it was given here.
        """
        return player_view(caller().player)


class ApiTokens(MethodView):
    @blp.doc(operationId="listApiTokens", security=API_TOKEN)
    @blp.response(200, ApiTokenListSchema, example=Later(player_examples.api_token_list))
    @answers(*READ_ERRORS, 401, 403, only=("validation-failed", *TOKEN_CODES))
    def get(self) -> dict[str, Any]:
        """List your live API tokens, with their scopes and last use

        Needs a token with the `account` scope. The tokens themselves are not shown: the server keeps only
        their hashes.
        """
        return {"tokens": [api_token_view(token) for token in use_cases().accounts.tokens(caller())]}

    @blp.doc(operationId="createApiToken", parameters=[parameter("IdempotencyKey")], security=API_TOKEN)
    @blp.arguments(
        CreateApiTokenSchema(), examples={"a bot's token": {"value": {"label": "my bot", "scopes": ["play"]}}}
    )
    @blp.response(201, ApiTokenCreatedSchema, headers=REPLAYED_HEADER, example=Later(player_examples.api_token_made))
    @answers(
        *READ_ERRORS,
        *BODY_ERRORS,
        401,
        403,
        409,
        only=("validation-failed", "too-many-tokens", "idempotency-key-reused", *TOKEN_CODES),
    )
    def post(self, args: dict[str, Any]) -> Response:
        """Make another API token, for another device or a bot

        Needs a token with the `account` scope. The answer carries the new `token` this once. A player has
        at most 20 live tokens.
        """
        result = use_cases().accounts.add_token(
            caller(), args["label"], args["scopes"], request_idempotency(), replies.api_token_created
        )
        return replies.sent(result, {}, secret_field="token")


class ApiToken(MethodView):
    @blp.doc(operationId="revokeApiToken", security=API_TOKEN)
    @blp.response(204, description="Revoked: the token opens nothing from now on")
    @answers(*READ_ERRORS, *BODY_ERRORS, 401, 403, 404, only=("validation-failed", "token-not-found", *TOKEN_CODES))
    def delete(self, token_id: UUID) -> Response:
        """Revoke one of your API tokens

        Needs a token with the `account` scope; it may revoke itself. A token revoked already, or not yours,
        is a 404.
        """
        if not use_cases().accounts.revoke_token(caller(), token_id):
            raise ApiTokenNotFound(token_id)
        return Response(status=204)


class Player(MethodView):
    @blp.doc(operationId="getPlayer", security=[])
    @blp.response(200, PlayerProfileSchema, example=Later(player_examples.profile))
    @answers(*READ_ERRORS, 404, only=("validation-failed", "player-not-found"))
    def get(self, name: str) -> dict[str, Any]:
        """A player's page: name, kind, and statistics per preset

        Per preset: games, wins, the win rate with its 95% interval, the current and longest daily streak, the
        best win (fewest actions, no hint). Counted from the player's games (a projection of their logs, which
        `osmosis rebuild-stats` makes again). Names are looked up as they are compared: `Alice`, `ALICE` and
        `a1ice` find the same player.
        """
        return use_cases().profiles.profile(name)


class PlayerGames(MethodView):
    @blp.doc(operationId="listPlayerGames", security=[])
    @blp.arguments(GameListQuerySchema(), location="query")
    @blp.response(200, GameListSchema, headers=LINK_HEADER, example=Later(examples.game_list))
    @answers(*READ_ERRORS, 404, only=("validation-failed", "invalid-cursor", "player-not-found"))
    def get(self, args: dict[str, Any], name: str) -> Response:
        """A player's games, newest first, optionally by status, variant and how lately they were acted on

        Keyset pagination and filters as `listGames`. Their daily games of a day not closed yet are listed to them
        alone (with their API token).
        """
        player = use_cases().accounts.player(name)
        status, variant, acted_within = args.get("status"), args.get("variant"), args.get("acted_within")
        games, cursor = use_cases().queries.list_games(
            args["limit"], args.get("cursor"), status, variant, reader(), player.id, acted_within
        )
        path = f"/players/{quote(player.name)}/games"
        filters = {"status": status, "variant": variant, "acted_within": acted_within}
        next_url = None if cursor is None else next_page(path, {"limit": args["limit"], **filters, "cursor": cursor})
        return game_list(games, next_url, cursor)
