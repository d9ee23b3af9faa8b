"""What the server shows: a game's document (the body of every response about a game), a sealed deal, a
player and their API tokens, and the compact JSON it writes them in."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from datetime import date, datetime
from typing import Any
from uuid import UUID

from ..rules import GameState, action_to_dict, legal_actions, public_view
from .records import ApiTokenRecord, DailyDeal, GameRecord, PlayerRecord, SealedDeal


def game_view(record: GameRecord) -> dict[str, Any]:
    """A game as every response shows it: public view, legal actions, version, status, score, chain head."""
    view: dict[str, Any] = json.loads(record.document)
    return view


def game_document(record: GameRecord, state: GameState) -> dict[str, Any]:
    return {
        "id": str(record.id),
        "status": record.status,
        "version": record.version,
        "variant": record.variant,
        # Sorted: read back from jsonb these come in jsonb's key order, and the document of every version
        # should list them alike.
        "rules": dict(sorted(record.rules.items())),
        "deal": dict(sorted(record.deal.items())),
        "commitment": record.commitment,
        "created_at": record.created_at.isoformat(),
        "updated_at": record.updated_at.isoformat(),
        "score": record.score,
        "head_hash": record.head_hash,
        **projection(state),
        # Last, where migration 0008 appended it to the documents it found.
        "hints": record.hints,
        # Only a player's game names its player: the documents of every other game stay as they were.
        **({} if record.owner is None else {"player": record.owner.named()}),
    }


def rendered(record: GameRecord, state: GameState) -> GameRecord:
    """The record with its document rendered from its fields and `state`, as JSON text: the projection every
    read sends as it is (so it is written once, when the game changes)."""
    return replace(record, document=to_json(game_document(record, state)))


_COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def to_json(data: Any) -> str:
    """JSON as the server writes it, in responses and in stored documents alike."""
    return _COMPACT_JSON.encode(data)


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


def projection(state: GameState) -> dict[str, Any]:
    return {"state": public_view(state), "legal_actions": [action_to_dict(a) for a in legal_actions(state)]}


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
