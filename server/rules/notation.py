"""A compact text notation for positions, for tests, logs and the command line.

One item a line (or separated by ";"), in any order, blank lines and indentation ignored:

    rules   osmosis                       a preset name, or parameters: draw=1 max_passes=3 ...
    R1      2D JD KC 8S                   reserve piles, bottom to top (none under Bridesmaids)
    F1      6H 9H                         foundations in the order played; "-" for empty
    stock   AS 5H TH ...                  first dealt first; "..." (once, in the stock or the
                                          waste) stands for every card not listed elsewhere,
                                          in canonical order
    waste   3C KH | TC 4D                 bottom to top; cards after "|" are those of the latest
                                          deal still on the waste
    cell    QS                            "-" (or no line) when empty
    pass    2 played                      the pass number, and "played" if a card went to a
                                          foundation or the cell since the pass began
    outcome lost: no action is legal      once the game is over (won and lost are checked
                                          against the rules)

`to_text` writes every card, including hidden ones: it is for tests and the engine's own use and must
never reach a player. `public_text` writes what a player may see: "##" for a face-down card and only
the size of the stock.
"""

from __future__ import annotations

from .actions import FOUNDATIONS, RESERVES
from .cards import DECK, Card, parse_cards
from .engine import RESIGNED, settle
from .errors import InvalidInput
from .state import GameState
from .variants import PARAMETERS, Rules, preset

_HIDDEN = "##"


def to_text(state: GameState) -> str:
    return "\n".join(_lines(state, public=False))


def public_text(state: GameState) -> str:
    return "\n".join(_lines(state, public=True))


def _lines(state: GameState, public: bool) -> list[str]:
    lines = [f"rules {rules_text(state.rules)}"]
    for p, pile in enumerate(state.reserves):
        hidden = state.face_down(p) if public else 0
        codes = [_HIDDEN] * hidden + [card.code for card in pile[hidden:]]
        lines.append(f"{RESERVES[p]} {' '.join(codes) or '-'}")
    for k, foundation in enumerate(state.foundations):
        lines.append(f"{FOUNDATIONS[k]} {_cards(foundation)}")
    if public:
        lines.append(f"stock {len(state.stock)} cards")
    else:
        lines.append(f"stock {_cards(state.stock)}")
    dead = [card.code for card in state.waste[: len(state.waste) - state.live_waste]]
    live = [card.code for card in state.waste[len(state.waste) - state.live_waste :]]
    lines.append("waste " + (" ".join([*dead, "|", *live]) if live else " ".join(dead) or "-"))
    if state.rules.free_cells:
        lines.append(f"cell {state.cell or '-'}")
    lines.append(f"pass {state.pass_number}" + (" played" if state.played_this_pass else ""))
    if state.outcome is not None:
        lines.append(f"outcome {state.outcome.status}: {state.outcome.reason}")
    return lines


def _cards(cards: tuple[Card, ...]) -> str:
    return " ".join([card.code for card in cards]) or "-"


def rules_text(rules: Rules) -> str:
    if rules.preset_name is not None:
        return rules.preset_name
    values = rules.to_dict()
    return " ".join(f"{name}={'unlimited' if values[name] is None else values[name]}" for name in PARAMETERS)


def parse_rules(text: str) -> Rules:
    words = text.split()
    if len(words) == 1 and "=" not in words[0]:
        return preset(words[0])
    values: dict[str, object] = {}
    for word in words:
        name, sep, value = word.partition("=")
        if not sep:
            raise InvalidInput(f"rule parameters are written name=value, not {word!r}")
        if value == "unlimited":
            values[name] = None
        elif value.isdigit():
            values[name] = int(value)
        else:
            values[name] = value
    return Rules.from_mapping(values)


def from_text(text: str) -> GameState:
    """A position from its notation, with its outcome settled by the rules."""
    items: dict[str, str] = {}
    for raw in text.replace(";", "\n").splitlines():
        line = raw.strip()
        if not line:
            continue
        key, _, value = line.partition(" ")
        key = key.rstrip(":")
        if key in items:
            raise InvalidInput(f"position text names {key!r} twice")
        items[key] = value.strip()
    rules = parse_rules(items.pop("rules", "osmosis"))

    def cards(key: str) -> tuple[Card, ...]:
        value = items.pop(key, "-")
        return () if value == "-" else parse_cards(value)

    reserves = tuple(cards(str(RESERVES[p])) for p in range(rules.reserve_piles))
    foundations = tuple(cards(str(place)) for place in FOUNDATIONS)
    stock, stock_fill = _cards_and_fill(items.pop("stock", "-"))
    dead_text, bar, live_text = items.pop("waste", "-").partition("|")
    dead, dead_fill = _cards_and_fill(dead_text)
    live = parse_cards(live_text) if bar else ()
    cell_text = items.pop("cell", "-")
    cell = None if cell_text == "-" else Card.parse(cell_text)
    pass_words = items.pop("pass", "1").split()
    if not pass_words or not pass_words[0].isdigit() or pass_words[1:] not in ([], ["played"]):
        raise InvalidInput(f"a pass is written like '2' or '2 played', not {' '.join(pass_words)!r}")
    stated_outcome = items.pop("outcome", None)
    pass_number = int(pass_words[0])
    if pass_number < 1 or (rules.max_passes is not None and pass_number > rules.max_passes):
        raise InvalidInput(f"pass {pass_number} is outside these rules' passes")
    if items:
        raise InvalidInput(f"unknown item(s) in position text: {', '.join(sorted(items))}")

    listed = [
        *(card for pile in reserves for card in pile),
        *(c for f in foundations for c in f),
        *stock,
        *dead,
        *live,
        *((cell,) if cell is not None else ()),
    ]
    if stock_fill is not None and dead_fill is not None:
        raise InvalidInput(_FILL_ONCE)
    if stock_fill is not None or dead_fill is not None:
        seen = set(listed)
        missing = tuple(card for card in DECK if card not in seen)
        listed += missing
        if stock_fill is not None:
            stock = stock[:stock_fill] + missing + stock[stock_fill:]
        elif dead_fill is not None:
            dead = dead[:dead_fill] + missing + dead[dead_fill:]
    _check_deck(listed)
    _check_foundations(foundations)
    if cell is not None and not rules.free_cells:
        raise InvalidInput("the position has a card in the cell but the rules have no free cell")
    state = GameState(
        rules=rules,
        reserves=reserves,
        foundations=foundations,
        stock=stock,
        waste=dead + live,
        live_waste=len(live),
        cell=cell,
        pass_number=pass_number,
        played_this_pass=pass_words[1:] == ["played"],
        outcome=RESIGNED if stated_outcome is not None and stated_outcome.startswith("resigned") else None,
    )
    state = settle(state)
    if stated_outcome is not None and not stated_outcome.startswith(f"{state.status}:"):
        raise InvalidInput(f"the position says 'outcome {stated_outcome}' but the game is {state.status}")
    return state


_FILL = "..."
_FILL_ONCE = "'...' may stand only once, in the stock or the waste"


def _cards_and_fill(text: str) -> tuple[tuple[Card, ...], int | None]:
    """The cards written, and where "..." stood among them (None if it did not): every card not listed
    elsewhere, in canonical order, goes there."""
    words = text.split()
    if words in ([], ["-"]):
        return (), None
    if _FILL not in words:
        return tuple(Card.parse(word) for word in words), None
    at = words.index(_FILL)
    if _FILL in words[at + 1 :]:
        raise InvalidInput(_FILL_ONCE)
    return tuple(Card.parse(word) for word in words if word != _FILL), at


def _check_deck(cards: list[Card]) -> None:
    seen = set(cards)
    if len(seen) != len(cards):
        twice = sorted({str(card) for card in cards if cards.count(card) > 1})
        raise InvalidInput(f"the position lists {', '.join(twice)} more than once")
    if len(seen) != 52:
        missing = " ".join(str(card) for card in DECK if card not in seen)
        raise InvalidInput(f"the position must hold all 52 cards; missing: {missing}")


def _check_foundations(foundations: tuple[tuple[Card, ...], ...]) -> None:
    if not foundations[0]:
        raise InvalidInput("F1 holds the base card and is never empty")
    for k, foundation in enumerate(foundations):
        if foundation and any(card.suit is not foundation[0].suit for card in foundation):
            raise InvalidInput(f"{FOUNDATIONS[k]} mixes suits")
        if k and foundation and not foundations[k - 1]:
            raise InvalidInput(f"{FOUNDATIONS[k]} is started but {FOUNDATIONS[k - 1]} is not")
