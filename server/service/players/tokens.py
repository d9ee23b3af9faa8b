"""Personal API tokens: their form, their scopes and the hash that is all the server keeps of them.

A token is `osm_`, 30 random base-62 characters (178 bits) and a 6-character base-62 CRC-32 of those, as
GitHub's tokens are made: secret scanners find `osm_` tokens pasted where they should not be, and a token
mistyped or cut short is told from a revoked one without a lookup. The server keeps its SHA-256 only, as
of a game's player token: a token holds 178 random bits, so no slow hash is needed.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import zlib

from ...game.callers import Caller
from ..errors import Forbidden

PREFIX = "osm_"
_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_RANDOM_LENGTH = 30
_CHECK_LENGTH = 6
TOKEN_PATTERN = rf"^{PREFIX}[0-9A-Za-z]{{{_RANDOM_LENGTH + _CHECK_LENGTH}}}$"
_TOKEN = re.compile(TOKEN_PATTERN)

PLAY = "play"
"""Create games as the player, act on them, read the player's daily games before the day closes."""
ACCOUNT = "account"
"""List, create and revoke the player's tokens."""
ORGANIZE = "organize"
"""Announce competitions and amend their results."""
SCOPES = (PLAY, ACCOUNT, ORGANIZE)


def _base62(number: int, width: int) -> str:
    digits = []
    for _ in range(width):
        number, digit = divmod(number, 62)
        digits.append(_ALPHABET[digit])
    return "".join(reversed(digits))


def _check(random_part: str) -> str:
    return _base62(zlib.crc32(random_part.encode()), _CHECK_LENGTH)


def new_token() -> str:
    random_part = "".join(secrets.choice(_ALPHABET) for _ in range(_RANDOM_LENGTH))
    return PREFIX + random_part + _check(random_part)


def is_api_token(bearer: str) -> bool:
    """Whether a bearer token is meant as a player's API token (rather than a game's own player token)."""
    return bearer.startswith(PREFIX)


def well_formed(token: str) -> bool:
    """Whether `token` has an API token's form and its checksum holds."""
    if _TOKEN.fullmatch(token) is None:
        return False
    random_part = token[len(PREFIX) : len(PREFIX) + _RANDOM_LENGTH]
    return token[len(PREFIX) + _RANDOM_LENGTH :] == _check(random_part)


def token_hash_of(token: str) -> str:
    """What the server keeps of a token, an API token or a game's player token alike."""
    return hashlib.sha256(token.encode()).hexdigest()


def require(caller: Caller, scope: str) -> None:
    """Raises Forbidden unless the caller's token has `scope`."""
    if scope not in caller.token.scopes:
        raise Forbidden(f"this API token's scopes ({', '.join(caller.token.scopes)}) do not include {scope!r}")
