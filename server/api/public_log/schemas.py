"""The bodies of the public log's JSON answers: a game's place in the log, and a consistency proof."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ...log.public_entries import ENTRY_KINDS

_BASE64_HASH = {
    "description": "A SHA-256 hash in standard base64.",
    "example": "bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=",
}


class LogLeafSchema(ma.Schema):
    index = fields.Integer(required=True, metadata={"description": "The leaf's index in the log."})
    kind = fields.String(required=True, validate=validate.OneOf(ENTRY_KINDS))
    entry = fields.String(required=True, metadata={"description": "The entry as logged: canonical JSON."})
    leaf_hash = fields.String(required=True, metadata=_BASE64_HASH)
    inclusion_proof = fields.List(
        fields.String(metadata=_BASE64_HASH),
        required=True,
        metadata={"description": "RFC 9162 inclusion proof of the leaf in the checkpoint's tree, leaf to root."},
    )


class GameTransparencySchema(ma.Schema):
    """Where a game's entries are in the public log, with a signed checkpoint and an inclusion proof of each."""

    checkpoint = fields.String(
        required=True,
        metadata={"description": "The published checkpoint: a C2SP signed note, with any witnesses' cosignatures."},
    )
    tree_size = fields.Integer(required=True)
    root_hash = fields.String(required=True, metadata=_BASE64_HASH)
    leaves = fields.List(fields.Nested(LogLeafSchema), required=True)
    pending = fields.List(
        fields.String(validate=validate.OneOf(ENTRY_KINDS)),
        required=True,
        metadata={
            "description": "The game's entries not yet in the published checkpoint (the next one, within seconds)."
        },
    )


class ConsistencyQuerySchema(ma.Schema):
    from_size = fields.Integer(
        required=True,
        data_key="from",
        validate=validate.Range(min=1, max=2**62),
        metadata={"description": "The smaller tree size."},
    )
    to_size = fields.Integer(
        required=True,
        data_key="to",
        validate=validate.Range(min=1, max=2**62),
        metadata={"description": "The larger tree size, at most the published checkpoint's."},
    )


class ConsistencyProofSchema(ma.Schema):
    from_size = fields.Integer(required=True, data_key="from")
    to_size = fields.Integer(required=True, data_key="to")
    proof = fields.List(
        fields.String(metadata=_BASE64_HASH),
        required=True,
        metadata={"description": "RFC 9162 consistency proof from the smaller tree to the larger."},
    )


class RetirementSchema(ma.Schema):
    origin = fields.String(required=True, metadata={"description": "The retired log's origin."})
    verifier_key = fields.String(required=True, metadata={"description": "The retired log's verifier key."})
    final_checkpoint = fields.String(
        required=True,
        metadata={
            "description": "Its final checkpoint, a signed note of the retired key: the last tree it published, with "
            "an extension line `successor <verifier key>`."
        },
    )
    successor_origin = fields.String(required=True)
    successor_key = fields.String(required=True, metadata={"description": "The verifier key of the log after it."})
    retired_at = fields.DateTime(required=True)


class RetirementsSchema(ma.Schema):
    """The logs this server retired (docs/operations.md, "Retiring a log"): a monitor pinned to a retired key finds
    its final checkpoint here."""

    retirements = fields.List(fields.Nested(RetirementSchema), required=True)
