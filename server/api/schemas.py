"""Marshmallow schemas: the shapes of requests and responses, and so of the OpenAPI document."""

from __future__ import annotations

import re
from typing import Any, cast

import marshmallow as ma
from marshmallow import fields, validate

from ..events import EVENT_KINDS
from ..rules import PRESETS, Card, Move, Place, StartRule, WasteAccess
from ..rules.deal import MAX_DEAL_NUMBER


class _WholeText(validate.Regexp):
    """A pattern the whole text must match: Python's `$` also matches before a final newline."""

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, str) or cast("re.Pattern[str]", self.regex).fullmatch(value) is None:
            raise ma.ValidationError(self._format_error(value))
        return value


CARD = _WholeText(r"^(?:[A2-9TJQK]|10)[CDHS]$", error="not a card code like 'QH' or '10S', with no white space")
CARD_EXAMPLE = "7S"
STATUSES = ("playing", "won", "lost", "resigned")
SOURCES = ("R1", "R2", "R3", "R4", "waste", "cell")
TARGETS = ("F1", "F2", "F3", "F4", "cell")


def _card(description: str | None = None, **kwargs: Any) -> fields.String:
    metadata = {"example": CARD_EXAMPLE, **({"description": description} if description else {})}
    return fields.String(validate=CARD, metadata=metadata, **kwargs)


def _version(description: str) -> fields.Integer:
    return fields.Integer(strict=True, validate=validate.Range(min=1), metadata={"description": description})


class RulesSchema(ma.Schema):
    reserve_piles = fields.Integer(strict=True, validate=validate.OneOf([4, 0]), load_default=4)
    reserve_face_down = fields.Integer(strict=True, validate=validate.OneOf([3, 0]), load_default=3)
    draw = fields.Integer(strict=True, validate=validate.OneOf([3, 1]), load_default=3)
    max_passes = fields.Integer(
        strict=True, allow_none=True, validate=validate.Range(min=1), load_default=None,
        metadata={"description": "Passes through the stock allowed; null for unlimited."},
    )
    waste_access = fields.String(validate=validate.OneOf([m.value for m in WasteAccess]), load_default="top")
    start_rule = fields.String(validate=validate.OneOf([m.value for m in StartRule]), load_default="base_rank")
    free_cells = fields.Integer(strict=True, validate=validate.OneOf([0, 1]), load_default=0)


class VariantSchema(ma.Schema):
    name = fields.String(required=True, metadata={"example": "osmosis"})
    description = fields.String(required=True)
    rules = fields.Nested(RulesSchema, required=True)


class VariantListSchema(ma.Schema):
    variants = fields.List(fields.Nested(VariantSchema), required=True)


class CreateGameSchema(ma.Schema):
    """A preset or custom rules; and a public deal number, or a sealed deal with the client's seed."""

    variant = fields.String(
        metadata={"description": "A preset name (GET /variants). Default: osmosis.", "example": "osmosis"}
    )
    rules = fields.Nested(RulesSchema, metadata={"description": "Custom rules instead of a preset."})
    deal_number = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=MAX_DEAL_NUMBER),
        metadata={"description": "A public, shareable deal. Without it the deal comes from a fresh secret seed."},
    )

    sealed_deal_id = fields.UUID(
        metadata={"description": "A sealed deal (POST /deals) to deal from, with your client_seed."}
    )
    client_seed = fields.String(
        validate=[validate.Length(max=256), validate.Regexp(r"^[^\x00]*$", error="must not contain NUL")],
        metadata={"description": "Your own seed for a sealed deal: the server committed to its seed before "
                                 "seeing it. Any text up to 256 characters.", "example": "my lucky seed"},
    )

    @ma.validates_schema
    def _one_way_to_deal(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "variant" in data and "rules" in data:
            raise ma.ValidationError("give a preset name or custom rules, not both", "rules")
        if "sealed_deal_id" in data and "deal_number" in data:
            raise ma.ValidationError("a game is dealt from a deal number or a sealed deal, not both", "deal_number")
        if "client_seed" in data and "sealed_deal_id" not in data:
            raise ma.ValidationError(
                "a client_seed goes with a sealed_deal_id (POST /deals first), so that the server's seed is fixed "
                "before it sees yours", "client_seed")


class ReserveSchema(ma.Schema):
    face_down = fields.Integer(required=True, metadata={"description": "How many cards lie face down."})
    face_up = fields.List(_card(), required=True, metadata={"description": "Face-up cards, bottom to top."})


class FoundationSchema(ma.Schema):
    suit = fields.String(
        required=True, allow_none=True, metadata={"description": "C, D, H or S; null until started."}
    )
    cards = fields.List(_card(), required=True, metadata={"description": "In the order played."})


class PublicStateSchema(ma.Schema):
    reserves = fields.List(fields.Nested(ReserveSchema), required=True, metadata={"description": "R1..R4."})
    foundations = fields.List(fields.Nested(FoundationSchema), required=True, metadata={"description": "F1..F4."})
    base_rank = fields.String(required=True, metadata={"example": "6"})
    stock_count = fields.Integer(required=True)
    waste = fields.List(_card(), required=True, metadata={"description": "Bottom to top."})
    live_waste = fields.Integer(
        required=True, metadata={"description": "Cards of the latest deal still on the waste (group access)."}
    )
    cell = fields.String(required=True, allow_none=True)
    pass_number = fields.Integer(required=True)
    passes_left = fields.Integer(required=True, allow_none=True, metadata={"description": "null: unlimited."})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    end_reason = fields.String(required=True, allow_none=True)


class LegalActionSchema(ma.Schema):
    kind = fields.String(required=True, validate=validate.OneOf(["move", "deal", "redeal"]))
    card = _card("For kind move.")
    from_ = fields.String(
        data_key="from", attribute="from", validate=validate.OneOf(SOURCES), metadata={"description": "For kind move."}
    )
    to = fields.String(validate=validate.OneOf(TARGETS), metadata={"description": "For kind move."})


class DealInfoSchema(ma.Schema):
    kind = fields.String(
        required=True, validate=validate.OneOf(["number", "random", "sealed"]),
        metadata={"description": "number: a public deal number; random: a secret server seed; sealed: a sealed "
                                 "deal and the client's seed."},
    )
    deal_number = fields.Integer()
    sealed_deal_id = fields.String()
    server_seed = fields.String(metadata={"description": "Revealed when the game is over."})
    client_seed = fields.String(metadata={"description": "Revealed when the game is over."})


class GameSchema(ma.Schema):
    id = fields.UUID(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Integer(required=True, metadata={"description": "The seq of the last event."})
    variant = fields.String(required=True, allow_none=True, metadata={"description": "null for custom rules."})
    rules = fields.Nested(RulesSchema, required=True)
    deal = fields.Nested(DealInfoSchema, required=True)
    commitment = fields.String(required=True, metadata={"description": "hex SHA-256 commitment to the server seed."})
    created_at = fields.String(required=True, metadata={"format": "date-time"})
    updated_at = fields.String(required=True, metadata={"format": "date-time"})
    score = fields.Integer(required=True, metadata={"description": "Cards on the foundations."})
    head_hash = fields.String(required=True, metadata={"description": "Hash of the last event: a receipt."})
    state = fields.Nested(PublicStateSchema, required=True)
    legal_actions = fields.List(fields.Nested(LegalActionSchema), required=True)


class CreatedGameSchema(GameSchema):
    player_token = fields.String(
        required=True, metadata={"description": "Shown once: send it as Authorization: Bearer <player_token>."}
    )


class GameListSchema(ma.Schema):
    games = fields.List(fields.Nested(GameSchema), required=True)


# Query strings are text, so their integers cannot be strict; int("2.5") is refused all the same.
class GameListQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    limit = fields.Integer(validate=validate.Range(min=1, max=100), load_default=20)
    cursor = fields.String(metadata={"description": "From the Link rel=\"next\" header of the previous page."})


class MoveSchema(ma.Schema):
    card = _card(required=True)
    from_ = fields.String(
        data_key="from", attribute="from", validate=validate.OneOf(SOURCES),
        metadata={"description": "Where the card is; checked when given."},
    )
    to = fields.String(
        validate=validate.OneOf(TARGETS),
        metadata={"description": "A foundation (checked when given) or cell; default: its foundation."},
    )
    expected_version = _version("Refuse the move with 412 unless the game is at this version.")


class ActionRequestSchema(ma.Schema):
    expected_version = _version("Refuse the action with 412 unless the game is at this version.")


class EventSchema(ma.Schema):
    seq = fields.Integer(required=True, strict=True)
    kind = fields.String(required=True, validate=validate.OneOf(EVENT_KINDS))
    data = fields.Dict(required=True)
    hash = fields.String(required=True)


class ActionResultSchema(ma.Schema):
    game = fields.Nested(GameSchema, required=True)
    events = fields.List(fields.Nested(EventSchema), required=True, metadata={"description": "The events appended."})


class EventQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    after = fields.Integer(validate=validate.Range(min=0), load_default=0)
    limit = fields.Integer(validate=validate.Range(min=1, max=1000), load_default=100)
    wait = fields.Integer(
        validate=validate.Range(min=0, max=30), load_default=0,
        metadata={"description": "Long poll: if no event has seq > after yet, wait up to this many seconds "
                                 "for one, then answer (with an empty list if none came)."},
    )


class EventStreamQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    after = fields.Integer(
        validate=validate.Range(min=0), load_default=0,
        metadata={"description": "Send events with seq > after; a Last-Event-ID header takes precedence."},
    )


class FeedQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    game_id = fields.List(
        fields.UUID(), validate=validate.Length(min=1, max=100),
        metadata={"description": "Follow these games (the parameter once per game, up to 100): each is sent as it "
                                 "is now, then its new events. Without it: every game's new events."},
    )
    variant = fields.String(validate=validate.OneOf(list(PRESETS)),
                            metadata={"description": "Only games of this preset."})


class EventStreamHeadersSchema(ma.Schema):
    class Meta:
        unknown = ma.EXCLUDE  # every other header of the request

    last_event_id = fields.String(
        data_key="Last-Event-ID",
        metadata={"description": "The id of the last event received (its seq): the stream resumes after it. "
                                 "EventSource sends it when it reconnects; it takes precedence over `after`."},
    )


class EventListSchema(ma.Schema):
    events = fields.List(fields.Nested(EventSchema), required=True)


class StateAtSchema(ma.Schema):
    game_id = fields.UUID(required=True)
    seq = fields.Integer(required=True)
    event_hash = fields.String(required=True, metadata={"description": "The hash of event seq."})
    state = fields.Nested(PublicStateSchema, required=True)
    legal_actions = fields.List(fields.Nested(LegalActionSchema), required=True)


class SealedDealSchema(ma.Schema):
    id = fields.UUID(required=True)
    commitment = fields.String(required=True, metadata={"description": "hex SHA-256 commitment to the seed."})
    created_at = fields.String(required=True, metadata={"format": "date-time"})
    game_id = fields.UUID(required=True, allow_none=True, metadata={"description": "The game made from it."})


class ReplaySchema(ma.Schema):
    """An osmosis-replay/1 document: see docs/replay-format.md."""

    format = fields.String(required=True, metadata={"example": "osmosis-replay/1"})
    game_id = fields.String(required=True)
    variant = fields.String(required=True, allow_none=True)
    rules = fields.Dict(required=True)
    deal_algorithm = fields.String(required=True, metadata={"example": "osmosis-deal-v1"})
    deal = fields.Dict(required=True)
    commitment = fields.String(required=True)
    status = fields.String(required=True)
    head_hash = fields.String(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class VerdictSchema(ma.Schema):
    valid = fields.Boolean(required=True)
    complete = fields.Boolean(
        required=True, metadata={"description": "Every check ran (the seeds were known); false while in progress."}
    )
    checked_events = fields.Integer(required=True)
    first_bad_seq = fields.Integer(required=True, allow_none=True)
    reason = fields.String(required=True, allow_none=True)
    summary = fields.String(required=True)


class HealthSchema(ma.Schema):
    status = fields.String(required=True, metadata={"example": "ok"})


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details, with a stable `code` to switch on."""

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"example": "illegal-action"})
    rule = fields.String(metadata={"description": "For illegal-action: the rule that forbids it."})
    errors = fields.Dict(metadata={"description": "For validation-failed: the offending fields."})


def move_from_request(data: dict[str, Any]) -> Move:
    """The rules engine's Move for a validated move request."""
    source = Place.parse(data["from"]) if "from" in data else None
    target = Place.parse(data["to"]) if "to" in data else None
    return Move(Card.parse(data["card"]), source, target)
