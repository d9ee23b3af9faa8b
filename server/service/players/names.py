"""What a player's name may be, and when two names are the same name.

A name is read in Unicode's NFKC form (so `Alice` written in full-width letters is `Alice`), then must be 3 to 24
characters of the restricted alphabet: ASCII letters, digits, `_` and `-`, beginning with a letter. No other
script is allowed, so no letter can pass for another from a different one (a Cyrillic a for a Latin a).
Two names are the same name when their keys are equal: the key ignores case, and folds the characters of the
alphabet that look alike (`0` and `o`; `1`, `i` and `l`; `_` and `-`). A reserved word, or any name whose key
is a reserved word's key, is refused.
"""

from __future__ import annotations

import re
import unicodedata

from ...log.shapes import PLAYER_NAME_PATTERN
from ..errors import PlayerNotFound

MIN_LENGTH = 3
MAX_LENGTH = 24
_NAME = re.compile(PLAYER_NAME_PATTERN)
_LOOK_ALIKE = str.maketrans({"0": "o", "1": "l", "i": "l", "_": "-"})

RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "anonymous",
        "api",
        "bot",
        "bots",
        "daily",
        "everyone",
        "guest",
        "help",
        "me",
        "mod",
        "moderator",
        "new",
        "nobody",
        "null",
        "official",
        "osmosis",
        "owner",
        "player",
        "players",
        "root",
        "server",
        "staff",
        "support",
        "system",
        "undefined",
        "you",
    }
)
"""Words a player may not take, because a page or a reader could take them for the server's own."""


class NameRefused(ValueError):
    """A name this server does not give: its message says why, in words a person can act on."""


class NameReserved(NameRefused):
    """A reserved word, or a look-alike of one: as good as taken, by the house."""


WRITTEN_PATTERN = (
    "^[A-Za-z\uff21-\uff3a\uff41-\uff5a][A-Za-z0-9_\\-\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\uff3f\uff0d]{2,23}$"
)
"""A name as it may be written: the alphabet in ASCII or in its full-width forms, which NFKC makes ASCII."""


def normalised(name: str) -> str:
    """The name as it will be stored and shown: NFKC, checked against the alphabet and the reserved words."""
    form = unicodedata.normalize("NFKC", name)
    if not MIN_LENGTH <= len(form) <= MAX_LENGTH:
        raise NameRefused(f"a name has {MIN_LENGTH} to {MAX_LENGTH} characters; this one has {len(form)}")
    if _NAME.fullmatch(form) is None:
        raise NameRefused("a name begins with a letter and has only ASCII letters, digits, '_' and '-'")
    if name_key(form) in _RESERVED_KEYS:
        raise NameReserved(f"{form!r} is reserved: choose another name")
    return form


def looked_up(name: str) -> str:
    """The key to look a name up by, as a path writes it; PlayerNotFound for text no player's name could be (a NUL,
    a space, too long), which is never sent to the store."""
    form = unicodedata.normalize("NFKC", name)
    if not MIN_LENGTH <= len(form) <= MAX_LENGTH or _NAME.fullmatch(form) is None:
        raise PlayerNotFound(name[:MAX_LENGTH])
    return name_key(form)


def name_key(name: str) -> str:
    """What makes two names the same: case and look-alike characters folded (only one player has each key)."""
    return unicodedata.normalize("NFKC", name).lower().translate(_LOOK_ALIKE)


_RESERVED_KEYS = frozenset(name_key(word) for word in RESERVED)
