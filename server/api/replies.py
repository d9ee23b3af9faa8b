"""How the API answers what the use cases did: the status and body of each write, as the client gets it and
as a retry with the same Idempotency-Key gets it again (the use case keeps this reply with its write)."""

from __future__ import annotations

import json
from typing import Any

from flask import Response

from ..game.change import Reply
from ..game.document import to_json
from ..service.games.documents import api_token_view, player_view, sealed_deal_view
from ..service.outcomes import Answered, SealedDealMade
from ..service.players.accounts import PlayerMade, TokenMade


def sealed_deal(made: SealedDealMade) -> Reply:
    return Reply(201, to_json(sealed_deal_view(made.deal)))


def player_created(made: PlayerMade) -> Reply:
    """The player and their first token's record; the token itself is added when it is sent, never kept."""
    return Reply(201, to_json({"player": player_view(made.player), "api_token": api_token_view(made.token)}))


def api_token_created(made: TokenMade) -> Reply:
    return Reply(201, to_json({"api_token": api_token_view(made.token)}))


def sent(answered: Answered[Any], headers: dict[str, str], secret_field: str = "player_token") -> Response:
    """The reply as a response, the token it makes (a created game's player token, a player's API token) added
    last as `secret_field`; a retry's marked as one."""
    status, text = answer_of(answered, headers, secret_field)
    return Response(text, status=status, headers=headers, mimetype="application/json")


def answer_of(answered: Answered[Any], headers: dict[str, str], secret_field: str = "player_token") -> tuple[int, str]:
    """The status and JSON text of the answer (`sent`), adding to `headers` what its reply needs."""
    assert answered.reply is not None, "the API answers every write"
    text = answered.reply.text
    if answered.player_token is not None:
        text = f'{text[:-1]},"{secret_field}":{json.dumps(answered.player_token)}}}'
    if answered.is_retry:
        headers["Idempotent-Replayed"] = "true"
    return answered.reply.status, text


def replied_body(answered: Answered[Any]) -> dict[str, Any]:
    """A retry's reply as data (its headers come from it); an answer to a new request has its outcome."""
    assert answered.reply is not None
    body: dict[str, Any] = json.loads(answered.reply.text)
    return body
