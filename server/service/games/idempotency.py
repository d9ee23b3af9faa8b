"""Idempotency-Key: a retry gets the first response to its key, byte for byte, and changes nothing.

A response is stored with the action it answers, in the same statement, under a hash of its scope and
key; the raw key stays with the client. A created game's player token is stored apart from the body,
XORed with a pad only the raw key can draw, so the stored responses reveal no token. Responses are kept
KEPT_FOR, then the upkeep forgets them: a key sent again after that is a new request.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta
from typing import Any

from ...game.change import Reply
from ...game.commands import Idempotency
from ..errors import IdempotencyKeyReused
from ..outcomes import Answered
from ..ports import KeptResponses
from ..records import StoredResponse

KEPT_FOR = timedelta(hours=24)
"""How long a reply is kept for its retries at least (docs/api.md, "Idempotency"), as Stripe keeps its keys."""
FORGOTTEN_A_TURN = 1000
"""Replies one turn of the upkeep forgets at most: the turn stays short, and the next goes on."""


def key_hash(scope: str, key: str) -> str:
    return hashlib.sha256(f"{scope}\x00{key}".encode()).hexdigest()


def work_of(scope: str, idempotency: Idempotency | None) -> str | None:
    """What names a request's solver work, so that its retries wait for it (SolverTime's `once_for`)."""
    return None if idempotency is None else key_hash(scope, idempotency.key)


def kept_reply(
    scope: str, idempotency: Idempotency | None, reply: Reply | None, player_token: str | None = None
) -> StoredResponse | None:
    """The reply as kept for retries with the key (none without a key): its text as sent, and a created game's
    player token only wrapped under the raw key, which the server never keeps."""
    if idempotency is None:
        return None
    if reply is None:
        raise ValueError("a write with an Idempotency-Key needs an answer to keep for its retries")
    wrapped = None
    if player_token is not None:
        token = player_token.encode()
        wrapped = _xor(token, _pad(scope, idempotency.key, len(token))).hex()
    return StoredResponse(
        scope, key_hash(scope, idempotency.key), idempotency.fingerprint, reply.status, reply.text, wrapped
    )


def first_reply(stored: StoredResponse, idempotency: Idempotency) -> tuple[Reply, str | None]:
    """The first reply, for a retry with the same key, and a created game's player token unwrapped;
    IdempotencyKeyReused for another request."""
    if not hmac.compare_digest(stored.fingerprint, idempotency.fingerprint):
        raise IdempotencyKeyReused(
            "this Idempotency-Key was first used with a different request (another body, or, for a request whose "
            "answer holds a token, another client address); use a new key for a new request"
        )
    reply = Reply(stored.status, stored.body)
    if stored.player_token_wrapped is None:
        return reply, None
    wrapped = bytes.fromhex(stored.player_token_wrapped)
    return reply, _xor(wrapped, _pad(stored.scope, idempotency.key, len(wrapped))).decode()


def kept_answer(responses: KeptResponses, scope: str, idempotency: Idempotency) -> Answered[Any] | None:
    """A retry's answer: the first reply kept for its key (with the token that write made, unwrapped), if any."""
    stored = responses.find_response(scope, key_hash(scope, idempotency.key))
    if stored is None:
        return None
    reply, token = first_reply(stored, idempotency)
    return Answered(reply, None, token)


def answer_after_race(responses: KeptResponses, scope: str, idempotency: Idempotency | None) -> Answered[Any]:
    """The answer of the request with the same key whose write landed first (the store refused this one's)."""
    assert idempotency is not None
    first = kept_answer(responses, scope, idempotency)
    assert first is not None, "the request that won the race kept its reply"
    return first


def _pad(scope: str, key: str, length: int) -> bytes:
    """A one-time pad from the raw Idempotency-Key, which the server keeps only as a hash."""
    pad = b""
    block = 0
    while len(pad) < length:
        pad += hmac.new(key.encode(), f"osmosis-token-wrap\x00{scope}\x00{block}".encode(), hashlib.sha256).digest()
        block += 1
    return pad[:length]


def _xor(data: bytes, pad: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, pad, strict=True))
