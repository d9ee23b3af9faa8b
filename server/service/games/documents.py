"""What the server shows: a game's document (the body of every response about a game), a sealed deal, a
player and their API tokens, and the compact JSON it writes them in."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any
from uuid import UUID

from ...game.callers import ApiTokenRecord, PlayerRecord
from ...game.document import projection
from ...game.records import GameRecord
from ...rules import GameState
from ..records import DailyDeal, SealedDeal


def game_view(record: GameRecord) -> dict[str, Any]:
    """A game as every response shows it: public view, legal actions, version, status, score, chain head."""
    view: dict[str, Any] = json.loads(record.document)
    return view


def sealed_deal_view(deal: SealedDeal) -> dict[str, Any]:
    return {
        "id": str(deal.id),
        "commitment": deal.commitment,
        "created_at": deal.created_at.isoformat(),
        "game_id": str(deal.game_id) if deal.game_id else None,
    }


def position_after(game_id: UUID, event_seq: int, event_hash: str, state: GameState) -> dict[str, Any]:
    """The position after an event, as time travel shows it."""
    return {"game_id": str(game_id), "seq": event_seq, "event_hash": event_hash, **projection(state)}


def player_view(player: PlayerRecord) -> dict[str, Any]:
    return {"name": player.name, "kind": player.kind, "created_at": player.created_at.isoformat()}


def api_token_view(token: ApiTokenRecord) -> dict[str, Any]:
    """A token as its player sees it listed: never the token, which only its hash is left of."""
    return {
        "id": str(token.id),
        "label": token.label,
        "scopes": list(token.scopes),
        "created_at": token.created_at.isoformat(),
        "last_used_at": token.last_used_at.isoformat() if token.last_used_at else None,
    }


def daily_view(
    day: date, closes: datetime, closed: bool, deals: list[DailyDeal], games: Mapping[str, UUID]
) -> dict[str, Any]:
    """A day's deals: each preset's commitment, its seed once the day has closed, and the viewer's game of it."""
    return {
        "day": day.isoformat(),
        "closes_at": closes.isoformat(),
        "closed": closed,
        "deals": [
            {
                "variant": deal.variant,
                "daily_deal_id": str(deal.id),
                "commitment": deal.commitment,
                "server_seed": deal.server_seed.hex() if closed else None,
                "your_game": str(games[deal.variant]) if deal.variant in games else None,
            }
            for deal in deals
        ],
    }
