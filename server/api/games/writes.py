"""What every write on a game shares: the versions it may land on (expected_version, If-Match), its errors, its
documentation, and its answer with the game's ETag."""

from __future__ import annotations

import re
from typing import Any, TypedDict

from flask import Response, request

from ...game.change import Change
from ...game.commands import Idempotency
from ...game.errors import VersionConflict
from ...rules import InvalidInput
from ...service.outcomes import Answered
from .. import replies
from ..common import etag, request_idempotency
from ..contract import ETAG_HEADER, REPLAYED_HEADER, parameter
from ..examples import Later
from .action_schemas import ActionResultSchema
from .blueprint import blp

ACTION_CODES = (
    "game-not-found",
    "illegal-action",
    "game-over",
    "day-closed",
    "clock-expired",
    "undo-in-competition",
    "validation-failed",
    "invalid-input",
    "idempotency-key-reused",
)


def expected_versions(args: dict[str, Any]) -> frozenset[int] | None:
    """The versions the action may be taken on (None: any), from `expected_version` in the body and the
    If-Match header; when both are given, the body's version must be one the header names."""
    return versions_of(args.get("expected_version"), request.headers.get("If-Match"))


def versions_of(from_body: int | None, if_match: str | None) -> frozenset[int] | None:
    """The versions `expected_version` and an If-Match header allow (None: any)."""
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


class Written(TypedDict):
    """What a command on a game takes from its request besides the game and the caller."""

    versions: frozenset[int] | None
    idempotency: Idempotency | None


def written(args: dict[str, Any]) -> Written:
    """The versions the request allows its command on, and its Idempotency-Key: the key read first (an unreadable
    key is 422 whatever the versions say, as the contract orders a request's faults), after who calls."""
    idempotency = request_idempotency()
    return {"versions": expected_versions(args), "idempotency": idempotency}


def action_response(answered: Answered[Change]) -> Response:
    return replies.sent(answered, action_headers(answered))


def action_headers(answered: Answered[Change]) -> dict[str, str]:
    """An action's answer's own headers: the game's ETag (a retry's from the reply it gets again)."""
    version = answered.outcome.game.version if answered.outcome else replies.replied_body(answered)["game"]["version"]
    return {"ETag": etag(version)}


def write_doc(operation_id: str) -> Any:
    return blp.doc(
        operationId=operation_id,
        parameters=[parameter("IdempotencyKey"), parameter("IfMatch")],
        security=[{"playerToken": []}, {"apiToken": []}],
    )


def written_action(example: Later) -> Any:
    return blp.response(200, ActionResultSchema, headers={**ETAG_HEADER, **REPLAYED_HEADER}, example=example)
