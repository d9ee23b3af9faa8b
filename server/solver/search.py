"""The positions of the exact search and the choices at each (depth_first.py searches them).

Why it is exact and still small (docs/solver.md proves each point, and tests/solver checks them against a
brute force over the engine's own legal actions):

- Which suit starts each foundation is decided once, as a plan: when a card that could start the next
  foundation becomes playable from a reserve or the cell, the search branches into "this suit starts it,
  now" and "this suit never starts it". Starting it later gains nothing, because:
- with the suits of the foundations fixed, a play from a reserve pile or the free cell to a foundation
  never hurts (the position after it has every option the position before had, and more), so it is made
  at once, without branching; under draw one, so is a play from the waste.
- what remains to choose is whether to play the waste's top card under draw three (it changes how the
  stock falls into threes on the next pass), the moves to the free cell, and when to deal.

osmosis-solver/2 adds: the test of cards that can never come home (reach.py), positions dominated by one
seen (`dominators`), no move to the cell that gains nothing, and the waste's top card played at once in
the last pass.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..rules import DECK, FOUNDATIONS, RESERVES, Action, Deal, GameState, Move, Place, Redeal, StartRule, WasteAccess
from .plans import viable_plans
from .reach import Reach, ReservePiles, Waits, on_top_untouched

ALL_HOME = (1 << 52) - 1
_WASTE = Place.WASTE
_CELL = Place.CELL
NO_CARD = -1
_PLAYED = 1 << 64
_PASS_SHIFT = 80
_BELOW_PASS = (1 << _PASS_SHIFT) - 1
EARLIER_PASSES = 4
"""How many earlier passes the test of a dominated position looks at."""


class Position:
    """A position as the search keeps it: bit masks and small integers, copied for every child.

    The talon is the stock and the waste as one cycle (the waste, bottom to top, then the stock): cards
    only ever leave it, so a pass deals it in this order and `dealt` cards of it are on the waste.
    """

    __slots__ = (
        "cell",
        "dealt",
        "excluded",
        "foundation_of",
        "home",
        "live",
        "pass_number",
        "piles",
        "played",
        "ranks",
        "suits",
        "talon",
    )

    home: int
    ranks: list[int]
    suits: list[int]
    foundation_of: list[int]
    excluded: int
    piles: list[int]
    talon: tuple[int, ...]
    dealt: int
    cell: int
    pass_number: int
    played: bool
    live: int

    def copy(self) -> Position:
        other = Position.__new__(Position)
        other.home = self.home
        other.ranks = self.ranks[:]
        other.suits = self.suits[:]
        other.foundation_of = self.foundation_of[:]
        other.excluded = self.excluded
        other.piles = self.piles[:]
        other.talon = self.talon
        other.dealt = self.dealt
        other.cell = self.cell
        other.pass_number = self.pass_number
        other.played = self.played
        other.live = self.live
        return other


class Searcher:
    """One search from one full-information position; `run(budget)` does it."""

    def __init__(self, state: GameState, reach: bool = True) -> None:
        rules = state.rules
        self.draw = rules.draw
        self.max_passes = rules.max_passes
        self.group = rules.waste_access is WasteAccess.GROUP
        self.has_cell = rules.free_cells > 0
        self.rank_above = rules.start_rule is StartRule.RANK_ABOVE
        self.base_rank = state.foundations[0][0].rank - 1
        self.reserves = [tuple(card.index for card in pile) for pile in state.reserves]
        self.start = self._position(state)
        self.plans = viable_plans(state)
        base_rule = rules.start_rule is StartRule.BASE_RANK
        self.waits = [Waits(plan, self.base_rank, base_rule) for plan in self.plans]
        self.reserve_piles = ReservePiles(self.reserves)
        self.reach = reach
        self._next_suits_cache: dict[tuple[int, int, int, int], int] = {}
        self._all_home: dict[tuple[int, int, int, int, bool], bool] = {}
        self._on_top_cache: dict[tuple[int, int, bool], int] = {}

    def _position(self, state: GameState) -> Position:
        position = Position()
        position.home = 0
        position.ranks = [0, 0, 0, 0]
        position.suits = [-1, -1, -1, -1]
        position.foundation_of = [-1, -1, -1, -1]
        for k, foundation in enumerate(state.foundations):
            if foundation:
                suit = foundation[0].index // 13
                position.suits[k] = suit
                position.foundation_of[suit] = k
            for card in foundation:
                position.home |= 1 << card.index
                position.ranks[k] |= 1 << (card.index % 13)
        position.excluded = 0
        position.piles = [len(pile) for pile in state.reserves]
        position.talon = tuple(card.index for card in state.waste + state.stock)
        position.dealt = len(state.waste)
        position.cell = state.cell.index if state.cell is not None else NO_CARD
        position.pass_number = state.pass_number
        position.played = state.played_this_pass
        position.live = state.live_waste
        return position

    # --- the rules, on the search's positions ------------------------------------------------------

    def _started(self, position: Position) -> int:
        suits = position.suits
        return 4 if suits[3] >= 0 else 3 if suits[2] >= 0 else 2 if suits[1] >= 0 else 1

    def _starts_next(self, position: Position, card: int) -> bool:
        """Whether `card`, of a suit no foundation has, may start the next empty foundation."""
        started = self._started(position)
        if started == 4:
            return False
        if self.rank_above:
            return bool(position.ranks[started - 1] >> (card % 13) & 1)
        return card % 13 == self.base_rank

    def _accepting(self, position: Position, card: int) -> int:
        """The started foundation that takes `card` now, or -1."""
        k = position.foundation_of[card // 13]
        if k == 0:
            return 0
        if k > 0 and position.ranks[k - 1] >> (card % 13) & 1:
            return k
        return -1

    def _waste_top(self, position: Position) -> int:
        if position.dealt and (not self.group or position.live):
            return position.talon[position.dealt - 1]
        return NO_CARD

    def _sources(self, position: Position) -> Iterator[tuple[Place, int]]:
        """The cards that may leave their place now, as legal_actions orders them."""
        for p, count in enumerate(position.piles):
            if count:
                yield RESERVES[p], self.reserves[p][count - 1]
        top = self._waste_top(position)
        if top != NO_CARD:
            yield _WASTE, top
        if position.cell != NO_CARD:
            yield _CELL, position.cell

    def _play(self, position: Position, source: Place, card: int, k: int) -> Move:
        """Play `card` from `source` to foundation k (starting it if empty), in place; the engine's move."""
        if position.suits[k] < 0:
            suit = card // 13
            position.suits[k] = suit
            position.foundation_of[suit] = k
            position.excluded = 0
        position.home |= 1 << card
        position.ranks[k] |= 1 << (card % 13)
        self._take(position, source)
        position.played = True
        return Move(DECK[card], source, FOUNDATIONS[k])

    def _take(self, position: Position, source: Place) -> None:
        if source is _WASTE:
            dealt = position.dealt
            position.talon = position.talon[: dealt - 1] + position.talon[dealt:]
            position.dealt = dealt - 1
            if position.live:
                position.live -= 1
        elif source is _CELL:
            position.cell = NO_CARD
        else:
            position.piles[RESERVES.index(source)] -= 1

    def settle(self, position: Position, actions: list[Action]) -> tuple[Place, int] | None:
        """Make every play that never hurts; return the first card whose suit the plan must decide on
        (it could start the next foundation), or None."""
        while True:
            if position.home == ALL_HOME:
                return None
            for source, card in self._sources(position):
                if source is _WASTE and self._waste_play_is_a_choice(position):
                    continue
                k = self._accepting(position, card)
                if k < 0 and self._may_start(position, card):
                    if self._next_suits(position) != 1 << (card // 13):
                        return source, card
                    k = self._started(position)
                if k >= 0:
                    actions.append(self._play(position, source, card, k))
                    break
            else:
                return None

    def _waste_play_is_a_choice(self, position: Position) -> bool:
        """Whether playing the waste's top card may hurt: under draw three while the stock still holds cards to
        deal in a pass that is not the last (it changes how the stock falls into threes in later passes)."""
        if self.draw == 1 or position.dealt == len(position.talon):
            return False
        return self.max_passes is None or position.pass_number < self.max_passes or not self.reach

    def _may_start(self, position: Position, card: int) -> bool:
        """Whether `card` may start the next empty foundation, under the rules and a viable plan."""
        suit = card // 13
        return (
            position.foundation_of[suit] < 0
            and self._starts_next(position, card)
            and bool(self._next_suits(position) >> suit & 1)
        )

    def _next_suits(self, position: Position) -> int:
        """The suits the next empty foundation may still take under a viable plan, as a bit mask."""
        suits = position.suits
        key = (suits[1], suits[2], suits[3], position.excluded)
        mask = self._next_suits_cache.get(key)
        if mask is None:
            started = self._started(position)
            mask = 0
            for plan in self.plans:
                if (
                    started < 4
                    and plan[:started] == tuple(suits[:started])
                    and not position.excluded >> plan[started] & 1
                ):
                    mask |= 1 << plan[started]
            self._next_suits_cache[key] = mask
        return mask

    def lost(self, position: Position) -> bool:
        """Whether the engine ends the game here as lost (engine.settle), whatever the plan."""
        if position.dealt < len(position.talon):
            return False
        sources = list(self._sources(position))
        if self.has_cell and position.cell == NO_CARD and sources:
            return False
        for _, card in sources:
            if self._playable(position, card):
                return False
        return not (self._can_redeal(position) and position.played)

    def hopeless(self, position: Position) -> bool:
        """Whether under every plan still open some card can never come home from `position` (reach.py)."""
        suits = position.suits
        started = self._started(position)
        redeal_to_come = self.max_passes is None or position.pass_number < self.max_passes
        free = self._on_top(len(position.talon), position.dealt, redeal_to_come)
        reach = None
        for index, waits in enumerate(self.waits):
            plan = waits.plan
            if plan[:started] != tuple(suits[:started]) or (started < 4 and position.excluded >> plan[started] & 1):
                continue
            # The talon is the cards neither home nor in the cell, so these say all the test reads.
            key = (index, position.home, position.cell, free, redeal_to_come)
            all_home = self._all_home.get(key)
            if all_home is None:
                if reach is None:
                    reach = Reach(
                        self.reserve_piles,
                        position.talon,
                        free,
                        self.draw,
                        redeal_to_come,
                        position.cell,
                        self.has_cell,
                        position.home,
                    )
                all_home = self._all_home[key] = reach.all_home(waits)
            if all_home:
                return False
        return True

    def _on_top(self, length: int, dealt: int, redeal_to_come: bool) -> int:
        key = (length, dealt, redeal_to_come)
        free = self._on_top_cache.get(key)
        if free is None:
            free = self._on_top_cache[key] = on_top_untouched(length, dealt, self.draw, redeal_to_come)
        return free

    def _can_redeal(self, position: Position) -> bool:
        return position.dealt > 0 and (self.max_passes is None or position.pass_number < self.max_passes)

    def key(self, position: Position) -> int:
        suits = position.suits
        key = (
            position.home
            | (position.cell + 1) << 52
            | position.dealt << 58
            | position.played << 64
            | (suits[1] + 1) << 65
            | (suits[2] + 1) << 68
            | (suits[3] + 1) << 71
            | position.excluded << 74
        )
        if self.group:
            key |= position.live << 78
        if self.max_passes is not None:
            key |= position.pass_number << 80
        return key

    @staticmethod
    def worth_a_look(actions: list[Action]) -> bool:
        """Whether the hopeless test is worth its cost after `actions`: not after dealing alone, which only
        moves the place in the stock (the next play or redeal tests again)."""
        return not all(isinstance(action, Deal) for action in actions)

    def dominated(self, key: int, seen: set[int]) -> bool:
        """Whether a position seen dominates this one (see `dominators`)."""
        return any(other in seen for other in self.dominators(key))

    def dominators(self, key: int) -> list[int]:
        """The keys of the positions that are this one but with a card played in this pass (so no fruitless
        pass can end it), or in an earlier pass (so more redeals to come) with a card played if this one has:
        whatever this one can do, they could, action for action. (An earlier pass with nothing played does not
        dominate a later one with a card played: at the end of the stock the later one may redeal and the
        earlier one loses.)"""
        found = [] if key & _PLAYED else [key | _PLAYED]
        if self.max_passes is not None:
            pass_number = key >> _PASS_SHIFT
            rest = key & _BELOW_PASS
            for earlier in range(max(1, pass_number - EARLIER_PASSES), pass_number):
                found.append(rest | _PLAYED | earlier << _PASS_SHIFT)
                if not key & _PLAYED:
                    found.append(rest | earlier << _PASS_SHIFT)
        return found

    # --- the choices ---------------------------------------------------------------------------------

    def children(
        self, position: Position, decision: tuple[Place, int] | None
    ) -> Iterator[tuple[Position, list[Action]]]:
        """Each choice at a settled position: the position after it (settled too) and the engine's actions."""
        if decision is not None:
            source, card = decision
            suit = card // 13
            child = position.copy()
            actions: list[Action] = [self._play(child, source, card, self._started(child))]
            yield child, actions
            child = position.copy()
            child.excluded |= 1 << suit
            if self._next_suits(child):
                yield child, []
            return
        top = self._waste_top(position)
        if top != NO_CARD and self.draw > 1:
            k = self._accepting(position, top)
            if k < 0 and self._may_start(position, top):
                k = self._started(position)
            if k >= 0:
                child = position.copy()
                yield child, [self._play(child, _WASTE, top, k)]
        if position.dealt < len(position.talon):
            child = position.copy()
            yield child, self._deal_on(child)
        elif self._can_redeal(position):
            child = position.copy()
            child.dealt = 0
            child.live = 0
            child.pass_number += 1
            child.played = False
            yield child, [Redeal()]
        if self.has_cell and position.cell == NO_CARD:
            for source, card in self._sources(position):
                if self.reach and self._cell_gains_nothing(position, source, card):
                    continue
                child = position.copy()
                self._take(child, source)
                child.cell = card
                child.played = True
                yield child, [Move(DECK[card], source, _CELL)]

    def _cell_gains_nothing(self, position: Position, source: Place, card: int) -> bool:
        """Whether moving `card` to the cell now is never better than leaving it or playing it.

        A card a started foundation takes is better played (the cell stays free). A reserve card is worth the
        cell only for the card it uncovers, which can go nowhere but home: so only when that card can go home
        at once. Any other time, the same moves with `card` left on its pile up to the moment the card under
        it can go home, and the move to the cell then, reach the same position with the cell free meanwhile
        (and a game with the cell free and a card to put there is never ended by a fruitless pass); a win
        whose card in the cell went home before the one under it gained nothing from the cell at all."""
        if self._accepting(position, card) >= 0:
            return True
        if source is _WASTE or source is _CELL:
            return False
        pile = RESERVES.index(source)
        count = position.piles[pile]
        return count == 1 or not self._playable(position, self.reserves[pile][count - 2])

    def _deal_on(self, position: Position) -> list[Action]:
        """Deal, and go on dealing while dealing is the only choice: the stock is not empty, the waste's
        top card cannot be played and no card can go to the cell. The positions passed through are not
        searched on their own, since each has one way on."""
        deals: list[Action] = []
        talon = len(position.talon)
        cell_free = self.has_cell and position.cell == NO_CARD
        while True:
            count = min(self.draw, talon - position.dealt)
            position.dealt += count
            position.live = count
            deals.append(Deal())
            if position.dealt == talon or cell_free or self._playable(position, position.talon[position.dealt - 1]):
                return deals

    def _playable(self, position: Position, card: int) -> bool:
        """Whether `card` has a foundation now, under the engine's rules (whatever the plan)."""
        return self._accepting(position, card) >= 0 or (
            position.foundation_of[card // 13] < 0 and self._starts_next(position, card)
        )
