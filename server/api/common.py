"""What every blueprint needs from the request: the service, and the Idempotency-Key."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from flask import current_app, request

from ..rules import InvalidInput
from ..service import GameService, Idempotency

IDEMPOTENCY_KEY: dict[str, Any] = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Makes the POST safe to retry: a retry returns the first response and changes nothing. "
    "Use a fresh, unguessable value (a UUID) per request.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}


def game_service() -> GameService:
    found: GameService = current_app.extensions["osmosis.service"]
    return found


def request_idempotency() -> Idempotency | None:
    """The request's Idempotency-Key, with a digest of the request to tell a retry from another request."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not 1 <= len(key) <= 255 or not key.isprintable():
        raise InvalidInput("Idempotency-Key must be 1 to 255 printable characters")
    body = request.get_json(silent=True)
    fingerprint = hashlib.sha256(
        json.dumps([request.method, request.path, body], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    return Idempotency(key, fingerprint)
