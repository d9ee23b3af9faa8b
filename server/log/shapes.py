"""The exact shape of every event's data in the public move log (docs/replay-format.md, "Events").

A verifier must not vouch for more than it checked. Rules and hashes say nothing about a field the rules
never read, a count written as 1.5 or a 400-digit number, or 4 kB of junk under a key of its own: every
event kind has exactly its documented fields, each of its documented type and bounds, and anything else
is refused with the field's path. Integers stay within 2^53 - 1, so that every JSON reader, in any
language, reads them exactly and hashes the same bytes.

Pure: the shapes are data, and checking one reads nothing but the value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..rules import (
    ACTION_KINDS,
    FOUNDATIONS,
    LOST_FRUITLESS_PASS,
    LOST_NO_ACTION,
    MAX_DEAL_NUMBER,
    PRESETS,
    RANK_CODES,
    RESIGNED,
    SOURCES,
    TARGETS,
    WON,
    StartRule,
    Status,
    Suit,
    WasteAccess,
)
from ..solver import Verdict
from ..solver.hints import BASES, EXACT_CHOICES

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer every JSON reader holds exactly (RFC 7493, I-JSON)."""


class ShapeError(ValueError):
    """A value is not of its documented shape: `path` names the field, `expected` what it must be."""

    def __init__(self, path: str, expected: str, value: object) -> None:
        super().__init__(f"{path} must be {expected}, not {described(value)}")
        self.path = path


Shape = Callable[[object, str], None]
"""Checks a value found at a path ("data.cards[2]"); raises ShapeError."""


def described(value: object) -> str:
    """A value in a few words: never more than a short excerpt of what a stranger sent."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        digits = len(str(abs(value)))
        return str(value) if digits <= 20 else f"a whole number of {digits} digits"
    if isinstance(value, float):
        return f"the fraction {value!r}" if not value.is_integer() else f"{value!r}, a number with a decimal point"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else f"text of {len(value)} characters"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def whole(low: int, high: int) -> Shape:
    def check(value: object, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ShapeError(path, f"a whole number from {low} to {high}", value)

    return check


def text(max_length: int, pattern: str | None = None, what: str = "text") -> Shape:
    compiled = re.compile(pattern) if pattern is not None else None
    expected = f"{what} of at most {max_length} characters" if compiled is None else what

    def check(value: object, path: str) -> None:
        if (
            not isinstance(value, str)
            or len(value) > max_length
            or (compiled is not None and compiled.fullmatch(value) is None)
        ):
            raise ShapeError(path, expected, value)

    return check


def one_of(*values: str | None) -> Shape:
    expected = "one of " + ", ".join("null" if value is None else repr(value) for value in values)

    def check(value: object, path: str) -> None:
        if not (value is None or isinstance(value, str)) or value not in values:
            raise ShapeError(path, expected, value)

    return check


def nullable(shape: Shape) -> Shape:
    def check(value: object, path: str) -> None:
        if value is not None:
            shape(value, path)

    return check


def array(item: Shape, max_items: int, min_items: int = 0) -> Shape:
    def check(value: object, path: str) -> None:
        if not isinstance(value, list) or not min_items <= len(value) <= max_items:
            size = f"{max_items}" if min_items == max_items else f"{min_items} to {max_items}"
            raise ShapeError(path, f"a list of {size} items", value)
        for index, element in enumerate(value):
            item(element, f"{path}[{index}]")

    return check


def record(fields: Mapping[str, Shape], optional: Mapping[str, Shape] | None = None) -> Shape:
    """An object with exactly `fields`, and any of `optional`."""
    optional = optional or {}

    def check(value: object, path: str) -> None:
        if not isinstance(value, dict):
            raise ShapeError(path, "an object", value)
        unknown = sorted(str(name) for name in value if name not in fields and name not in optional)
        if unknown:
            shown = ", ".join(repr(name[:40]) for name in unknown[:3]) + (", …" if len(unknown) > 3 else "")
            raise ShapeError(path, f"an object of the fields {', '.join(fields)} only", f"a field {shown}")
        for name, shape in fields.items():
            if name not in value:
                raise ShapeError(f"{path}.{name}", "present", "missing")
            shape(value[name], f"{path}.{name}")
        for name, shape in optional.items():
            if name in value:
                shape(value[name], f"{path}.{name}")

    return check


def tagged(tag: str, variants: Mapping[str, Mapping[str, Shape]], optional: Mapping[str, Shape] | None = None) -> Shape:
    """An object whose `tag` field says which of `variants` it is: the tag, then that variant's fields."""
    kinds = one_of(*variants)
    records = {name: record({tag: kinds, **fields}, optional) for name, fields in variants.items()}

    def check(value: object, path: str) -> None:
        if not isinstance(value, dict):
            raise ShapeError(path, "an object", value)
        kinds(value.get(tag), f"{path}.{tag}")
        records[value[tag]](value, path)

    return check


# --- the vocabulary -------------------------------------------------------------------------------

CARD = text(2, f"[{''.join(RANK_CODES)}][{''.join(suit.value for suit in Suit)}]", "a card code like 'TH'")
HEX64 = text(64, "[0-9a-f]{64}", "64 lowercase hexadecimal digits")
UUID = text(36, "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "a UUID in lowercase")
NAME = text(64, "[a-z0-9][a-z0-9./-]*", "a name like 'osmosis-solver/1'")
SOURCE = one_of(*(place.value for place in SOURCES))
TARGET = one_of(*(place.value for place in TARGETS))
FOUNDATION = one_of(*(place.value for place in FOUNDATIONS))
COUNT = whole(0, MAX_SAFE_INTEGER)
CLIENT_SEED_LENGTH = 256
"""The longest client seed the server takes (createGame's client_seed)."""
MAX_HINT_ACTIONS = 64
"""More than any position has legal actions: a move per source and target, and deal or redeal."""

RULES = record(
    {
        "reserve_piles": whole(0, 4),
        "reserve_face_down": whole(0, 3),
        "draw": whole(1, 3),
        "max_passes": nullable(whole(1, MAX_SAFE_INTEGER)),
        "waste_access": one_of(*(access.value for access in WasteAccess)),
        "start_rule": one_of(*(rule.value for rule in StartRule)),
        "free_cells": whole(0, 1),
    }
)

PLAYER_NAME_PATTERN = "[A-Za-z][A-Za-z0-9_-]{2,23}"
"""A player's name: 3 to 24 ASCII letters, digits, '_' and '-', beginning with a letter (service/players/names.py)."""
PLAYER_KINDS = ("human", "bot")
PLAYER = record({"name": text(24, PLAYER_NAME_PATTERN, "a player's name"), "kind": one_of(*PLAYER_KINDS)})
DAY = text(10, "[0-9]{4}-[0-9]{2}-[0-9]{2}", "a day, as 2026-11-25")
_WINNABLE = record({"candidate": COUNT, "solver": NAME, "budget": COUNT})
DEAL = tagged(
    "kind",
    {
        "number": {"deal_number": whole(0, MAX_DEAL_NUMBER)},
        "random": {},
        "sealed": {"sealed_deal_id": UUID},
        "daily": {"day": DAY},
        "competition": {"competition_id": UUID},
    },
    optional={"winnable": _WINNABLE},
)
MOMENT = text(
    32,
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?\+00:00",
    "a UTC time, as the server writes it",
)
LIMIT_MS = whole(5_000, 86_400_000)
CLOCK = record({"id": UUID, "started_at": MOMENT, "limit_ms": LIMIT_MS, "deadline": MOMENT})
CLOCKED = {"elapsed_ms": whole(0, 86_400_000)}
"""What every event of a competition game's log holds besides its own data: the entrant's time."""
TIMED_OUT = "the clock ran out"

_STATUS = one_of(*(status.value for status in Status))
_ENDINGS = (WON.reason, LOST_NO_ACTION.reason, LOST_FRUITLESS_PASS.reason, RESIGNED.reason)
PUBLIC_VIEW = record(
    {
        "reserves": array(record({"face_down": whole(0, 3), "face_up": array(CARD, 4)}), 4),
        "foundations": array(
            record({"suit": nullable(one_of(*(suit.value for suit in Suit))), "cards": array(CARD, 13)}), 4, 4
        ),
        "base_rank": one_of(*RANK_CODES),
        "stock_count": whole(0, 51),
        "waste": array(CARD, 51),
        "live_waste": whole(0, 51),
        "cell": nullable(CARD),
        "pass_number": whole(1, MAX_SAFE_INTEGER),
        "passes_left": nullable(whole(0, MAX_SAFE_INTEGER)),
        "status": _STATUS,
        "end_reason": nullable(one_of(*_ENDINGS)),
    }
)

ACTION = tagged(
    "kind",
    {
        "move": {"card": CARD, "from": nullable(SOURCE), "to": nullable(TARGET)},
        **{kind: {} for kind in ACTION_KINDS if kind != "move"},
    },
)

TAKEN_BACK = tagged("kind", {"move": {"card": CARD, "from": SOURCE, "to": TARGET}, "deal": {}, "redeal": {}})
"""An action as an undo names it: as it was taken, every field given."""

_HINT = record(
    {
        "action": nullable(ACTION),
        "basis": one_of(*BASES),
        "verdict": nullable(one_of(*(verdict.value for verdict in Verdict))),
        "estimates": array(
            record({"action": ACTION, "wins": COUNT, "unknown": COUNT, "samples": COUNT}), MAX_HINT_ACTIONS
        ),
        "samples": COUNT,
        "unseen": whole(0, 52),
        "nodes": COUNT,
        "budget": COUNT,
        "solver": NAME,
    },
    {"exact_choice": one_of(*EXACT_CHOICES), **CLOCKED},
)  # hints given before the choice was named have none

EVENT_DATA: dict[str, Shape] = {
    "game_created": record(
        {
            "rules": RULES,
            "variant": nullable(one_of(*PRESETS)),
            "deal_algorithm": NAME,
            "deal": DEAL,
            "commitment": HEX64,
            "opening": PUBLIC_VIEW,
        },
        # Logs written before game_created named its game (server 0.1) have no game_id; a game made with no
        # player's API token names no player; only a competition entrant's game has a clock.
        {"game_id": UUID, "player": PLAYER, "competition": CLOCK, **CLOCKED},
    ),
    "card_played": record({"card": CARD, "from": SOURCE, "to": FOUNDATION, "uncovered": nullable(CARD)}, CLOCKED),
    "card_moved_to_cell": record(
        {"card": CARD, "from": SOURCE, "to": one_of("cell"), "uncovered": nullable(CARD)}, CLOCKED
    ),
    "cards_dealt": record({"cards": array(CARD, 3, 1)}, CLOCKED),
    "waste_redealt": record({"pass_number": whole(2, MAX_SAFE_INTEGER)}, CLOCKED),
    "game_won": record({"reason": one_of(WON.reason), "score": whole(52, 52)}, CLOCKED),
    "game_lost": record(
        {"reason": one_of(LOST_NO_ACTION.reason, LOST_FRUITLESS_PASS.reason), "score": whole(0, 51)}, CLOCKED
    ),
    "game_resigned": record({"reason": one_of(RESIGNED.reason)}, CLOCKED),
    "seeds_revealed": record({"server_seed": HEX64, "client_seed": text(CLIENT_SEED_LENGTH)}, CLOCKED),
    "hint_given": _HINT,
    "action_undone": record({"undone_seq": whole(2, MAX_SAFE_INTEGER), "action": TAKEN_BACK}, CLOCKED),
    "game_timed_out": record({"reason": one_of(TIMED_OUT), "score": whole(0, 51)}, CLOCKED),
}
"""Each event kind's data, exactly."""


def check_event_data(kind: str, data: Any) -> None:
    """Raises ShapeError naming the field when `data` is not exactly what a `kind` event holds."""
    EVENT_DATA[kind](data, "data")
