"""The deal `osmosis-deal-v1`, deal numbers and the commitment, to the byte as rules.md specifies."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from dataclasses import dataclass

from .cards import DECK, Card
from .errors import InvalidInput
from .variants import Rules

DEAL_ALGORITHM = "osmosis-deal-v1"
SERVER_SEED_BYTES = 32
MAX_DEAL_NUMBER = 2**53 - 1
_COMMIT_PREFIX = b"osmosis-commit-v1\x00"
_DEAL_NUMBER_PREFIX = b"osmosis-deal-number:"


@dataclass(frozen=True, slots=True)
class Layout:
    """The opening position: reserves bottom to top, the base card on F1, the stock first dealt first."""

    reserves: tuple[tuple[Card, ...], ...]
    base: Card
    stock: tuple[Card, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "reserves": [[str(card) for card in pile] for pile in self.reserves],
            "base": str(self.base),
            "stock": [str(card) for card in self.stock],
        }


def _stream(server_seed: bytes, client_seed: str) -> Iterator[int]:
    """The deal's pseudo-random stream as successive big-endian uint32 values."""
    message = DEAL_ALGORITHM.encode() + b"\x00" + client_seed.encode("utf-8") + b"\x00"
    block = 0
    while True:
        digest = hmac.new(server_seed, message + block.to_bytes(4, "big"), hashlib.sha256).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(digest[offset : offset + 4], "big")
        block += 1


def shuffled_deck(server_seed: bytes, client_seed: str = "") -> tuple[Card, ...]:
    """The 52 cards in dealt order, by the Fisher-Yates shuffle of rules.md."""
    check_server_seed(server_seed)
    if not isinstance(client_seed, str):
        raise InvalidInput("client_seed must be a string")
    stream = _stream(server_seed, client_seed)
    deck = list(range(52))
    for i in range(51, 0, -1):
        bound = i + 1
        limit = 2**32 - (2**32 % bound)
        while (u := next(stream)) >= limit:
            pass
        j = u % bound
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(DECK[index] for index in deck)


def layout(deck: tuple[Card, ...], rules: Rules) -> Layout:
    piles = rules.reserve_piles
    reserves = tuple(deck[4 * p : 4 * p + 4] for p in range(piles))
    return Layout(reserves=reserves, base=deck[4 * piles], stock=deck[4 * piles + 1 :])


def deal_number_seed(deal_number: int) -> bytes:
    """The public server seed of a shareable deal number (its client seed is "")."""
    if isinstance(deal_number, bool) or not isinstance(deal_number, int):
        raise InvalidInput(f"a deal number is a whole number, not {deal_number!r}")
    if not 0 <= deal_number <= MAX_DEAL_NUMBER:
        raise InvalidInput(f"a deal number is between 0 and 2^53 - 1, not {deal_number}")
    return hashlib.sha256(_DEAL_NUMBER_PREFIX + str(deal_number).encode()).digest()


def commitment(server_seed: bytes) -> str:
    """hex(SHA-256("osmosis-commit-v1" || 0x00 || server_seed)): published before any card is shown."""
    check_server_seed(server_seed)
    return hashlib.sha256(_COMMIT_PREFIX + server_seed).hexdigest()


def check_server_seed(server_seed: bytes) -> None:
    if not isinstance(server_seed, bytes) or len(server_seed) != SERVER_SEED_BYTES:
        raise InvalidInput(f"a server seed is exactly {SERVER_SEED_BYTES} bytes")


def parse_server_seed(text: str) -> bytes:
    """A server seed written as 64 hexadecimal digits."""
    try:
        seed = bytes.fromhex(text)
    except (ValueError, TypeError):
        raise InvalidInput("a server seed is written as 64 hexadecimal digits") from None
    check_server_seed(seed)
    return seed
