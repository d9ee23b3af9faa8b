"""Idempotency-Key: a retry gets the first response to its key, byte for byte, and changes nothing.

A response is stored with the action it answers, in the same statement, under a hash of its scope and
key; the raw key stays with the client. A created game's player token is stored apart from the body,
XORed with a pad only the raw key can draw, so the stored responses reveal no token.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

from .repository import StoredResponse


class IdempotencyKeyReused(Exception):
    """The Idempotency-Key was first used with another request."""


@dataclass(frozen=True, slots=True)
class Idempotency:
    key: str
    fingerprint: str
    """A digest of the request (method, path, body), to tell a retry from another request."""


def key_hash(scope: str, key: str) -> str:
    return hashlib.sha256(f"{scope}\x00{key}".encode()).hexdigest()


def stored_response(scope: str, idempotency: Idempotency | None, status: int, text: str,
                    player_token: str | None = None) -> StoredResponse | None:
    """The response as kept for retries: `text` as sent, but for the player token spliced into it last,
    which is kept only wrapped under the raw key (see with_player_token)."""
    if idempotency is None:
        return None
    wrapped = None
    if player_token is not None:
        token = player_token.encode()
        wrapped = _xor(token, _pad(scope, idempotency.key, len(token))).hex()
    return StoredResponse(scope, key_hash(scope, idempotency.key), idempotency.fingerprint, status, text, wrapped)


def replayed_text(stored: StoredResponse, idempotency: Idempotency) -> str:
    """The first response's text, for a retry with the same key; IdempotencyKeyReused for another request."""
    if not hmac.compare_digest(stored.fingerprint, idempotency.fingerprint):
        raise IdempotencyKeyReused(
            "this Idempotency-Key was first used with a different request; use a new key for a new request"
        )
    if stored.player_token_wrapped is None:
        return stored.body
    wrapped = bytes.fromhex(stored.player_token_wrapped)
    token = _xor(wrapped, _pad(stored.scope, idempotency.key, len(wrapped))).decode()
    return with_player_token(stored.body, token)


def with_player_token(document: str, token: str) -> str:
    """A game's document (a JSON object) with `"player_token"` added as its last member."""
    return f'{document[:-1]},"player_token":{json.dumps(token)}}}'


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
