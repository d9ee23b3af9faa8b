"""The bodies of the solver's answers: a game's analysis (docs/solver.md)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ...rules import Status
from ...solver import Verdict
from ...solver.hints import BASES, EXACT_CHOICES
from ..schemas import GameSchema, component, elapsed_ms

VERDICTS = [verdict.value for verdict in Verdict]
ENDED = [status.value for status in Status if status is not Status.PLAYING]


class SolvedSchema(ma.Schema):
    verdict = fields.String(
        required=True,
        validate=validate.OneOf(VERDICTS),
        metadata={
            "description": "winnable: the witness wins from here; unwinnable: every position reachable was searched "
            "and none is won; unknown: the budget ran out first."
        },
    )
    witness = fields.List(
        component("LegalAction"),
        required=True,
        metadata={
            "description": "Actions that win from this position, each legal where it is played; empty unless winnable."
        },
    )
    nodes = fields.Integer(required=True, metadata={"description": "Positions the solver searched."})


class WinnablePositionSchema(SolvedSchema):
    seq = fields.Integer(required=True, metadata={"description": "The position after this event."})


class LosingActionSchema(ma.Schema):
    seq = fields.Integer(required=True, metadata={"description": "The event that records the action."})
    action = component("Action", required=True)


class AnalysisSchema(ma.Schema):
    game_id = fields.UUID(required=True)
    solver = fields.String(required=True, metadata={"example": "osmosis-solver/2"})
    budget = fields.Integer(required=True, metadata={"description": "Positions each search could take at most."})
    status = fields.String(required=True, validate=validate.OneOf(ENDED))
    deal = fields.Nested(
        SolvedSchema,
        required=True,
        metadata={
            "description": "The opening: was the deal winnable? For a won game, the game's own actions are the witness."
        },
    )
    last_winnable = fields.Nested(
        WinnablePositionSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "The last position of a lost or resigned game that could still be won, with a win from "
            "there; null when the deal was not winnable (or was won)."
        },
    )
    lost_by = fields.Nested(
        LosingActionSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "The action right after last_winnable: after it the game could no longer be won. null "
            "when the deal was never winnable, was won, or the search could not tell."
        },
    )
    exact = fields.Boolean(
        required=True,
        metadata={"description": "Every verdict above was decided; false when a search ran out of budget."},
    )
    summary = fields.String(
        required=True, metadata={"example": "winnable until event 37; the deal at event 38 lost it"}
    )


class EstimateSchema(ma.Schema):
    action = component("LegalAction", required=True)
    wins = fields.Integer(
        required=True,
        metadata={"description": "Arrangements of the unseen cards in which the solver won after this action."},
    )
    # Not a field named `unknown`: on a marshmallow schema that name is the setting for unknown fields.
    undecided = fields.Integer(
        required=True,
        data_key="unknown",
        attribute="unknown",
        metadata={"description": "Arrangements the solver could not decide within its budget after this action."},
    )
    samples = fields.Integer(
        required=True,
        metadata={
            "description": "Arrangements judged: the estimated chance of winning is wins / samples (at least; at most "
            "(wins + unknown) / samples)."
        },
    )


class HintSchema(ma.Schema):
    elapsed_ms = elapsed_ms()
    action = component(
        "LegalAction",
        required=True,
        allow_none=True,
        metadata={
            "description": "The action recommended, one of the game's legal_actions; null only when nothing is unseen "
            "and the solver found no action that wins (verdict unwinnable or unknown)."
        },
    )
    basis = fields.String(
        required=True,
        validate=validate.OneOf(BASES),
        metadata={
            "description": "exact: every card is known to the player, and the solver searched the position itself; "
            "estimate: each legal action was judged on random arrangements of the unseen cards."
        },
    )
    verdict = component(
        "SolverVerdict",
        required=True,
        allow_none=True,
        metadata={"description": "The exact search's verdict on the position; null for an estimate."},
    )
    estimates = fields.List(
        fields.Nested(EstimateSchema),
        required=True,
        metadata={
            "description": "For an estimate, every legal action, best first (most wins, then most undecided); empty "
            "for an exact answer."
        },
    )
    samples = fields.Integer(required=True, metadata={"description": "Arrangements judged (1 when exact)."})
    unseen = fields.Integer(
        required=True,
        metadata={
            "description": "Cards the player has not seen: the stock's in the first pass, and the face-down ones."
        },
    )
    nodes = fields.Integer(required=True, metadata={"description": "Positions searched in all."})
    budget = fields.Integer(required=True, metadata={"description": "Positions the hint could search at most."})
    solver = fields.String(required=True, metadata={"example": "osmosis-solver/2"})
    exact_choice = fields.String(
        validate=validate.OneOf(EXACT_CHOICES),
        metadata={
            "description": "For an exact hint, how it chose among the actions that keep the game winnable: "
            "`line-of-the-pass`, until a card is played in a pass, the line found from the position the "
            "pass began with, without the passes it would go round in vain (so that taking every hint "
            "plays a card in every pass and ends the game; docs/solver.md). Absent from estimates, and from "
            "exact hints given before it was named, which took the first action of the winning line found "
            "from the position itself."
        },
    )


class HintResultSchema(ma.Schema):
    game = fields.Nested(GameSchema, required=True, metadata={"description": "The game, its hints counted."})
    events = fields.List(
        component("Event"),
        required=True,
        metadata={
            "description": "The hint_given event appended: its data is the hint. Empty when the position had its "
            "hint already (nothing has moved since): that hint is the answer, and nothing is appended."
        },
    )
    hint = fields.Nested(HintSchema, required=True)
