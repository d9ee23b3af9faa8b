"""The schemas of acting on a game: each action, told apart by its kind; the requests of the action routes, and
their result."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ..schemas import MAX_SEQ, SOURCES, TARGETS, GameSchema, card, component, kind, one_of


def _version(description: str) -> fields.Integer:
    return fields.Integer(
        strict=True, validate=validate.Range(min=1, max=MAX_SEQ), metadata={"description": description}
    )


class MoveActionSchema(ma.Schema):
    """Play `card` from `from` to `to`: a foundation, or the free cell."""

    kind = kind("move")
    card = card(required=True)
    from_ = one_of("Source", SOURCES, data_key="from", attribute="from", required=True)
    to = one_of("Target", TARGETS, required=True)


class DealActionSchema(ma.Schema):
    """Deal the next cards (one or three, by the rules) from the stock to the waste."""

    kind = kind("deal")


class RedealActionSchema(ma.Schema):
    """Turn the waste over into the stock for the next pass (the stock is empty and a pass is left)."""

    kind = kind("redeal")


class ResignActionSchema(ma.Schema):
    """Give up: the game ends as resigned and its seeds are revealed."""

    kind = kind("resign")


class UndoActionSchema(ma.Schema):
    """Take back the latest action not taken back yet: the game returns to the position before it, and the log
    gains an action_undone event. Refused at the deal, once the game is over, and in a daily deal."""

    kind = kind("undo")


ACTION_SCHEMAS: dict[str, ma.Schema] = {
    "move": MoveActionSchema(),
    "deal": DealActionSchema(),
    "redeal": RedealActionSchema(),
    "resign": ResignActionSchema(),
    "undo": UndoActionSchema(),
}


class ActionField(fields.Field[dict[str, Any]]):
    """One of the actions, told apart by `kind`, each checked by its own schema."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise ma.ValidationError('an action is an object like {"kind": "deal"}')
        kind = value.get("kind")
        schema = ACTION_SCHEMAS.get(kind) if isinstance(kind, str) else None
        if schema is None:
            raise ma.ValidationError({"kind": ["must be one of: " + ", ".join(ACTION_SCHEMAS)]})
        loaded: dict[str, Any] = schema.load(value)
        return loaded


class MoveSchema(ma.Schema):
    """A card to play: where it is and where it goes are checked when given, found when not."""

    card = card(required=True)
    from_ = one_of("Source", SOURCES, data_key="from", attribute="from")
    to = one_of("Target", TARGETS)
    expected_version = _version("Refuse the move with 412 unless the game is at this version.")


class ActionRequestSchema(ma.Schema):
    expected_version = _version("Refuse the action with 412 unless the game is at this version.")


class ActionSubmissionSchema(ma.Schema):
    """An action, exactly as `legal_actions` lists it (or a resignation), and optionally the version it is for."""

    action = ActionField(required=True, metadata={"component": "Action"})
    expected_version = _version("Refuse the action with 412 unless the game is at this version.")


class ActionResultSchema(ma.Schema):
    game = fields.Nested(GameSchema, required=True)
    events = fields.List(component("Event"), required=True, metadata={"description": "The events appended."})
