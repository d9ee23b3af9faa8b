"""Cards: 52 interned values with a canonical two-character code ("TH", "QS")."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, StrEnum

from .errors import InvalidInput


class Suit(StrEnum):
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def plural(self) -> str:
        return self.name.lower()


_SUIT_INDEX = {suit: i for i, suit in enumerate(Suit)}

RANK_CODES = "A23456789TJQK"


class Rank(IntEnum):
    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    def __str__(self) -> str:
        return RANK_CODES[self - 1]

    @classmethod
    def parse(cls, text: str) -> Rank:
        code = text.strip().upper()
        if code == "10":
            code = "T"
        if len(code) != 1 or code not in RANK_CODES:
            raise InvalidInput(f"unknown rank {text!r}: expected one of A 2-9 T J Q K")
        return cls(RANK_CODES.index(code) + 1)


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card. Written "QH" (queen of hearts); "10S" is accepted as input for "TS"."""

    rank: Rank
    suit: Suit
    index: int = field(init=False, repr=False, compare=False)
    """Position in the canonical deck: suit_index * 13 + rank_index (AC = 0, KS = 51)."""
    code: str = field(init=False, repr=False, compare=False)
    """The card's two-character code, "QH"."""

    def __post_init__(self) -> None:
        # Every action hashes and writes dozens of cards: worked out once per card, not on each use.
        object.__setattr__(self, "index", _SUIT_INDEX[self.suit] * 13 + self.rank - 1)
        object.__setattr__(self, "code", RANK_CODES[self.rank - 1] + self.suit.value)

    def __hash__(self) -> int:
        return self.index

    @classmethod
    def parse(cls, text: str) -> Card:
        try:
            return _BY_CODE[text]
        except (KeyError, TypeError):
            pass
        if not isinstance(text, str):
            raise InvalidInput(f"a card is written as a string like 'QH', not {text!r}")
        code = text.strip().upper()
        if code[:2] == "10":
            code = "T" + code[2:]
        try:
            return _BY_CODE[code]
        except KeyError:
            raise InvalidInput(
                f"unknown card {text!r}: a card is a rank (A 2-9 T J Q K) then a suit (C D H S), e.g. 'QH'"
            ) from None

    @classmethod
    def from_index(cls, index: int) -> Card:
        return DECK[index]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in Rank)
"""The 52 cards in canonical order; DECK[i].index == i."""

_BY_CODE: dict[str, Card] = {str(card): card for card in DECK}


def parse_cards(text: str) -> tuple[Card, ...]:
    """Cards written one after another, separated by spaces: "AS 10H QC"."""
    return tuple(Card.parse(code) for code in text.split())
