"""The table as text, from the public view the API serves: reserves on the left, the foundations on the
right in columns of rank from the base rank (so that the rank a card needs in the foundation above shows at
a glance), then the stock, the waste and the cell. Lit cards (those with a legal move) carry the number
that plays them. Two sets of faces: card glyphs in colour, or plain ASCII for any terminal or reader; two
spacings: compact for 80x24, and wide (full words, wider columns, a line between rows) for a terminal of 120x40
or more."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text

RANKS = "A23456789TJQK"
SOURCES = ("R1", "R2", "R3", "R4", "waste", "cell")
WASTE_SHOWN = 8
"""The waste's top cards drawn; those under them are counted."""


@dataclass(frozen=True)
class Faces:
    """How a card looks: `ascii` for the API's own two-letter codes, no glyph and no colour."""

    ascii: bool = False

    def card(self, code: str, style: str = "") -> Text:
        if self.ascii:
            return Text(code)
        rank = "10" if code[0] == "T" else code[0]
        return Text(rank + self.glyph(code[1]), style=f"{self.colour(code[1])} {style}".strip())

    def rank(self, code: str) -> Text:
        if self.ascii:
            return Text(code[0])
        return Text("10" if code[0] == "T" else code[0], style=self.colour(code[1]))

    def suit(self, suit: str | None) -> Text:
        if suit is None:
            return Text(".") if self.ascii else Text("·", style="dim")
        return Text(suit) if self.ascii else Text(self.glyph(suit), style=self.colour(suit))

    def face_down(self) -> Text:
        return Text("##") if self.ascii else Text("░░", style="blue")

    def styled(self, text: str, style: str) -> Text:
        return Text(text, style="" if self.ascii else style)

    def nothing(self) -> Text:
        return Text("-") if self.ascii else Text("·", style="dim")

    def number(self, n: int) -> Text:
        return Text(f"{n}:") if self.ascii else Text(f"{n}", style="bold black on yellow") + Text(" ")

    @staticmethod
    def glyph(suit: str) -> str:
        return {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[suit]

    @staticmethod
    def colour(suit: str) -> str:
        return "bold red" if suit in "HD" else "bold"


@dataclass(frozen=True)
class Spacing:
    """How much room the table takes: its piles' labels, the column the foundations start at, a rank's column, a
    card's slot, and whether a blank line parts the rows."""

    reserve: str
    foundation: str
    foundations_at: int
    rank: int
    slot: int
    apart: bool

    def reserve_label(self, n: int) -> str:
        return self.reserve.format(n)

    def foundation_label(self, n: int) -> str:
        return self.foundation.format(n)


COMPACT = Spacing(reserve="R{}  ", foundation="F{} ", foundations_at=29, rank=3, slot=6, apart=False)
WIDE = Spacing(reserve="Reserve {}  ", foundation="Foundation {} ", foundations_at=48, rank=4, slot=8, apart=True)
WIDE_FROM = (120, 40)
"""The smallest terminal (columns, lines) that gets the wide spacing."""


def spacing_for(width: int, height: int) -> Spacing:
    return WIDE if width >= WIDE_FROM[0] and height >= WIDE_FROM[1] else COMPACT


@dataclass(frozen=True)
class Lit:
    """A card with a legal move, the number that plays it, and its moves (more than one when it may go to
    several places: a foundation or the cell)."""

    number: int
    card: str
    source: str
    moves: tuple[dict[str, Any], ...]


def lit_cards(legal_actions: Sequence[Mapping[str, Any]]) -> list[Lit]:
    """The movable cards numbered from 1 in the table's order: the reserves, then the waste, then the cell."""
    by_card: dict[str, list[dict[str, Any]]] = {}
    for action in legal_actions:
        if action["kind"] == "move":
            by_card.setdefault(action["card"], []).append(dict(action))
    ordered = sorted(by_card.items(), key=lambda item: SOURCES.index(item[1][0]["from"]))
    return [Lit(n, card, moves[0]["from"], tuple(moves)) for n, (card, moves) in enumerate(ordered, start=1)]


def stock_action(legal_actions: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The deal or the redeal the rules allow now, if either."""
    return next((dict(action) for action in legal_actions if action["kind"] in ("deal", "redeal")), None)


def draw_table(
    state: Mapping[str, Any],
    free_cells: int,
    lit: Sequence[Lit],
    faces: Faces,
    group_waste: bool = False,
    spacing: Spacing = COMPACT,
) -> Text:
    """`group_waste`: only the latest deal's cards may be played (the strict waste rule): the others are dimmed."""
    numbers = {item.card: item.number for item in lit}
    base = state["base_rank"]
    order = RANKS[RANKS.index(base) :] + RANKS[: RANKS.index(base)] if base else RANKS
    ranks_at = spacing.foundations_at + len(spacing.foundation_label(1)) + 2
    header = "".join(f"{faces.rank(rank + 'S').plain:>{spacing.rank}}" for rank in order)
    lines = [Text(" " * ranks_at) + faces.styled(header, "dim")]
    reserves, foundations = state["reserves"], state["foundations"]
    for row in range(max(len(reserves), len(foundations))):
        line = Text(" ")
        if row < len(reserves):
            pile = reserves[row]
            line += faces.styled(spacing.reserve_label(row + 1), "bold")
            cards = [faces.face_down() + Text(" " * (spacing.slot - 3)) for _ in range(pile["face_down"])]
            cards += [_slot(code, numbers, faces, width=spacing.slot) for code in pile["face_up"]]
            line += Text("").join(cards) if cards else faces.nothing()
        line.pad_right(spacing.foundations_at - line.cell_len)
        if row < len(foundations):
            foundation = foundations[row]
            line += faces.styled(spacing.foundation_label(row + 1), "bold") + faces.suit(foundation["suit"]) + Text(" ")
            ranks = {code[0]: code for code in foundation["cards"]}
            line += Text("").join(
                Text(" " * (spacing.rank - faces.rank(ranks[r]).cell_len)) + faces.rank(ranks[r])
                if r in ranks
                else Text(" " * spacing.rank)
                for r in order
            )
        if spacing.apart and row:
            lines.append(Text(""))
        lines.append(line)
    lines.append(Text(""))
    lines.append(_stock_and_waste(state, numbers, faces, group_waste, spacing.slot))
    if free_cells:
        cell = _slot(state["cell"], numbers, faces, width=spacing.slot) if state["cell"] else faces.nothing()
        lines.append(Text(" Cell   ") + cell)
    return Text("\n").join(lines)


def _stock_and_waste(
    state: Mapping[str, Any], numbers: Mapping[str, int], faces: Faces, group_waste: bool, slot: int
) -> Text:
    waste = state["waste"]
    live_from = len(waste) - state["live_waste"]
    line = Text(f" Stock  {state['stock_count']:>2} ")
    line += (faces.face_down() if state["stock_count"] else faces.nothing()) + Text("    Waste  ")
    shown = waste[-WASTE_SHOWN:]
    if len(waste) > len(shown):
        line += faces.styled(f"+{len(waste) - len(shown)} ", "dim")
    for i, code in enumerate(shown, start=len(waste) - len(shown)):
        line += _slot(code, numbers, faces, "dim" if group_waste and i < live_from else "", slot)
    if not waste:
        line += faces.nothing()
    return line


def _slot(code: str, numbers: Mapping[str, int], faces: Faces, style: str = "", width: int = COMPACT.slot) -> Text:
    """A card and its number if lit, in a slot as wide whether lit or not, so that columns stay put."""
    card = faces.card(code, style)
    marked = faces.number(numbers[code]) + card if code in numbers else Text("  ") + card
    return marked + Text(" " * max(1, width - marked.cell_len))
