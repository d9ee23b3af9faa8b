"""What a finished game counts for its player: its result, recorded by the write that reveals its seeds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .records import GameRecord, PlayerResult


def result_at_reveal(game: GameRecord, abandoned: bool = False) -> PlayerResult | None:
    """The result of a player's game under a preset, from its row as the write revealing its seeds leaves it;
    None for a game with no player or with custom rules. `abandoned`: the upkeep ends it, its player gone.

    Its log then holds game_created, its hints, its actions, the event that ended it (game_won, game_lost or
    game_resigned) and seeds_revealed: so its actions are its version less its hints and those three.
    """
    if game.owner is None or game.variant is None:
        return None
    return PlayerResult(
        game.id,
        game.owner.id,
        game.owner.kind,
        game.variant,
        game.daily,
        game.status == "won",
        game.score,
        game.hints,
        game.version - game.hints - 3,
        game.created_at,
        game.updated_at,
        public_deal=is_public_deal(game.deal),
        abandoned=abandoned,
    )


def is_public_deal(deal: Mapping[str, Any]) -> bool:
    """Whether anyone could look the deal's solution up before playing it: a public deal number (its analysis, or
    the solver, shows a winning line); not a random, sealed or daily deal, secret until its game is over."""
    return deal.get("kind") == "number"
