"""Marshmallow schemas: the shapes of requests and responses, and so of the OpenAPI document."""

from __future__ import annotations

import re
from typing import Any, ClassVar, cast

import marshmallow as ma
from marshmallow import fields, validate

from .. import rules
from ..rules import MAX_DEAL_NUMBER, PRESETS, RANK_CODES, StartRule, Status, WasteAccess
from .players.schemas import PlayerRefSchema


class _WholeText(validate.Regexp):
    """A pattern the whole text must match: Python's `$` also matches before a final newline."""

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, str) or cast("re.Pattern[str]", self.regex).fullmatch(value) is None:
            raise ma.ValidationError(self._format_error(value))
        return value


CARD_PATTERN = r"^(?:[A2-9TJQK]|10)[CDHS]$"
CARD = _WholeText(CARD_PATTERN, error="not a card code like 'QH' or '10S', with no white space")
STATUSES = tuple(status.value for status in Status)
SOURCES = tuple(place.value for place in rules.SOURCES)
TARGETS = tuple(place.value for place in rules.TARGETS)


def card(**kwargs: Any) -> fields.String:
    return fields.String(validate=CARD, metadata={"component": "Card"}, **kwargs)


def cards(description: str) -> fields.List[Any]:
    return fields.List(card(), required=True, metadata={"description": description})


def one_of(component: str, choices: tuple[str, ...], **kwargs: Any) -> fields.String:
    return fields.String(validate=validate.OneOf(choices), metadata={"component": component}, **kwargs)


def kind(value: str) -> fields.String:
    """The tag of one member of a tagged union: a one-value enum, required; its one value named the default too, so
    that a generated client's constructor needs none (`UndoAction()`, not `UndoAction(kind=UndoActionKind.UNDO)`)."""
    return fields.String(required=True, validate=validate.OneOf([value]), metadata={"default": value})


class StrictBoolean(fields.Boolean):
    """Only JSON's true and false: marshmallow's Boolean also takes "yes" or 1, which a client may not mean."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


def component(name: str, metadata: dict[str, Any] | None = None, **kwargs: Any) -> fields.Raw:
    """A value the contract describes as a component of its own (a tagged union): sent as the service made it."""
    return fields.Raw(metadata={**(metadata or {}), "component": name}, **kwargs)


MAX_SEQ = 2**31 - 1
"""The largest seq, and so version, a game's log can hold."""
SEQ_PATTERN = "^[0-9]{1,10}$"
IDEMPOTENCY_KEY_PATTERN = "^[!-~](?:[ -~]{0,253}[!-~])?$"
"""1 to 255 visible ASCII characters, spaces allowed between them: what HTTP carries in a header unchanged."""


def elapsed_ms() -> fields.Integer:
    """Every event's data in a competition game's log: the entrant's time (absent from every other game's)."""
    return fields.Integer(
        metadata={
            "description": "In a competition entrant's game only: the milliseconds since the entrant's clock started, "
            "by the server's clock (never decreasing, never above the limit; the clock stops when the game ends)."
        }
    )


def _given(*names: str, value: object = None) -> dict[str, Any]:
    """JSON Schema of an object in which every one of `names` is given (with `value`, when not None)."""
    return {"required": list(names), "properties": {name: {} if value is None else {"enum": [value]} for name in names}}


class RulesInputSchema(ma.Schema):
    """Custom rules: a parameter left out takes its `osmosis` value, named in its description. (No `default`
    keyword: TypeScript generators make a property with a default required.)"""

    # Without reserve piles there is nothing to lay face down: reserve_face_down is then given, and 0.
    JSON_SCHEMA: ClassVar[dict[str, Any]] = {
        "not": {**_given("reserve_piles", value=0), "not": _given("reserve_face_down", value=0)}
    }

    reserve_piles = fields.Integer(strict=True, validate=validate.OneOf([4, 0]), metadata={"description": "Default 4."})
    reserve_face_down = fields.Integer(
        strict=True, validate=validate.OneOf([3, 0]), metadata={"description": "Default 3."}
    )
    draw = fields.Integer(strict=True, validate=validate.OneOf([3, 1]), metadata={"description": "Default 3."})
    max_passes = fields.Integer(
        strict=True,
        allow_none=True,
        validate=validate.Range(min=1),
        metadata={"description": "Passes through the stock allowed; null for unlimited. Default null."},
    )
    waste_access = fields.String(
        validate=validate.OneOf([m.value for m in WasteAccess]), metadata={"description": "Default top."}
    )
    start_rule = fields.String(
        validate=validate.OneOf([m.value for m in StartRule]), metadata={"description": "Default base_rank."}
    )
    free_cells = fields.Integer(strict=True, validate=validate.OneOf([0, 1]), metadata={"description": "Default 0."})


class RulesSchema(ma.Schema):
    """The rule parameters of a game or a preset, every one of them (docs/rules.md)."""

    reserve_piles = fields.Integer(required=True, validate=validate.OneOf([4, 0]))
    reserve_face_down = fields.Integer(required=True, validate=validate.OneOf([3, 0]))
    draw = fields.Integer(
        required=True,
        validate=validate.OneOf([3, 1]),
        metadata={"description": "Cards dealt from the stock to the waste at a time."},
    )
    max_passes = fields.Integer(
        required=True,
        allow_none=True,
        validate=validate.Range(min=1),
        metadata={"description": "Passes through the stock allowed; null: unlimited."},
    )
    waste_access = fields.String(required=True, validate=validate.OneOf([m.value for m in WasteAccess]))
    start_rule = fields.String(required=True, validate=validate.OneOf([m.value for m in StartRule]))
    free_cells = fields.Integer(required=True, validate=validate.OneOf([0, 1]))


_NOT_DAILY = ("rules", "deal_number", "sealed_deal_id", "client_seed", "winnable")


class CreateGameSchema(ma.Schema):
    """A preset or custom rules; and a public deal number, or a sealed deal with the client's seed."""

    JSON_SCHEMA: ClassVar[dict[str, Any]] = {
        "allOf": [
            {"not": _given("variant", "rules")},
            {"not": _given("deal_number", "sealed_deal_id")},
            {"not": {**_given("client_seed"), "not": _given("sealed_deal_id")}},
            *(
                {
                    "not": {
                        "required": ["daily", other],
                        "properties": {
                            "daily": {"enum": [True]},
                            other: {"enum": [True]} if other == "winnable" else {},
                        },
                    }
                }
                for other in _NOT_DAILY
            ),
        ]
    }
    """The rules between the fields: a preset or custom rules, not both; a deal number or a sealed deal, not
    both; a client seed only with a sealed deal; the daily deal with nothing else but its variant."""

    # The name is checked by the rules (422 invalid-rules, as the server always answered); stated here for the
    # document, as a pattern: an enum would make generated SDKs take an enum type where they took text. The
    # names are plain words and hyphens, which need no escape in any regular expression dialect.
    variant = fields.String(
        metadata={
            "description": "A preset name (GET /variants). Default: osmosis.",
            "example": "osmosis",
            "pattern": "^(" + "|".join(PRESETS) + ")$",
        }
    )
    rules = fields.Nested(RulesInputSchema, metadata={"description": "Custom rules instead of a preset."})
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
        metadata={
            "description": "Your own seed for a sealed deal: the server committed to its seed before "
            "seeing it. Any text up to 256 characters.",
            "example": "my lucky seed",
        },
    )

    daily = StrictBoolean(
        metadata={
            "description": "Play today's daily deal of the preset (`variant`, default osmosis): the same for every "
            "player, one attempt a day, private to you until the day closes at midnight UTC (GET /daily). "
            "Needs your API token (`Authorization: Bearer osm_…`). Default false."
        }
    )
    winnable = StrictBoolean(
        metadata={
            "description": "Deal only a deal the solver proves winnable: the first of a fixed sequence of candidates "
            "from the same seeds (so the deal stays provably fair, and any verifier re-derives it). Works "
            "with a deal number, a sealed deal or a fresh seed. Default false."
        }
    )

    @ma.validates_schema
    def _one_way_to_deal(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "variant" in data and "rules" in data:
            raise ma.ValidationError("give a preset name or custom rules, not both", "rules")
        if "sealed_deal_id" in data and "deal_number" in data:
            raise ma.ValidationError("a game is dealt from a deal number or a sealed deal, not both", "deal_number")
        if data.get("daily"):
            given = sorted(name for name in _NOT_DAILY if name in data and (name != "winnable" or data[name]))
            if given:
                raise ma.ValidationError(
                    f"the daily deal is today's deal of a preset, for everyone: it takes no {', '.join(given)}",
                    given[0],
                )
        if "client_seed" in data and "sealed_deal_id" not in data:
            raise ma.ValidationError(
                "a client_seed goes with a sealed_deal_id (POST /deals first), so that the server's seed is fixed "
                "before it sees yours",
                "client_seed",
            )


class ReserveSchema(ma.Schema):
    face_down = fields.Integer(required=True, metadata={"description": "How many cards lie face down."})
    face_up = cards("Face-up cards, bottom to top.")


class FoundationSchema(ma.Schema):
    suit = fields.String(
        required=True,
        allow_none=True,
        validate=_WholeText("^[CDHS]$", error="not a suit: C, D, H or S"),
        metadata={"description": "The suit it takes (C, D, H or S); null until started."},
    )
    cards = cards("In the order played.")


class PublicStateSchema(ma.Schema):
    reserves = fields.List(fields.Nested(ReserveSchema), required=True, metadata={"description": "R1..R4."})
    foundations = fields.List(fields.Nested(FoundationSchema), required=True, metadata={"description": "F1..F4."})
    base_rank = one_of("Rank", tuple(RANK_CODES), required=True)
    stock_count = fields.Integer(required=True)
    waste = cards("Bottom to top.")
    live_waste = fields.Integer(
        required=True, metadata={"description": "Cards of the latest deal still on the waste (group access)."}
    )
    cell = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The Card in the free cell; null when empty or with no cell."},
    )
    pass_number = fields.Integer(required=True)
    passes_left = fields.Integer(required=True, allow_none=True, metadata={"description": "null: unlimited."})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    end_reason = fields.String(required=True, allow_none=True)


class WinnableRecordSchema(ma.Schema):
    candidate = fields.Integer(
        required=True,
        metadata={
            "description": "The index of the deal dealt among the seeds' candidates; every earlier one was not proven "
            "winnable within the budget."
        },
    )
    solver = fields.String(required=True, metadata={"example": "osmosis-solver/2"})
    budget = fields.Integer(required=True, metadata={"description": "Positions searched per candidate at most."})


class DealInfoSchema(ma.Schema):
    kind = fields.String(
        required=True,
        validate=validate.OneOf(["number", "random", "sealed", "daily", "competition"]),
        metadata={
            "description": "number: a public deal number; random: a secret server seed; sealed: a sealed "
            "deal and the client's seed; daily: the daily deal of `day` (GET /daily/{day}); competition: the deal "
            "of `competition_id`, every entrant's (GET /competitions/{id})."
        },
    )
    deal_number = fields.Integer()
    day = fields.String(metadata={"format": "date", "description": "A daily deal's UTC day."})
    competition_id = fields.String(metadata={"format": "uuid", "description": "A competition's deal's competition."})
    sealed_deal_id = fields.String()
    server_seed = fields.String(metadata={"description": "Revealed when the game is over."})
    client_seed = fields.String(metadata={"description": "Revealed when the game is over."})
    winnable = fields.Nested(
        WinnableRecordSchema,
        metadata={
            "description": "Present when the game asked for a winnable deal: which candidate of the seeds was dealt, "
            'and by which solver and budget it was chosen (docs/rules.md, "Winnable deals").'
        },
    )


class EntrantClockSchema(ma.Schema):
    id = fields.UUID(required=True, metadata={"description": "The competition (GET /competitions/{id})."})
    started_at = fields.String(
        required=True,
        metadata={"format": "date-time", "description": "When the entrant's clock started: a race's start for all."},
    )
    limit_ms = fields.Integer(required=True, metadata={"description": "How long the clock runs, in milliseconds."})
    deadline = fields.String(
        required=True,
        metadata={"format": "date-time", "description": "When the clock runs out: the game takes nothing after."},
    )


class GameSchema(ma.Schema):
    class Meta:
        unknown = ma.EXCLUDE  # open, so that CreatedGame can be this and the token

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
    legal_actions = fields.List(
        component("LegalAction"),
        required=True,
        metadata={
            "description": "Every move, deal and redeal the rules allow now; empty once the game is over. Resigning is "
            "always allowed while the game is on and is not listed."
        },
    )
    hints = fields.Integer(
        required=True,
        metadata={"description": "Hints the player asked for (askForHint); each is a hint_given event of the log."},
    )
    player = fields.Nested(
        PlayerRefSchema,
        metadata={
            "description": "The player whose game it is: present only for a game created with a player's API token."
        },
    )
    undos = fields.Integer(
        required=True,
        metadata={
            "description": "Actions the player took back (the action `undo`); each is an action_undone event of the "
            "log. A game with any ranks on no board."
        },
    )
    can_undo = fields.Boolean(
        required=True,
        metadata={
            "description": "Whether the action `undo` would take an action back now: the game is on, it is not a "
            "daily deal, an action is left that was not taken back, and the game has had fewer than 1,000 undos."
        },
    )
    competition = fields.Nested(
        EntrantClockSchema,
        metadata={
            "description": "A competition entrant's game: the competition and the entrant's clock. Present only on "
            "such a game; every event of its log carries `elapsed_ms`, the entrant's time."
        },
    )


def next_page_url(null_when: str) -> fields.String:
    """A list's `next`: the next page's URL, which the Link header gives too."""
    return fields.String(
        required=True,
        allow_none=True,
        metadata={"description": f"The next page's URL (the Link header's); null {null_when}."},
    )


class GameListSchema(ma.Schema):
    games = fields.List(fields.Nested(GameSchema), required=True)
    next = next_page_url("on the last page")
    next_cursor = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The `cursor` of the next page; null on the last page."},
    )


# Query strings are text, so their integers cannot be strict; int("2.5") is refused all the same.
class GameListQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    limit = fields.Integer(validate=validate.Range(min=1, max=100), load_default=20)
    cursor = fields.String(metadata={"description": "The previous page's `next_cursor`."})
    status = fields.String(validate=validate.OneOf(STATUSES), metadata={"description": "Only games in this status."})
    variant = fields.String(
        validate=validate.OneOf(list(PRESETS)), metadata={"description": "Only games of this preset."}
    )
    acted_within = fields.Integer(
        validate=validate.Range(min=1, max=86_400),
        metadata={
            "description": "Only games acted on (an action, a hint, an undo) within this many seconds, a table only "
            "dealt never: with `status=playing`, the games being played now."
        },
    )
