"""The shapes of what the server says of itself and of its refusals: the variants it deals, its health, and a
problem."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ..rules import RULES_THAT_REFUSE
from .errors import every_code
from .schemas import RulesSchema


class VariantSchema(ma.Schema):
    name = fields.String(required=True, metadata={"example": "osmosis"})
    description = fields.String(required=True)
    rules = fields.Nested(RulesSchema, required=True)


class VariantListSchema(ma.Schema):
    variants = fields.List(fields.Nested(VariantSchema), required=True)


class HealthSchema(ma.Schema):
    status = fields.String(required=True, metadata={"example": "ok"})
    writes = fields.String(
        metadata={
            "description": "Readiness only: whether a write would be acknowledged now (`ok`, or why not: a primary "
            "waiting for its synchronous standby answers writes 503 meanwhile, and serves reads).",
            "example": "ok",
        }
    )
    reads = fields.String(
        metadata={
            "description": "Readiness only, with READ_DATABASE_URL: where the reads that can wait a moment go now "
            "(`replicas`, or `primary: ` and why).",
            "example": "replicas",
        }
    )
    log = fields.String(
        metadata={
            "description": "Readiness only, where this process signs the public log: `ok`, or why it signs nothing "
            "(its database behind, or diverging from, a checkpoint it handed out: see docs/operations.md, "
            '"Recovering the log"). Games are played meanwhile; their log entries wait.',
            "example": "ok",
        }
    )
    proxies = fields.String(
        metadata={
            "description": "Readiness only, and only when it is so: requests came through a proxy the server was not "
            "told of (a forwarded address while PROXY_COUNT is 0), within the hour. Every client then has the proxy's "
            "address: set PROXY_COUNT.",
        }
    )


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details, with a stable `code` to switch on."""

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(
        required=True,
        validate=validate.OneOf(every_code()),
        metadata={
            "description": "What went wrong, to switch on; each operation's description lists the codes it can give."
        },
    )
    rule = fields.String(
        validate=validate.OneOf(RULES_THAT_REFUSE),
        metadata={"description": "For illegal-action: the rule that forbids it (docs/rules.md)."},
    )
    errors = fields.Dict(metadata={"description": "For validation-failed: the offending fields."})
    log_entry = fields.Integer(
        metadata={"description": "For game-gone: the index of the public log's entry recording the game's creation."}
    )
