"""The events of the move log, one schema per kind, each with its `data` typed (docs/replay-format.md)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields

from ..log import events as ev
from .games.solver_schemas import HintSchema
from .players.schemas import PlayerRefSchema
from .schemas import (
    SOURCES,
    TARGETS,
    DealInfoSchema,
    EntrantClockSchema,
    PublicStateSchema,
    RulesSchema,
    card,
    cards,
    component,
    elapsed_ms,
    kind,
    one_of,
)


class GameCreatedDataSchema(ma.Schema):
    elapsed_ms = elapsed_ms()
    game_id = fields.String(
        metadata={
            "description": "The game's id, binding the log to its game (absent from "
            "the logs of games made before it was added)."
        }
    )
    rules = fields.Nested(RulesSchema, required=True)
    variant = fields.String(required=True, allow_none=True, metadata={"description": "null for custom rules."})
    deal_algorithm = fields.String(required=True, metadata={"example": "osmosis-deal-v1"})
    deal = fields.Nested(DealInfoSchema, required=True, metadata={"description": "How the deal is made; no secret."})
    commitment = fields.String(required=True, metadata={"description": "hex SHA-256 commitment to the server seed."})
    opening = fields.Nested(PublicStateSchema, required=True, metadata={"description": "The public opening."})
    player = fields.Nested(
        PlayerRefSchema,
        metadata={
            "description": "The player who made the game with their API token; absent from games made without one."
        },
    )
    competition = fields.Nested(
        EntrantClockSchema, metadata={"description": "A competition entrant's game: its competition and clock."}
    )


class CardMovedDataSchema(ma.Schema):
    elapsed_ms = elapsed_ms()
    card = card(required=True)
    from_ = one_of("Source", SOURCES, data_key="from", attribute="from", required=True)
    to = one_of("Target", TARGETS, required=True)
    uncovered = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The Card turned face up on the reserve pile the card left; null if none was."},
    )


class CardsDealtDataSchema(ma.Schema):
    elapsed_ms = elapsed_ms()
    cards = cards("The cards dealt to the waste, in the order dealt (the last is the new top).")


class WasteRedealtDataSchema(ma.Schema):
    elapsed_ms = elapsed_ms()
    pass_number = fields.Integer(required=True, metadata={"description": "The pass that begins."})


class GameEndedDataSchema(ma.Schema):
    elapsed_ms = elapsed_ms()
    reason = fields.String(required=True)
    score = fields.Integer(required=True, metadata={"description": "Cards on the foundations."})


class GameResignedDataSchema(ma.Schema):
    elapsed_ms = elapsed_ms()
    reason = fields.String(required=True)


class ActionUndoneDataSchema(ma.Schema):
    elapsed_ms = elapsed_ms()
    undone_seq = fields.Integer(
        required=True, metadata={"description": "The seq of the taken-back action's own event (not itself taken back)."}
    )
    action = component(
        "LegalAction", required=True, metadata={"description": "The action taken back, as it was legal then."}
    )


class SeedsRevealedDataSchema(ma.Schema):
    elapsed_ms = elapsed_ms()
    server_seed = fields.String(required=True, metadata={"description": "hex; hashes to the commitment."})
    client_seed = fields.String(required=True, metadata={"description": "The client's seed; empty if none."})


def _event(kind_name: str, data: type[ma.Schema], description: str) -> type[ma.Schema]:
    name = "".join(part.title() for part in kind_name.split("_")) + "EventSchema"
    meta = type("Meta", (), {"description": f"{description} `{kind_name}`: data is {data.__name__[:-6]}."})
    return type(
        name,
        (ma.Schema,),
        {
            "Meta": meta,
            "seq": fields.Integer(required=True, metadata={"description": "Its place in the log, from 1."}),
            "kind": kind(kind_name),
            "data": fields.Nested(data, required=True),
            "hash": fields.String(
                required=True,
                metadata={"description": "hex SHA-256 of the previous hash and this event's canonical JSON."},
            ),
            "game_id": fields.String(metadata={"description": "In the multi-game feed only: the event's game."}),
        },
    )


EVENT_SCHEMAS: dict[str, type[ma.Schema]] = {
    ev.GAME_CREATED: _event(ev.GAME_CREATED, GameCreatedDataSchema, "The first event: rules, deal, commitment."),
    ev.CARD_PLAYED: _event(ev.CARD_PLAYED, CardMovedDataSchema, "A card played to a foundation."),
    ev.CARD_TO_CELL: _event(ev.CARD_TO_CELL, CardMovedDataSchema, "A card moved to the free cell."),
    ev.CARDS_DEALT: _event(ev.CARDS_DEALT, CardsDealtDataSchema, "Cards dealt from the stock to the waste."),
    ev.WASTE_REDEALT: _event(ev.WASTE_REDEALT, WasteRedealtDataSchema, "The waste turned over into the stock."),
    ev.GAME_WON: _event(ev.GAME_WON, GameEndedDataSchema, "Every card is on the foundations."),
    ev.GAME_LOST: _event(ev.GAME_LOST, GameEndedDataSchema, "No action is left."),
    ev.GAME_RESIGNED: _event(ev.GAME_RESIGNED, GameResignedDataSchema, "The player gave up."),
    ev.SEEDS_REVEALED: _event(ev.SEEDS_REVEALED, SeedsRevealedDataSchema, "The seeds, once the game is over."),
    ev.HINT_GIVEN: _event(ev.HINT_GIVEN, HintSchema, "A hint the player asked for (it changes no card)."),
    ev.ACTION_UNDONE: _event(
        ev.ACTION_UNDONE,
        ActionUndoneDataSchema,
        "The latest action not taken back yet, taken back (the action `undo`): the position is again the one "
        "before it.",
    ),
    ev.GAME_TIMED_OUT: _event(
        ev.GAME_TIMED_OUT, GameEndedDataSchema, "A competition game's clock ran out: the server ended it."
    ),
}
