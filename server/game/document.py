"""What the API shows of a game: its document (the body of every response about it), rendered once when the game
changes and sent as it is by every read, and the reply to a command on it."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ..log import events
from ..rules import GameState, action_to_dict, legal_actions, public_view
from .records import GameRecord


def can_undo(record: GameRecord, state: GameState) -> bool:
    """Whether an undo would take an action back now: the game is on, in no contest (a daily deal, a competition),
    has an action left that was not taken back, and has not had its MAX_UNDOS (events.MAX_UNDOS)."""
    return record.undoable > 0 and record.contest is None and not state.is_over and record.undos < events.MAX_UNDOS


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
        # Last, where migration 0022 appended them to the documents it found.
        "undos": record.undos,
        "can_undo": can_undo(record, state),
        # Only an entrant's game has a clock: the documents of every other game stay as they were.
        **({} if record.competition is None else {"competition": record.competition.to_dict()}),
    }


def rendered(record: GameRecord, state: GameState) -> GameRecord:
    """The record with its document rendered from its fields and `state`, as JSON text: the projection every
    read sends as it is (so it is written once, when the game changes)."""
    return replace(record, document=to_json(game_document(record, state)))


def projection(state: GameState) -> dict[str, Any]:
    return {"state": public_view(state), "legal_actions": [action_to_dict(a) for a in legal_actions(state)]}


_COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def to_json(data: Any) -> str:
    """JSON as the server writes it, in responses and in stored documents alike."""
    return _COMPACT_JSON.encode(data)


def action_reply(document: str, events_json: str, hint: dict[str, Any] | None) -> str:
    """The game after a command, the events it appended, and the hint it gave: the document and the events spliced
    in as they are kept, not encoded again."""
    given = "" if hint is None else f',"hint":{to_json(hint)}'
    return f'{{"game":{document},"events":{events_json}{given}}}'
