"""What a finished game counts for its player: its result, recorded by the write that reveals its seeds, and the
same result counted again from the game's log (`osmosis rebuild-stats`). The two must agree."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..log import events as ev
from .records import GameRecord, PlayerResult

COUNTED_ACTION_EVENTS = frozenset((ev.CARD_PLAYED, ev.CARD_TO_CELL, ev.CARDS_DEALT, ev.WASTE_REDEALT))
"""The events a player's action appends that count as actions: moves, deals and redeals."""


def result_at_reveal(game: GameRecord, abandoned: bool = False) -> PlayerResult | None:
    """The result of a player's game under a preset, from its row as the write revealing its seeds leaves it;
    None for a game with no player or with custom rules. `abandoned`: the upkeep ends it, its player gone.

    Its log then holds game_created, its hints, its actions, its undos, the event that ended it (game_won,
    game_lost or game_resigned) and seeds_revealed: so its actions are its version less its hints, its undos and
    those three.
    """
    actions = game.version - game.hints - game.undos - 3
    return _result(game, game.status == "won", game.score, game.hints, actions, game.undos, abandoned)


def result_from_log(game: GameRecord, events: Sequence[ev.Event]) -> PlayerResult | None:
    """The same result, counted from the game's log event by event (what `osmosis rebuild-stats` does)."""
    if game.owner is None or game.variant is None or not events or events[-1].kind != ev.SEEDS_REVEALED:
        return None
    ended = next(event for event in reversed(events) if event.kind in (ev.GAME_WON, ev.GAME_LOST, ev.GAME_RESIGNED))
    score = int(ended.data.get("score", game.score)) if ended.kind != ev.GAME_RESIGNED else game.score
    hints = sum(event.kind == ev.HINT_GIVEN for event in events)
    actions = sum(event.kind in COUNTED_ACTION_EVENTS for event in events)
    undos = sum(event.kind == ev.ACTION_UNDONE for event in events)
    return _result(game, ended.kind == ev.GAME_WON, score, hints, actions, undos)


def _result(
    game: GameRecord, won: bool, score: int, hints: int, actions: int, undos: int, abandoned: bool = False
) -> PlayerResult | None:
    """A player's game under a preset counts; one with no player or with custom rules does not (None)."""
    if game.owner is None or game.variant is None:
        return None
    return PlayerResult(
        game.id,
        game.owner.id,
        game.owner.kind,
        game.variant,
        game.daily,
        won,
        score,
        hints,
        actions,
        game.created_at,
        game.updated_at,
        public_deal=is_public_deal(game.deal),
        abandoned=abandoned,
        undos=undos,
    )


def is_public_deal(deal: Mapping[str, Any]) -> bool:
    """Whether anyone could look the deal's solution up before playing it: a public deal number (its analysis, or
    the solver, shows a winning line); not a random, sealed or daily deal, secret until its game is over."""
    return deal.get("kind") == "number"
