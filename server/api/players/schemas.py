"""The bodies of players and their API tokens."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ...log.shapes import PLAYER_KINDS, PLAYER_NAME_PATTERN
from ...rules import PRESETS
from ...service.players.accounts import MAX_LABEL_LENGTH
from ...service.players.names import WRITTEN_PATTERN
from ...service.players.tokens import SCOPES, TOKEN_PATTERN

_SCOPES_DESCRIPTION = (
    "`play`: create games as this player, act on them, read your daily games before the day "
    "closes, enter competitions and play them; `account`: list, create and revoke your API tokens; `organize`: "
    "announce competitions and amend their results."
)


class PlayerSchema(ma.Schema):
    name = fields.String(required=True, metadata={"pattern": f"^{PLAYER_NAME_PATTERN}$", "example": "alice"})
    kind = fields.String(
        required=True,
        validate=validate.OneOf(PLAYER_KINDS),
        metadata={"description": "human or bot: the boards keep them apart."},
    )
    created_at = fields.String(required=True, metadata={"format": "date-time"})


class PlayerRefSchema(ma.Schema):
    """The player a game belongs to."""

    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(PLAYER_KINDS))


class ApiTokenSchema(ma.Schema):
    """One of your API tokens, as the server keeps it: everything but the token, which is shown only once."""

    id = fields.UUID(required=True)
    label = fields.String(required=True)
    scopes = fields.List(
        fields.String(validate=validate.OneOf(SCOPES)), required=True, metadata={"description": _SCOPES_DESCRIPTION}
    )
    created_at = fields.String(required=True, metadata={"format": "date-time"})
    last_used_at = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "format": "date-time",
            "description": "When a request last presented it (to the minute); null if never.",
        },
    )


_TOKEN = fields.String(
    required=True,
    metadata={
        "pattern": TOKEN_PATTERN,
        "description": "The API token itself, shown this once: the server keeps only its hash. "
        "Send it as `Authorization: Bearer osm_…`.",
    },
)


class CreatePlayerSchema(ma.Schema):
    name = fields.String(
        required=True,
        validate=validate.Regexp(WRITTEN_PATTERN, error="not a name: see the pattern"),
        metadata={
            "pattern": WRITTEN_PATTERN,
            "description": (
                "3 to 24 ASCII letters, digits, `_` and `-`, beginning with a letter (or their full-width "
                "forms, stored as ASCII: Unicode NFKC). Unique without regard to case or look-alike "
                "characters (`0`/`o`, `1`/`i`/`l`, `_`/`-`): 409 `name-taken`; reserved words are as "
                "taken, 409 `name-reserved` (docs/players.md)."
            ),
        },
    )
    kind = fields.String(
        load_default="human",
        validate=validate.OneOf(PLAYER_KINDS),
        metadata={"description": "human (the default) or bot."},
    )


class PlayerCreatedSchema(ma.Schema):
    player = fields.Nested(PlayerSchema, required=True)
    api_token = fields.Nested(ApiTokenSchema, required=True, metadata={"description": "The first token: every scope."})
    token = _TOKEN


class CreateApiTokenSchema(ma.Schema):
    label = fields.String(
        required=True,
        validate=validate.Length(min=1, max=MAX_LABEL_LENGTH),
        metadata={"description": "What the token is for, for your list: `laptop`, `my bot`."},
    )
    scopes = fields.List(
        fields.String(validate=validate.OneOf(SCOPES)),
        load_default=["play"],
        validate=validate.Length(min=1, max=len(SCOPES)),
        metadata={"description": _SCOPES_DESCRIPTION + " Default: play only."},
    )


class ApiTokenCreatedSchema(ma.Schema):
    api_token = fields.Nested(ApiTokenSchema, required=True)
    token = _TOKEN


class ApiTokenListSchema(ma.Schema):
    tokens = fields.List(
        fields.Nested(ApiTokenSchema),
        required=True,
        metadata={"description": "Your live tokens, oldest first (a revoked token is gone from the list)."},
    )


class DailyDealSchema(ma.Schema):
    variant = fields.String(required=True, metadata={"description": "The preset (listVariants)."})
    daily_deal_id = fields.UUID(
        required=True, metadata={"description": "What the public log's daily_deal_opened entry names it by."}
    )
    commitment = fields.String(
        required=True, metadata={"description": "hex SHA-256 of the seed: every daily game of this deal names it."}
    )
    server_seed = fields.String(
        required=True, allow_none=True, metadata={"description": "The seed, hex, once the day has closed; null before."}
    )
    your_game = fields.UUID(
        required=True,
        allow_none=True,
        metadata={
            "description": "Your game of this deal, when the request carries your API token and you have begun it."
        },
    )


class DailySchema(ma.Schema):
    day = fields.String(required=True, metadata={"format": "date", "description": "The UTC day."})
    closes_at = fields.String(
        required=True, metadata={"format": "date-time", "description": "Midnight UTC after the day."}
    )
    closed = fields.Boolean(
        required=True,
        metadata={"description": "Whether the day has closed: its games are ended and their seeds revealed."},
    )
    deals = fields.List(
        fields.Nested(DailyDealSchema),
        required=True,
        metadata={"description": "One per preset, in the order of listVariants."},
    )


class WinRateIntervalSchema(ma.Schema):
    low = fields.Float(required=True)
    high = fields.Float(required=True)


class StreakSchema(ma.Schema):
    current = fields.Integer(
        required=True,
        metadata={
            "description": "Consecutive days up to yesterday (or today) with this preset's daily game played to "
            "its end."
        },
    )
    longest = fields.Integer(required=True)


class BestWinSchema(ma.Schema):
    game_id = fields.UUID(required=True)
    actions = fields.Integer(required=True, metadata={"description": "Moves, deals and redeals."})


class RankedSchema(ma.Schema):
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)


class PresetStatsSchema(ma.Schema):
    variant = fields.String(required=True)
    games = fields.Integer(required=True, metadata={"description": "Games played to their end (and revealed)."})
    wins = fields.Integer(required=True)
    win_rate = fields.Float(required=True)
    win_rate_interval = fields.Nested(
        WinRateIntervalSchema, required=True, metadata={"description": "The win rate's 95% Wilson score interval."}
    )
    daily_streak = fields.Nested(StreakSchema, required=True)
    best_win = fields.Nested(
        BestWinSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The won game of fewest actions with no hint and no undo; null if none."},
    )
    ranked = fields.Nested(
        RankedSchema,
        required=True,
        metadata={
            "description": "The games and wins the all-time boards count: those of deals nobody could look up (random, "
            "sealed and daily deals; not public deal numbers, whose solutions anyone can find), played without an "
            "undo."
        },
    )
    abandoned = fields.Integer(
        required=True,
        metadata={
            "description": "Games left without an action for 72 hours, which the server ended as resigned: counted "
            "among the games, as losses."
        },
    )
    undone = fields.Integer(
        required=True,
        metadata={
            "description": "Games in which the player took an action back (an undo): counted among the games and "
            "wins, never among the ranked ones nor as the best win."
        },
    )


class PlayerProfileSchema(PlayerSchema):
    stats = fields.List(
        fields.Nested(PresetStatsSchema),
        required=True,
        metadata={
            "description": "One per preset the player has finished a game of, by name. Counted from the games: a game "
            "counts once its seeds are revealed (a daily game when its day closes)."
        },
    )


class BoardQuerySchema(ma.Schema):
    kind = fields.String(
        load_default="human",
        validate=validate.OneOf(PLAYER_KINDS),
        metadata={"description": "human (the default) or bot: each has its own board."},
    )
    limit = fields.Integer(validate=validate.Range(min=1, max=100), load_default=20)
    cursor = fields.String(
        validate=validate.Length(max=400), metadata={"description": "The previous page's `next_cursor`."}
    )


class DailyBoardQuerySchema(BoardQuerySchema):
    variant = fields.String(
        load_default="osmosis",
        validate=validate.OneOf(list(PRESETS)),
        metadata={"description": "The preset whose daily deal it is. Default: osmosis."},
    )


class BoardPlayerSchema(ma.Schema):
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(PLAYER_KINDS))


class DailyBoardRowSchema(ma.Schema):
    rank = fields.Integer(required=True)
    player = fields.Nested(BoardPlayerSchema, required=True)
    game_id = fields.UUID(required=True)
    won = fields.Boolean(required=True)
    score = fields.Integer(required=True, metadata={"description": "Cards home."})
    hints = fields.Integer(required=True)
    actions = fields.Integer(required=True, metadata={"description": "Moves, deals and redeals."})
    seconds = fields.Float(required=True, metadata={"description": "From the first action to the last."})
    replay = fields.String(required=True, metadata={"description": "The game's export (getGameReplay)."})
    transparency = fields.String(
        required=True,
        metadata={"description": "The game's entries in the public log, with proofs (getGameTransparency)."},
    )


class DailyBoardSchema(ma.Schema):
    day = fields.String(required=True, metadata={"format": "date"})
    variant = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(PLAYER_KINDS))
    rows = fields.List(
        fields.Nested(DailyBoardRowSchema),
        required=True,
        metadata={"description": "Won first, then cards home, fewest hints, fewest actions, least time, then game id."},
    )
    next_cursor = fields.String(required=True, allow_none=True)


class BoardRowSchema(ma.Schema):
    rank = fields.Integer(required=True, metadata={"description": "Counted by the server, whatever the cursor."})
    player = fields.Nested(BoardPlayerSchema, required=True)
    games = fields.Integer(
        required=True,
        metadata={
            "description": "Games of deals nobody could look up (random, sealed, daily; not public deal numbers)."
        },
    )
    wins = fields.Integer(required=True)
    win_rate = fields.Float(required=True)
    win_rate_interval = fields.Nested(WinRateIntervalSchema, required=True)
    games_url = fields.String(required=True, metadata={"description": "The player's games of the preset."})


class BoardSchema(ma.Schema):
    variant = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(PLAYER_KINDS))
    min_games = fields.Integer(
        required=True, metadata={"description": "Games a player needs to be ranked (of deals nobody could look up)."}
    )
    rows = fields.List(
        fields.Nested(BoardRowSchema),
        required=True,
        metadata={"description": "By the lower bound of the win rate's 95% interval, then more games, then player."},
    )
    next_cursor = fields.String(required=True, allow_none=True)
