"""The seven rule parameters and the eight presets of rules.md."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from .errors import InvalidRules


class WasteAccess(StrEnum):
    TOP = "top"
    """The waste's top card is always playable."""
    GROUP = "group"
    """Only the cards of the latest deal are playable, top to bottom."""


class StartRule(StrEnum):
    BASE_RANK = "base_rank"
    """An empty foundation starts with a card of the base rank."""
    RANK_ABOVE = "rank_above"
    """An empty foundation starts with a card of an unused suit whose rank is in the foundation above."""


@dataclass(frozen=True, slots=True)
class Rules:
    """One way to play: any valid combination of the parameters of rules.md.

    `max_passes=None` means unlimited passes; `max_passes=n` allows n - 1 redeals.
    """

    reserve_piles: int = 4
    reserve_face_down: int = 3
    draw: int = 3
    max_passes: int | None = None
    waste_access: WasteAccess = WasteAccess.TOP
    start_rule: StartRule = StartRule.BASE_RANK
    free_cells: int = 0

    def __post_init__(self) -> None:
        _require_int_in("reserve_piles", self.reserve_piles, (0, 4))
        _require_int_in("reserve_face_down", self.reserve_face_down, (0, 3))
        _require_int_in("draw", self.draw, (1, 3))
        _require_int_in("free_cells", self.free_cells, (0, 1))
        if self.max_passes is not None and (not _is_int(self.max_passes) or self.max_passes < 1):
            raise InvalidRules(
                f"max_passes must be a whole number >= 1, or null for unlimited, not {self.max_passes!r}"
            )
        for name, kind in (("waste_access", WasteAccess), ("start_rule", StartRule)):
            value = getattr(self, name)
            if not isinstance(value, kind):
                try:
                    object.__setattr__(self, name, kind(value))
                except ValueError:
                    allowed = ", ".join(repr(member.value) for member in kind)
                    raise InvalidRules(f"{name} must be one of {allowed}, not {value!r}") from None
        if self.reserve_piles == 0 and self.reserve_face_down != 0:
            raise InvalidRules(
                "reserve_face_down must be 0 when reserve_piles is 0: there are no reserve cards to hide"
            )

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Rules:
        """Rules from a JSON-like mapping; missing parameters take the default (the `osmosis` preset)."""
        unknown = sorted(set(values) - set(PARAMETERS))
        if unknown:
            raise InvalidRules(f"unknown rule parameter(s) {', '.join(unknown)}; known: {', '.join(PARAMETERS)}")
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        values = asdict(self)
        values["waste_access"] = self.waste_access.value
        values["start_rule"] = self.start_rule.value
        return values

    @property
    def preset_name(self) -> str | None:
        """The name of the preset these rules equal, if any."""
        return _NAME_BY_RULES.get(self)

    @property
    def has_cell(self) -> bool:
        return self.free_cells > 0


PARAMETERS = (
    "reserve_piles",
    "reserve_face_down",
    "draw",
    "max_passes",
    "waste_access",
    "start_rule",
    "free_cells",
)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _require_int_in(name: str, value: object, allowed: tuple[int, ...]) -> None:
    if not _is_int(value) or value not in allowed:
        choices = " or ".join(str(choice) for choice in allowed)
        raise InvalidRules(f"{name} must be {choices}, not {value!r}")


PRESETS: dict[str, Rules] = {
    "osmosis": Rules(),
    "osmosis-draw-one": Rules(draw=1),
    "osmosis-three-passes": Rules(draw=1, max_passes=3),
    "osmosis-strict-waste": Rules(waste_access=WasteAccess.GROUP),
    "osmosis-ablage": Rules(reserve_face_down=0, max_passes=3, free_cells=1),
    "peek": Rules(reserve_face_down=0),
    "peek-till-dawn": Rules(reserve_face_down=0, start_rule=StartRule.RANK_ABOVE),
    "bridesmaids": Rules(reserve_piles=0, reserve_face_down=0),
}

PRESET_DESCRIPTIONS: dict[str, str] = {
    "osmosis": "Treasure Trove: three of four reserve cards face down, draw three, unlimited passes.",
    "osmosis-draw-one": "Osmosis dealing one card at a time.",
    "osmosis-three-passes": "Draw one, at most three passes through the stock (GNOME Aisleriot).",
    "osmosis-strict-waste": "Only the cards of the latest deal of three can be played, top to bottom.",
    "osmosis-ablage": "Reserves face up, three passes, and one free cell (Randy Rasa's Osmosis for DOS).",
    "peek": "Osmosis with every reserve card face up.",
    "peek-till-dawn": "Peek where an empty foundation starts with any unused suit whose rank is above.",
    "bridesmaids": "No reserves: the base card is the first card and the stock holds the other 51.",
}

_NAME_BY_RULES = {rules: name for name, rules in PRESETS.items()}


def preset(name: str) -> Rules:
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise InvalidRules(f"unknown variant {name!r}; the presets are: {', '.join(PRESETS)}") from None
