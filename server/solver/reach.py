"""Cards that can never come home: a test that a position is lost, however it is played (docs/solver.md).

Every card waits for others before it can go home. Under a plan it waits for the card of its rank on the
foundation before its own (the osmosis rule) and, under the `base_rank` start rule, for its suit's
base-rank card; a reserve card waits for the cards above it in its pile; and a card in the stock or the
waste waits until it is the waste's top card. That last wait is where draw three bites: dealt three at a
time, a card that does not end a group of three is never on top unless a card leaves the talon first,
either one dealt before it (every later pass then falls into threes differently) or the one dealt right
after it (which lies on it in the waste).

The test works out every card that could ever go home if each of these waits were all there is, the least
fixed point from the cards already home: a relaxation of the game, so a card it cannot reach can never
be played, whatever the player does. If some card is left out under every plan still open, the position
is lost. With a free cell, a card may also leave its place for the cell; the cell holds one card, and a
card in it leaves only for its foundation, so the cell lets one card out at a time, and only a card that
will come home from the cell frees it again (tests/solver/test_reach.py checks the test against a
brute force: it never calls a winnable position lost).
"""

from __future__ import annotations

from collections.abc import Sequence

from .plans import Plan

ALL_CARDS = (1 << 52) - 1
RANKS = (1 << 13) - 1
Tables = tuple[tuple[int, ...], tuple[int, ...], list[int], int, bool, int]
"""A reach's cards above each card, talon, each card's place in it, free places, cards a deal, and redeal."""


class Waits:
    """What each card waits for under one plan, besides leaving its place: `ready(home)` is every card
    whose foundation would take it once the cards in `home` are home."""

    __slots__ = ("base_rank", "base_rule", "plan")

    def __init__(self, plan: Plan, base_rank: int, base_rule: bool) -> None:
        self.plan = plan
        self.base_rank = base_rank
        self.base_rule = base_rule

    def ready(self, home: int) -> int:
        plan = self.plan
        ready = RANKS << 13 * plan[0]
        for k in range(1, 4):
            suit = plan[k]
            ranks = home >> 13 * plan[k - 1] & RANKS
            if self.base_rule and not home >> (13 * suit + self.base_rank) & 1:
                ranks &= 1 << self.base_rank
            ready |= ranks << 13 * suit
        return ready


class Reach:
    """The cards that can come home from one position (see the module's text), under a plan's waits.

    The talon is the position's (the cards neither home nor in the cell, in the order of the pass), so a
    place in it is an index, and the cards that have left it are a mask of places."""

    __slots__ = ("at", "below", "cell", "has_cell", "home", "tables", "talon_cards")

    def __init__(
        self,
        piles: ReservePiles,
        talon: tuple[int, ...],
        free: int,
        draw: int,
        can_redeal: bool,
        cell: int,
        has_cell: bool,
        home: int,
    ) -> None:
        self.below = piles.below
        self.cell = cell
        self.has_cell = has_cell
        self.home = home
        at = [-1] * 52
        talon_cards = 0
        for i, card in enumerate(talon):
            at[card] = i
            talon_cards |= 1 << card
        self.at = at
        self.talon_cards = talon_cards
        self.tables: Tables = (piles.above, talon, at, free, can_redeal, draw)
        """What the two searches of the talon read, for a hot function to bind to its locals at once."""

    def all_home(self, waits: Waits) -> bool:
        """Whether every card could come home under `waits`, the cell used by one card at a time."""
        cell = self.cell
        home = self._closure(waits, self.home, self.home if cell < 0 else self.home | 1 << cell)
        if home == ALL_CARDS:
            return True
        if not self.has_cell or (cell >= 0 and not home >> cell & 1):
            return False
        tried = 0
        while True:
            ready = waits.ready(home) & ~home
            for card in self._leavable(home, tried):
                bit = 1 << card
                tried |= bit
                if not self._uncovers_ready(card, ready):
                    continue
                widened = self._closure(waits, home, home | bit)
                if widened & bit:
                    if widened == ALL_CARDS:
                        return True
                    home = widened
                    tried = 0
                    break
            else:
                return False

    def _closure(self, waits: Waits, home: int, left: int) -> int:
        """The cards that come home from `home`, with the cards in `left` (a superset) out of their places."""
        above, talon, at, free, can_redeal, draw = self.tables
        talon_cards = self.talon_cards
        last = len(talon) - 1
        gone = 0
        out = left & talon_cards
        while out:
            low = out & -out
            out ^= low
            gone |= 1 << at[low.bit_length() - 1]
        while True:
            waiting = waits.ready(home) & ~home
            if not waiting:
                return home
            before = home
            home |= waiting & left
            in_reserves = waiting & ~left & ~talon_cards
            while in_reserves:
                low = in_reserves & -in_reserves
                in_reserves ^= low
                if not above[low.bit_length() - 1] & ~left:
                    home |= low
                    left |= low
            in_talon = waiting & ~left & talon_cards
            places = 0
            while in_talon:
                low = in_talon & -in_talon
                in_talon ^= low
                places |= 1 << at[low.bit_length() - 1]
            # In the talon's order, so that a card let out shifts every later one in the same round; and
            # each card let out uncovers the one under it in the waste at once.
            while places:
                low = places & -places
                places ^= low
                i = low.bit_length() - 1
                if gone & low or not (
                    free & low
                    or (i < last and gone >> (i + 1) & 1)
                    or (can_redeal and (i + 1) % draw <= (gone & (low - 1)).bit_count())
                ):
                    continue
                while True:
                    home |= 1 << talon[i]
                    left |= 1 << talon[i]
                    gone |= 1 << i
                    i -= 1
                    if i < 0 or gone >> i & 1 or not waiting >> talon[i] & 1:
                        break
            if home == before:
                return home

    def _uncovers_ready(self, card: int, ready: int) -> bool:
        """Whether taking `card` out of its place lets out a card that could go home (`ready`, not home) at
        once: the one under it, or for a card of the talon also one dealt after it, which may end a group
        in a later pass. If not, the cards home stay as they are, and `card` with them."""
        i = self.at[card]
        if i < 0:
            below = self.below[card]
            return below >= 0 and bool(ready >> below & 1)
        at = self.at
        in_talon = ready & self.talon_cards
        while in_talon:
            low = in_talon & -in_talon
            in_talon ^= low
            j = at[low.bit_length() - 1]
            if j > i or j == i - 1:
                return True
        return False

    def _leavable(self, home: int, tried: int) -> list[int]:
        """The cards not yet tried that could leave their place for the cell, with the cards in `home` home
        (and so the cell free)."""
        above, talon, at, free, can_redeal, draw = self.tables
        last = len(talon) - 1
        gone = 0
        for i, card in enumerate(talon):
            if home >> card & 1:
                gone |= 1 << i
        cards = []
        candidates = ALL_CARDS & ~home & ~tried
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            card = low.bit_length() - 1
            i = at[card]
            if i < 0:
                if not above[card] & ~home:
                    cards.append(card)
            elif (
                free >> i & 1
                or (i < last and gone >> (i + 1) & 1)
                or (can_redeal and (i + 1) % draw <= (gone & ((1 << i) - 1)).bit_count())
            ):
                cards.append(card)
        return cards


class ReservePiles:
    """The reserve piles as the test reads them: for each card, the cards above it in its pile (a mask) and
    the card right under it (-1 for the bottom card; both -1 for a card in no pile)."""

    __slots__ = ("above", "below")

    def __init__(self, reserves: Sequence[tuple[int, ...]]) -> None:
        above = [-1] * 52
        below = [-1] * 52
        for pile in reserves:
            for j, card in enumerate(pile):
                above[card] = sum(1 << higher for higher in pile[j + 1 :])
                below[card] = pile[j - 1] if j else -1
        self.above: tuple[int, ...] = tuple(above)
        self.below: tuple[int, ...] = tuple(below)


def on_top_untouched(length: int, dealt: int, draw: int, can_redeal: bool) -> int:
    """The talon's places (bit i: the i-th card of the pass) that come to the waste's top if no card left
    the talon: the waste's top now, each group's last card still to deal in this pass, and with a redeal
    to come the last card of every group of the next passes."""
    free = 1 << (dealt - 1) if dealt else 0
    for i in range(dealt + draw - 1, length, draw):
        free |= 1 << i
    if length:
        free |= 1 << (length - 1)
    if can_redeal:
        for i in range(draw - 1, length, draw):
            free |= 1 << i
    return free
