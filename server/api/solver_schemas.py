"""The bodies of the solver's answers: a game's analysis (docs/solver.md)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ..solver import Verdict
from .schemas import component

VERDICTS = [verdict.value for verdict in Verdict]


class SolvedSchema(ma.Schema):
    verdict = fields.String(required=True, validate=validate.OneOf(VERDICTS), metadata={
        "description": "winnable: the witness wins from here; unwinnable: every position reachable was searched "
                       "and none is won; unknown: the budget ran out first."})
    witness = fields.List(component("LegalAction"), required=True, metadata={
        "description": "Actions that win from this position, each legal where it is played; empty unless "
                       "winnable."})
    nodes = fields.Integer(required=True, metadata={"description": "Positions the solver searched."})


class WinnablePositionSchema(SolvedSchema):
    seq = fields.Integer(required=True, metadata={"description": "The position after this event."})


class LosingActionSchema(ma.Schema):
    seq = fields.Integer(required=True, metadata={"description": "The event that records the action."})
    action = component("Action", required=True)


class AnalysisSchema(ma.Schema):
    game_id = fields.UUID(required=True)
    solver = fields.String(required=True, metadata={"example": "osmosis-solver/1"})
    budget = fields.Integer(required=True, metadata={"description": "Positions each search could take at most."})
    status = fields.String(required=True, validate=validate.OneOf(["won", "lost", "resigned"]))
    deal = fields.Nested(SolvedSchema, required=True, metadata={
        "description": "The opening: was the deal winnable? For a won game, the game's own actions are the witness."})
    last_winnable = fields.Nested(WinnablePositionSchema, required=True, allow_none=True, metadata={
        "description": "The last position of a lost or resigned game that could still be won, with a win from "
                       "there; null when the deal was not winnable (or was won)."})
    lost_by = fields.Nested(LosingActionSchema, required=True, allow_none=True, metadata={
        "description": "The action right after last_winnable: after it the game could no longer be won. null "
                       "when the deal was never winnable, was won, or the search could not tell."})
    exact = fields.Boolean(required=True, metadata={
        "description": "Every verdict above was decided; false when a search ran out of budget."})
    summary = fields.String(required=True, metadata={
        "example": "winnable until event 37; the deal at event 38 lost it"})
