"""The rules of Osmosis and its variants (see docs/rules.md): pure, deterministic, standard library only."""

from .actions import FOUNDATIONS, RESERVES, Action, Deal, Move, Place, Redeal, Resign, parse_action
from .cards import DECK, RANK_CODES, Card, Rank, Suit, parse_cards
from .deal import DEAL_ALGORITHM, Layout, commitment, deal_number_seed, layout, parse_server_seed, shuffled_deck
from .engine import apply, foundation_for, legal_actions, opening, playable_cards
from .errors import RULES_THAT_REFUSE, GameOver, IllegalAction, InvalidInput, InvalidRules, RulesError
from .notation import from_text, public_text, rules_text, to_text
from .state import GameState, Outcome, Status
from .variants import PRESET_DESCRIPTIONS, PRESETS, Rules, StartRule, WasteAccess, preset
from .view import action_to_dict, public_view

__all__ = [
    "DEAL_ALGORITHM",
    "DECK",
    "FOUNDATIONS",
    "PRESETS",
    "PRESET_DESCRIPTIONS",
    "RANK_CODES",
    "RESERVES",
    "RULES_THAT_REFUSE",
    "Action",
    "Card",
    "Deal",
    "GameOver",
    "GameState",
    "IllegalAction",
    "InvalidInput",
    "InvalidRules",
    "Layout",
    "Move",
    "Outcome",
    "Place",
    "Rank",
    "Redeal",
    "Resign",
    "Rules",
    "RulesError",
    "StartRule",
    "Status",
    "Suit",
    "WasteAccess",
    "action_to_dict",
    "apply",
    "commitment",
    "deal_number_seed",
    "foundation_for",
    "from_text",
    "layout",
    "legal_actions",
    "opening",
    "parse_action",
    "parse_cards",
    "parse_server_seed",
    "playable_cards",
    "preset",
    "public_text",
    "public_view",
    "rules_text",
    "shuffled_deck",
    "to_text",
]
