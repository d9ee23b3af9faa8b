"""The shapes of competitions: an announcement, a competition, its standings and results, an amendment."""

from __future__ import annotations

from typing import Any, ClassVar

import marshmallow as ma
from marshmallow import fields, validate

from ...game import competitions as rules_of_competitions
from ...rules import PRESETS
from ..players.schemas import PlayerRefSchema
from ..schemas import RulesInputSchema, RulesSchema, StrictBoolean, next_page_url

_TEXT = validate.Regexp(r"^[^\x00-\x1f\x7f]*$", error="must not contain control characters")
FINISHED = ("won", "lost", "resigned", "timed_out")
PROGRESS = ("entered", "playing", *FINISHED)


def _when(description: str, **kwargs: Any) -> fields.AwareDateTime:
    return fields.AwareDateTime(format="iso", metadata={"description": description}, **kwargs)


class CreateCompetitionSchema(ma.Schema):
    """What an organizer announces: a preset or custom rules, the format and schedule, each entrant's clock."""

    class Meta:
        unknown = ma.RAISE

    JSON_SCHEMA: ClassVar[dict[str, Any]] = {
        "not": {"required": ["variant", "rules"], "properties": {"variant": {}, "rules": {}}}
    }
    """A preset or custom rules, not both."""

    name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=100), _TEXT],
        metadata={"example": "Sunday race"},
    )
    format = fields.String(
        required=True,
        validate=validate.OneOf(rules_of_competitions.FORMATS),
        metadata={
            "description": "race: one start for all, at starts_at; window: each entrant starts once, when they "
            "like, before the last moment a whole clock fits before ends_at."
        },
    )
    variant = fields.String(
        metadata={
            "description": "A preset name (GET /variants). Default: osmosis.",
            "pattern": "^(" + "|".join(PRESETS) + ")$",
        }
    )
    rules = fields.Nested(RulesInputSchema, metadata={"description": "Custom rules instead of a preset."})
    entrants = fields.String(
        required=True,
        validate=validate.OneOf(rules_of_competitions.ENTRANTS),
        metadata={"description": "Who may enter: humans' accounts or bots' (`kind` at sign-up)."},
    )
    starts_at = _when("The start, at least 2 s ahead, with its offset from UTC.", required=True)
    ends_at = _when("A window's close (a race ends at starts_at + limit_s: leave this out).")
    limit_s = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(*rules_of_competitions.LIMIT_S),
        metadata={"description": "Each entrant's clock, in seconds."},
    )
    winnable = StrictBoolean(metadata={"description": "Deal a deal the solver proves winnable. Default false."})
    max_entrants = fields.Integer(
        strict=True,
        validate=validate.Range(1, rules_of_competitions.MAX_ENTRANTS),
        load_default=rules_of_competitions.DEFAULT_MAX_ENTRANTS,
    )
    hints = fields.String(
        validate=validate.OneOf(rules_of_competitions.HINTS),
        load_default="off",
        metadata={"description": "off: no hint is given; counted: hints are given, and each is in the game's log."},
    )
    review_s = fields.Integer(
        strict=True,
        validate=validate.Range(0, rules_of_competitions.MAX_REVIEW_S),
        load_default=0,
        metadata={"description": "How long after the close the organizer may amend the results."},
    )

    @ma.validates_schema
    def _one_way_to_set_the_rules(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "variant" in data and "rules" in data:
            raise ma.ValidationError("give a variant or rules, not both", "rules")


class CompetitionSchema(ma.Schema):
    id = fields.UUID(required=True)
    name = fields.String(required=True)
    organizer = fields.Nested(PlayerRefSchema, required=True)
    format = fields.String(required=True, validate=validate.OneOf(rules_of_competitions.FORMATS))
    variant = fields.String(required=True, allow_none=True, metadata={"description": "null for custom rules."})
    rules = fields.Nested(RulesSchema, required=True)
    entrants = fields.String(required=True, validate=validate.OneOf(rules_of_competitions.ENTRANTS))
    eligibility = fields.String(
        required=True,
        metadata={
            "description": "players-joined-before: only players whose player_joined entry is in the public "
            "log before the competition's announcement may enter."
        },
    )
    starts_at = fields.String(required=True, metadata={"format": "date-time"})
    ends_at = fields.String(required=True, metadata={"format": "date-time"})
    entries_close_at = fields.String(
        required=True,
        metadata={"format": "date-time", "description": "A race's start; a window's last start with a whole clock."},
    )
    limit_s = fields.Integer(required=True)
    winnable = fields.Boolean(required=True)
    max_entrants = fields.Integer(required=True)
    hints = fields.String(required=True, validate=validate.OneOf(rules_of_competitions.HINTS))
    review_s = fields.Integer(required=True)
    ranking = fields.String(
        required=True,
        metadata={
            "description": "osmosis-race-1: won first, then more cards home, then less time, then fewer "
            "actions, then the earlier finish entry in the public log."
        },
    )
    commitment = fields.String(
        required=True, metadata={"description": "hex SHA-256 of the deal's server seed, revealed at the close."}
    )
    announced_at = fields.String(required=True, metadata={"format": "date-time"})
    status = fields.String(required=True, validate=validate.OneOf(rules_of_competitions.STATUSES))
    entered = fields.Integer(required=True, metadata={"description": "Entrants in the field now."})
    closed_at = fields.String(required=True, allow_none=True, metadata={"format": "date-time"})
    standings_root = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Once closed: hex SHA-256 of the ranked results' canonical JSON, as the public log "
            "holds it (the latest amendment's, if any)."
        },
    )


class CompetitionListSchema(ma.Schema):
    competitions = fields.List(fields.Nested(CompetitionSchema), required=True)
    next = next_page_url("null on the last page")
    next_cursor = fields.String(required=True, allow_none=True)


class CompetitionListQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    limit = fields.Integer(validate=validate.Range(min=1, max=100), load_default=20)
    cursor = fields.String(
        validate=validate.Length(max=200), metadata={"description": "The previous page's `next_cursor`."}
    )
    status = fields.String(validate=validate.OneOf(rules_of_competitions.STATUSES))


class StandingSchema(ma.Schema):
    rank = fields.Integer(required=True, allow_none=True, metadata={"description": "null for a struck row."})
    player = fields.Nested(PlayerRefSchema, required=True)
    status = fields.String(required=True, validate=validate.OneOf(PROGRESS))
    score = fields.Integer(required=True, metadata={"description": "Cards home."})
    elapsed_ms = fields.Integer(required=True)
    actions = fields.Integer(required=True)


class StandingsSchema(ma.Schema):
    competition = fields.Nested(CompetitionSchema, required=True)
    standings = fields.List(fields.Nested(StandingSchema), required=True)


class ResultLinksSchema(ma.Schema):
    game = fields.String(required=True)
    replay = fields.String(required=True, metadata={"description": "The game's osmosis-replay/1 export."})
    verification = fields.String(required=True)


class ResultSchema(StandingSchema):
    game_id = fields.UUID(required=True, allow_none=True, metadata={"description": "null: the entrant never started."})
    struck = fields.String(
        required=True, allow_none=True, metadata={"description": "Why an amendment disqualified the entrant."}
    )
    links = fields.Nested(ResultLinksSchema, required=True, allow_none=True)


class ResultsSchema(ma.Schema):
    competition = fields.Nested(CompetitionSchema, required=True)
    final = fields.Boolean(required=True, metadata={"description": "Whether the review time is over."})
    standings_root = fields.String(required=True)
    results = fields.List(fields.Nested(ResultSchema), required=True)


class AmendmentSchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    player = fields.String(required=True, validate=validate.Length(min=1, max=100))
    action = fields.String(required=True, validate=validate.OneOf(("disqualify", "reinstate")))
    reason = fields.String(required=True, validate=[validate.Length(min=1, max=500), _TEXT])
