"""The bodies of sealed deals, replay exports, and the verdict on a replay (docs/replay-format.md)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ...log.events import EVENT_KINDS
from ..public_log.schemas import GameTransparencySchema
from ..schemas import STATUSES, DealInfoSchema, RulesSchema, component


class RecordedEventSchema(ma.Schema):
    """An event as an uploaded export claims it: what is wrong with its data is the verdict's to say."""

    seq = fields.Integer(required=True, strict=True)
    kind = fields.String(required=True, validate=validate.OneOf(EVENT_KINDS))
    data = fields.Dict(required=True)
    hash = fields.String(required=True)


class SealedDealSchema(ma.Schema):
    id = fields.UUID(required=True)
    commitment = fields.String(required=True, metadata={"description": "hex SHA-256 commitment to the seed."})
    created_at = fields.String(required=True, metadata={"format": "date-time"})
    game_id = fields.UUID(required=True, allow_none=True, metadata={"description": "The game made from it."})


class ReplaySchema(ma.Schema):
    """An osmosis-replay/1 document: see docs/replay-format.md."""

    format = fields.String(required=True, validate=validate.OneOf(["osmosis-replay/1"]))
    game_id = fields.String(required=True)
    variant = fields.String(required=True, allow_none=True)
    rules = fields.Nested(RulesSchema, required=True)
    deal_algorithm = fields.String(required=True, metadata={"example": "osmosis-deal-v1"})
    deal = fields.Nested(DealInfoSchema, required=True)
    commitment = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    head_hash = fields.String(required=True)
    events = fields.List(component("Event"), required=True)
    transparency = fields.Nested(
        GameTransparencySchema,
        metadata={
            "description": "The game's entries in the public log, with proofs; absent until the log has sequenced it."
        },
    )
    transparency_unavailable = fields.String(
        metadata={
            "description": "Why the export carries no proofs of inclusion in the public log now (the log signs "
            "nothing while it is recovered after a restore): the game's own hash chain verifies without them; "
            "export it again later for the proofs. Absent when the proofs could be given."
        }
    )


class ReplayDocumentSchema(ma.Schema):
    """A replay document to verify: an export (a Replay) as it was kept, or as someone changed it. It needs the
    shape of one; whether its contents hold is the verdict's to say."""

    format = fields.String(required=True, metadata={"example": "osmosis-replay/1"})
    game_id = fields.String(required=True)
    variant = fields.String(required=True, allow_none=True)
    rules = fields.Dict(required=True)
    deal_algorithm = fields.String(required=True, metadata={"example": "osmosis-deal-v1"})
    deal = fields.Dict(required=True)
    commitment = fields.String(required=True)
    status = fields.String(required=True)
    head_hash = fields.String(required=True)
    events = fields.List(fields.Nested(RecordedEventSchema), required=True)
    transparency = fields.Dict(metadata={"description": "Proofs in the public log, as the export carries them."})
    transparency_unavailable = fields.String(
        metadata={"description": "Why the export carries no proofs in the public log, as the export says."}
    )


class VerdictSchema(ma.Schema):
    valid = fields.Boolean(required=True)
    complete = fields.Boolean(
        required=True,
        metadata={
            "description": "Every check ran: the seeds were known, and every search the checks "
            "need was within the request's budget. False while the game is on, "
            "or when `unchecked` lists something."
        },
    )
    checked_events = fields.Integer(required=True)
    first_bad_seq = fields.Integer(required=True, allow_none=True)
    reason = fields.String(required=True, allow_none=True)
    unchecked = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "What the check of a valid log left out, in words: a winnable deal's choice or recorded "
            "hints "
            "whose search is beyond the request's budget of solver positions, or hints of another "
            "solver version. `osmosis verify` checks them offline. Empty when the log is invalid or every "
            "check ran."
        },
    )
    summary = fields.String(required=True)
