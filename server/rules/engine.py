"""The rules: which actions are legal, what an action does, and when the game is over.

Every function here is pure: a state goes in, a new state (or a tuple of actions) comes out, and the
state passed in never changes.
"""

from __future__ import annotations

from .actions import FOUNDATIONS, RESERVES, Action, Deal, Move, Place, Redeal, Resign
from .cards import Card
from .deal import Layout, deal_number_seed, layout, shuffled_deck
from .errors import GameOver, IllegalAction, InvalidInput
from .state import GameState, Outcome, Status
from .variants import Rules, StartRule, WasteAccess

WON = Outcome(Status.WON, "all 52 cards are on the foundations")
LOST_NO_ACTION = Outcome(Status.LOST, "no action is legal")
LOST_FRUITLESS_PASS = Outcome(
    Status.LOST,
    "the stock is empty, no card was played since the pass began and none can be played now: "
    "the next pass would repeat this one",
)
RESIGNED = Outcome(Status.RESIGNED, "the player resigned")


def opening(rules: Rules, deal: Layout) -> GameState:
    """The position before the first action."""
    if len(deal.reserves) != rules.reserve_piles:
        raise InvalidInput(f"the layout has {len(deal.reserves)} reserve piles, the rules {rules.reserve_piles}")
    state = GameState(
        rules=rules,
        reserves=deal.reserves,
        foundations=((deal.base,), (), (), ()),
        stock=deal.stock,
    )
    return settle(state)


def numbered_opening(rules: Rules, deal_number: int) -> GameState:
    """The position before the first action of public deal `deal_number` under `rules`: what the server deals."""
    return opening(rules, layout(shuffled_deck(deal_number_seed(deal_number)), rules))


def waste_top_is_playable(state: GameState) -> bool:
    if not state.waste:
        return False
    return state.rules.waste_access is WasteAccess.TOP or state.live_waste > 0


def playable_cards(state: GameState) -> list[tuple[Place, Card]]:
    """The cards that may leave their place now: reserve tops, the waste top, the cell's card."""
    cards = [(RESERVES[p], pile[-1]) for p, pile in enumerate(state.reserves) if pile]
    if waste_top_is_playable(state):
        cards.append((Place.WASTE, state.waste[-1]))
    if state.cell is not None:
        cards.append((Place.CELL, state.cell))
    return cards


def foundation_for(state: GameState, card: Card) -> int | None:
    """The index of the one foundation that accepts `card` now, or None.

    Foundations start strictly top to bottom, so a card of a suit already in use can only go to that
    suit's foundation, and a card of an unused suit only to the first empty one.
    """
    foundations = state.foundations
    suit = card.suit
    for k, foundation in enumerate(foundations):
        if not foundation:
            break
        if foundation[0].suit is suit:
            if k == 0 or _has_rank(foundations[k - 1], card):
                return k
            return None
    else:
        return None
    if state.rules.start_rule is StartRule.BASE_RANK:
        accepted = card.rank == foundations[0][0].rank
    else:
        accepted = _has_rank(foundations[k - 1], card)
    return k if accepted else None


def _has_rank(foundation: tuple[Card, ...], card: Card) -> bool:
    # A plain loop: this is the engine's hottest line, and any() over a generator costs twice as much.
    rank = card.rank
    for other in foundation:  # noqa: SIM110
        if other.rank == rank:
            return True
    return False


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """Every legal action but resigning (always allowed while the game is on), fully specified:
    moves name their source and target. Empty once the game is over."""
    if state.outcome is not None:
        return ()
    actions: list[Action] = []
    sources = playable_cards(state)
    for source, card in sources:
        k = foundation_for(state, card)
        if k is not None:
            actions.append(Move(card, source, FOUNDATIONS[k]))
    if state.rules.free_cells and state.cell is None:
        actions.extend(Move(card, source, Place.CELL) for source, card in sources)
    if state.stock:
        actions.append(Deal())
    elif can_redeal(state):
        actions.append(Redeal())
    return tuple(actions)


def can_redeal(state: GameState) -> bool:
    """Whether a redeal is allowed once the stock is empty: the waste has cards and passes remain."""
    max_passes = state.rules.max_passes
    return bool(state.waste) and (max_passes is None or state.pass_number < max_passes)


def apply(state: GameState, action: Action) -> GameState:
    """The position after `action`; `state` itself never changes.

    Raises IllegalAction (GameOver once the game is over), naming the rule and the cards, when the
    action is not allowed; the game's end is decided here, right after the action that causes it.
    """
    if state.outcome is not None:
        raise GameOver(f"the game is over ({state.outcome.status}): no further action is accepted")
    if isinstance(action, Move):
        if action.target is Place.CELL:
            return settle(_to_cell(state, action))
        return settle(_to_foundation(state, action))
    if isinstance(action, Deal):
        return settle(_deal(state))
    if isinstance(action, Redeal):
        return settle(_redeal(state))
    if isinstance(action, Resign):
        return _replace(state, outcome=RESIGNED)
    raise InvalidInput(f"not an action: {action!r}")


def _to_foundation(state: GameState, move: Move) -> GameState:
    card = move.card
    source = source_of(state, card, move.source)
    k = foundation_for(state, card)
    if move.target is not None:
        wanted = FOUNDATIONS.index(move.target)
        if k != wanted:
            raise _refusal(state, card, wanted)
    elif k is None:
        raise _refusal(state, card, _natural_foundation(state, card))
    assert k is not None
    foundations = list(state.foundations)
    foundations[k] = (*foundations[k], card)
    return _without(state, source, foundations=tuple(foundations), played_this_pass=True)


def _to_cell(state: GameState, move: Move) -> GameState:
    card = move.card
    if not state.rules.free_cells:
        raise IllegalAction("no-cell", f"{card} cannot go to the cell: these rules have no free cell")
    if state.cell == card:
        raise IllegalAction("cell-occupied", f"{card} is already in the cell")
    if state.cell is not None:
        raise IllegalAction("cell-occupied", f"{card} cannot go to the cell: it already holds {state.cell}")
    source = source_of(state, card, move.source)
    return _without(state, source, cell=card, played_this_pass=True)


def _deal(state: GameState) -> GameState:
    if not state.stock:
        if can_redeal(state):
            raise IllegalAction("stock-empty", "the stock is empty: redeal to start the next pass")
        raise IllegalAction("stock-empty", "the stock is empty and no redeal is possible")
    count = min(state.rules.draw, len(state.stock))
    return _replace(
        state,
        stock=state.stock[count:],
        waste=state.waste + state.stock[:count],
        live_waste=count,
    )


def _redeal(state: GameState) -> GameState:
    if state.stock:
        raise IllegalAction("stock-not-empty", f"cannot redeal: the stock still holds {len(state.stock)} cards")
    if not state.waste:
        raise IllegalAction("waste-empty", "cannot redeal: the waste is empty")
    if not can_redeal(state):
        raise IllegalAction(
            "no-passes-left",
            f"cannot redeal: pass {state.pass_number} was the last of {state.rules.max_passes}",
        )
    return _replace(
        state,
        stock=state.waste,
        waste=(),
        live_waste=0,
        pass_number=state.pass_number + 1,
        played_this_pass=False,
    )


def settle(state: GameState) -> GameState:
    """`state` with its outcome decided: won, lost (by either rule of rules.md), or still playing."""
    if state.outcome is not None:
        return state
    if state.cards_on_foundations == 52:
        return _replace(state, outcome=WON)
    if state.stock:
        return state
    sources = playable_cards(state)
    can_play = any(foundation_for(state, card) is not None for _, card in sources)
    can_use_cell = bool(state.rules.free_cells and state.cell is None and sources)
    if can_play or can_use_cell:
        return state
    if not can_redeal(state):
        return _replace(state, outcome=LOST_NO_ACTION)
    if not state.played_this_pass:
        return _replace(state, outcome=LOST_FRUITLESS_PASS)
    return state


def source_of(state: GameState, card: Card, stated: Place | None = None) -> Place:
    """Where `card` may leave from, checked against the place the client stated, if any.

    Raises IllegalAction if the card cannot move.
    """
    for p, pile in enumerate(state.reserves):
        if pile and pile[-1] == card:
            source = RESERVES[p]
            break
    else:
        if state.waste and state.waste[-1] == card:
            if not waste_top_is_playable(state):
                raise IllegalAction(
                    "group-waste",
                    f"{card} cannot move: under the group waste rule only the cards of the latest deal "
                    "can be played, and none of them is left",
                )
            source = Place.WASTE
        elif state.cell == card:
            source = Place.CELL
        else:
            raise IllegalAction("not-available", _why_unavailable(state, card))
    if stated is not None and stated is not source:
        raise IllegalAction("wrong-source", f"{card} is at {source}, not {stated}")
    return source


def _why_unavailable(state: GameState, card: Card) -> str:
    """Why `card` cannot move, saying nothing about where a hidden card is."""
    for k, foundation in enumerate(state.foundations):
        if card in foundation:
            return f"{card} is already on {FOUNDATIONS[k]}"
    if card in state.waste:
        return f"{card} is not the top of the waste (the top is {state.waste[-1]})"
    for p, pile in enumerate(state.reserves):
        if card in pile[state.face_down(p) :]:
            return f"{card} is not the top of {RESERVES[p]} (the top is {pile[-1]})"
    return f"{card} is not in play: only a reserve's top card, the waste's top card or the cell's card can move"


def _natural_foundation(state: GameState, card: Card) -> int:
    """The foundation a card would go to if the rules allowed it: its suit's, or the first empty one."""
    for k, foundation in enumerate(state.foundations):
        if not foundation or foundation[0].suit is card.suit:
            return k
    raise AssertionError("four started foundations hold all four suits")


def _refusal(state: GameState, card: Card, k: int) -> IllegalAction:
    """Why foundation k does not accept `card` now, naming the rule."""
    foundations = state.foundations
    target = FOUNDATIONS[k]
    above = FOUNDATIONS[k - 1] if k else None
    foundation = foundations[k]
    if foundation:
        suit = foundation[0].suit
        if suit is not card.suit:
            return IllegalAction("suit", f"{card} cannot go to {target}: {target} takes {suit.plural}")
        return IllegalAction("osmosis", f"{card} cannot go to {target}: no {card.rank} in {above}")
    if not foundations[k - 1]:
        return IllegalAction("start-order", f"{card} cannot start {target}: {above} is not started yet")
    for j, other in enumerate(foundations):
        if other and other[0].suit is card.suit:
            return IllegalAction(
                "suit", f"{card} cannot start {target}: {card.suit.plural} already go to {FOUNDATIONS[j]}"
            )
    if state.rules.start_rule is StartRule.BASE_RANK:
        return IllegalAction(
            "base-rank",
            f"{card} cannot start {target}: an empty foundation starts with the base rank, {state.base_rank}",
        )
    return IllegalAction("osmosis", f"{card} cannot start {target}: no {card.rank} in {above}")


def _without(state: GameState, source: Place, **changes: object) -> GameState:
    """`state` with the top card of `source` taken away, plus `changes`."""
    if source is Place.WASTE:
        changes["waste"] = state.waste[:-1]
        changes["live_waste"] = max(state.live_waste - 1, 0)
    elif source is Place.CELL:
        changes.setdefault("cell", None)
    else:
        p = RESERVES.index(source)
        reserves = list(state.reserves)
        reserves[p] = reserves[p][:-1]
        changes["reserves"] = tuple(reserves)
    return _replace(state, **changes)


def _replace(state: GameState, **changes: object) -> GameState:
    values = {
        "rules": state.rules,
        "reserves": state.reserves,
        "foundations": state.foundations,
        "stock": state.stock,
        "waste": state.waste,
        "live_waste": state.live_waste,
        "cell": state.cell,
        "pass_number": state.pass_number,
        "played_this_pass": state.played_this_pass,
        "outcome": state.outcome,
    }
    values.update(changes)
    return GameState(**values)  # type: ignore[arg-type]
