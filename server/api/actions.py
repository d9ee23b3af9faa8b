"""Acting on a game: any legal action as the game lists it, and the older move, draw and resign routes."""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

from flask import Response, request
from flask.views import MethodView

from ..rules import InvalidInput, action_from_dict
from ..service.errors import VersionConflict
from ..service.outcomes import ActionTaken, Answered
from . import examples, replies
from .callers import credential
from .common import etag, request_idempotency, use_cases
from .contract import ACTION_ERRORS, ETAG_HEADER, REPLAYED_HEADER, answers, parameter
from .games import blp
from .schemas import ActionRequestSchema, ActionResultSchema, ActionSubmissionSchema, MoveSchema

ACTION_CODES = (
    "game-not-found",
    "illegal-action",
    "game-over",
    "day-closed",
    "validation-failed",
    "invalid-input",
    "idempotency-key-reused",
)


def expected_versions(args: dict[str, Any]) -> frozenset[int] | None:
    """The versions the action may be taken on (None: any), from `expected_version` in the body and the
    If-Match header; when both are given, the body's version must be one the header names."""
    from_body = args.get("expected_version")
    if_match = request.headers.get("If-Match")
    if if_match is None or if_match.strip() == "*":
        return None if from_body is None else frozenset((from_body,))
    named = _versions_named(if_match)
    if from_body is None:
        return named
    if from_body not in named:
        raise InvalidInput(f"If-Match names other versions than expected_version ({from_body})")
    return frozenset((from_body,))


_ENTITY_TAG = re.compile(r'\s*(?:W/)?"([^"]*)"\s*|\s*([0-9]+)\s*')


def _versions_named(if_match: str) -> frozenset[int]:
    """The versions an If-Match list names (RFC 9110: any of them may match). A weak tag counts like a strong
    one: a version names the game exactly, and proxies that compress make tags weak. A tag that is not a
    version of any game, or a list that cannot be read, names none, and the action is refused with 412."""
    versions = set()
    for element in if_match.split(","):
        match = _ENTITY_TAG.fullmatch(element)
        if match is None:
            raise VersionConflict('If-Match is not a list of ETags like "3"')
        tag = match.group(1) if match.group(1) is not None else match.group(2)
        if tag.isascii() and tag.isdigit() and len(tag) <= 10:
            versions.add(int(tag))
    if not versions:
        raise VersionConflict('If-Match names no version of this game: its ETag is its version, like "3"')
    return frozenset(versions)


def action_response(answered: Answered[ActionTaken]) -> Response:
    version = answered.outcome.game.version if answered.outcome else replies.replied_body(answered)["game"]["version"]
    return replies.sent(answered, {"ETag": etag(version)})


def write_doc(operation_id: str) -> Any:
    return blp.doc(
        operationId=operation_id,
        parameters=[parameter("IdempotencyKey"), parameter("IfMatch")],
        security=[{"playerToken": []}, {"apiToken": []}],
    )


def _written_action(example: dict[str, Any]) -> Any:
    return blp.response(200, ActionResultSchema, headers={**ETAG_HEADER, **REPLAYED_HEADER}, example=example)


class Actions(MethodView):
    @write_doc("takeAction")
    @blp.arguments(
        ActionSubmissionSchema(),
        examples={
            "move": {"value": {"action": examples.move_request(), "expected_version": 3}},
            "deal": {"value": {"action": {"kind": "deal"}}},
            "resign": {"value": {"action": {"kind": "resign"}}},
        },
    )
    @_written_action(examples.moved())
    @answers(*ACTION_ERRORS, only=ACTION_CODES)
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Take an action: one of the game's legal_actions, as it lists it, or resign

        The body's `action` is exactly one of the objects in the game's `legal_actions` (a move names its
        card, where it is and where it goes; a deal or a redeal only its kind), or `{"kind": "resign"}`.
        A bot reads the game, picks a legal action and posts it unchanged. With `expected_version` (or
        If-Match) the action lands only on that version of the game. The answer is the game after the action
        and the events it appended: a winning move appends `card_played`, `game_won` and `seeds_revealed`.
        """
        token, idempotency = credential(), request_idempotency()
        action = action_from_dict(args["action"])
        result = use_cases().acting.act(
            game_id,
            token,
            action,
            versions=expected_versions(args),
            idempotency=idempotency,
            answer=replies.action_taken,
        )
        return action_response(result)


class Moves(MethodView):
    @write_doc("playMove")
    @blp.arguments(MoveSchema(), example={"card": "7S"})
    @_written_action(examples.moved())
    @answers(*ACTION_ERRORS, only=ACTION_CODES)
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Play a card to its foundation, or to the free cell with "to": "cell\"

        The server finds where the card is and which foundation takes it; `from` and `to`, when given, are
        checked (a mismatch is a 409 naming the rule). `takeAction` does the same with a legal action as the
        game lists it.
        """
        token, idempotency = credential(), request_idempotency()
        move = action_from_dict({**args, "kind": "move"})
        result = use_cases().acting.act(
            game_id, token, move, versions=expected_versions(args), idempotency=idempotency, answer=replies.action_taken
        )
        return action_response(result)


class Draw(MethodView):
    @write_doc("drawCards")
    @blp.arguments(ActionRequestSchema(), required=False, example={"expected_version": 3})
    @_written_action(examples.dealt())
    @answers(*ACTION_ERRORS, only=ACTION_CODES)
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Deal from the stock to the waste, or redeal the waste when the stock is empty

        The action `deal` (or `redeal` when the stock is empty and a pass is left), whichever the position
        allows: the event is `cards_dealt` or `waste_redealt`.
        """
        token, idempotency = credential(), request_idempotency()
        return action_response(
            use_cases().acting.draw(
                game_id, token, versions=expected_versions(args), idempotency=idempotency, answer=replies.action_taken
            )
        )


class Resignation(MethodView):
    @write_doc("resignGame")
    @blp.arguments(ActionRequestSchema(), required=False, example={})
    @_written_action(examples.resigned())
    @answers(*ACTION_ERRORS, only=ACTION_CODES)
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Give up the game: it ends as resigned and its seeds are revealed

        Appends `game_resigned` and `seeds_revealed`; the game body then shows both seeds in `deal`.
        """
        token, idempotency = credential(), request_idempotency()
        return action_response(
            use_cases().acting.resign(
                game_id, token, versions=expected_versions(args), idempotency=idempotency, answer=replies.action_taken
            )
        )
