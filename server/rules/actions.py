"""Places on the table and the actions a player can take, with a compact text form.

The one vocabulary of actions: as JSON (`action_to_dict`, `action_from_dict`: the API's bodies, the log's
hints and the solver's witnesses) and as text (`parse_action`, str). Text form (tests, logs, the command line):

    7S          play 7S to the foundation the rules give it
    7S>F3       play 7S to F3 (an error if F3 is not where it goes)
    R2:7S>F3    the same, also stating that 7S is the top of R2
    7S>cell     move 7S to the free cell
    deal        deal from the stock to the waste
    redeal      turn the waste over into a new stock
    resign      give up
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .cards import Card
from .errors import InvalidInput


class Place(StrEnum):
    R1 = "R1"
    R2 = "R2"
    R3 = "R3"
    R4 = "R4"
    WASTE = "waste"
    CELL = "cell"
    F1 = "F1"
    F2 = "F2"
    F3 = "F3"
    F4 = "F4"

    @classmethod
    def parse(cls, text: str) -> Place:
        if isinstance(text, str):
            for place in cls:
                if text.strip().lower() == place.value.lower():
                    return place
        names = ", ".join(place.value for place in cls)
        raise InvalidInput(f"unknown place {text!r}: expected one of {names}")


RESERVES = (Place.R1, Place.R2, Place.R3, Place.R4)
FOUNDATIONS = (Place.F1, Place.F2, Place.F3, Place.F4)
SOURCES = (*RESERVES, Place.WASTE, Place.CELL)
"""Where a card can move from, in the order the API lists them."""
TARGETS = (*FOUNDATIONS, Place.CELL)
"""Where a card can move to, in the order the API lists them."""


@dataclass(frozen=True, slots=True)
class Move:
    """Move `card` to a foundation (target F1..F4, or None for "the foundation the rules give it") or
    to the free cell (target CELL). `source`, when given, must be where the card is."""

    card: Card
    source: Place | None = None
    target: Place | None = None

    def __post_init__(self) -> None:
        if self.source is not None and self.source not in SOURCES:
            raise InvalidInput(f"a card moves from a reserve, the waste or the cell, not from {self.source}")
        if self.target is not None and self.target not in TARGETS:
            raise InvalidInput(f"a card moves to a foundation or the cell, not to {self.target}")

    @property
    def to_cell(self) -> bool:
        return self.target is Place.CELL

    def __str__(self) -> str:
        text = str(self.card)
        if self.source is not None:
            text = f"{self.source}:{text}"
        if self.target is not None:
            text = f"{text}>{self.target}"
        return text


@dataclass(frozen=True, slots=True)
class Deal:
    """Deal `draw` cards (fewer if the stock runs out) from the stock onto the waste."""

    def __str__(self) -> str:
        return "deal"


@dataclass(frozen=True, slots=True)
class Redeal:
    """Turn the waste over, order preserved, into a new stock: a new pass begins."""

    def __str__(self) -> str:
        return "redeal"


@dataclass(frozen=True, slots=True)
class Resign:
    """Give up the game."""

    def __str__(self) -> str:
        return "resign"


Action = Move | Deal | Redeal | Resign

_WORDS: dict[str, Action] = {"deal": Deal(), "redeal": Redeal(), "resign": Resign()}
ACTION_KINDS = ("move", *_WORDS)
"""The kinds of action, as their JSON form names them."""


def action_to_dict(action: Action) -> dict[str, Any]:
    """An action as JSON: {"kind": "move", "card": "7S", "from": "R2", "to": "F3"} or {"kind": "deal"}."""
    if isinstance(action, Move):
        return {
            "kind": "move",
            "card": action.card.code,
            "from": None if action.source is None else action.source.value,
            "to": None if action.target is None else action.target.value,
        }
    return {"kind": str(action)}


def action_from_dict(data: Mapping[str, Any]) -> Action:
    """The action `action_to_dict` wrote; a move's `from` and `to` may be left out (or null). InvalidInput
    for anything else."""
    kind = data.get("kind")
    if kind == "move":
        card, source, target = data.get("card"), data.get("from"), data.get("to")
        if not isinstance(card, str):
            raise InvalidInput(f"a move names its card as text like '7S', not {card!r}")
        return Move(
            Card.parse(card),
            None if source is None else Place.parse(source),
            None if target is None else Place.parse(target),
        )
    if isinstance(kind, str) and kind in _WORDS:
        return _WORDS[kind]
    raise InvalidInput(f"an action's kind is one of {', '.join(ACTION_KINDS)}, not {kind!r}")


def parse_action(text: str) -> Action:
    """An action from its text form, e.g. "R2:7S>F3", "7S>cell" or "deal"."""
    if not isinstance(text, str):
        raise InvalidInput(f"an action is written as text like '7S>F2' or 'deal', not {text!r}")
    word = text.strip().lower()
    if word in _WORDS:
        return _WORDS[word]
    source: Place | None = None
    target: Place | None = None
    rest = text.strip()
    if ":" in rest:
        source_text, rest = rest.split(":", 1)
        source = Place.parse(source_text)
    if ">" in rest:
        rest, target_text = rest.split(">", 1)
        target = Place.parse(target_text)
    return Move(Card.parse(rest), source, target)
