"""The examples of players' operations, daily deals and boards: made by the functions that make the real
responses (the replies, the views of a player's page and of a board), from records made up
(tests/api/test_players.py compares them with real responses, ids and clocks aside)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, time, timedelta
from typing import Any
from uuid import UUID

from ...game.callers import ApiTokenRecord, PlayerRecord
from ...game.contests import day_closes_at
from ...log.public_entries import daily_deal_id
from ...rules import PRESETS, commitment
from ...service.boards import board_view, daily_board_view
from ...service.games.documents import api_token_view, daily_view, player_view
from ...service.players.accounts import PlayerMade, TokenMade
from ...service.players.profiles import profile_view
from ...service.players.stats import wilson_interval
from ...service.records import AllTimeRow, DailyBoardRow, DailyDeal, PlayerStats
from ..examples import CREATED_AT, GAME_ID
from ..replies import api_token_created, player_created

PLAYER = PlayerRecord(UUID("5a1c3e0f-2b7d-4f19-9c8e-6d4b2a0f7e31"), "alice", "human", CREATED_AT)
API_TOKEN = "osm_4Qe0bN8xZr2LkT7wVy9Hc3Jm5Pd1Sf0Xp6Yg"
_FIRST = ApiTokenRecord(
    UUID("9d8e7f60-1a2b-4c3d-8e9f-0a1b2c3d4e5f"), PLAYER.id, "", ("play", "account"), "first token", CREATED_AT
)
_BOT = ApiTokenRecord(
    UUID("3f2e1d0c-9b8a-4765-a432-10fedcba9876"), PLAYER.id, "", ("play",), "my bot", CREATED_AT + timedelta(minutes=5)
)


def player() -> dict[str, Any]:
    return player_view(PLAYER)


def player_made() -> dict[str, Any]:
    made = PlayerMade(PLAYER, _FIRST, API_TOKEN)
    body: dict[str, Any] = json.loads(player_created(made).text)
    return {**body, "token": API_TOKEN}


def api_token_made() -> dict[str, Any]:
    body: dict[str, Any] = json.loads(api_token_created(TokenMade(_BOT, API_TOKEN)).text)
    return {**body, "token": API_TOKEN}


def api_token_list() -> dict[str, Any]:
    used = replace(_FIRST, last_used_at=CREATED_AT + timedelta(minutes=3))
    return {"tokens": [api_token_view(used), api_token_view(_BOT)]}


def daily(closed: bool = False) -> dict[str, Any]:
    """Today's deals (or, `closed`, a day's that has closed), their seeds made up for the example."""
    day = CREATED_AT.date() - timedelta(days=1 if closed else 0)
    deals = []
    for number, variant in enumerate(PRESETS):
        seed = bytes([number]) * 32
        deals.append(
            DailyDeal(
                day,
                variant,
                daily_deal_id(day.isoformat(), variant),
                seed,
                commitment(seed),
                datetime.combine(day, time(), UTC),
            )
        )
    return daily_view(day, day_closes_at(day), closed, deals, {} if closed else {"peek": GAME_ID})


def profile() -> dict[str, Any]:
    """A player's page: 9 wins in 41 games of osmosis, a best win, a daily streak of 3 and one of 12."""
    day = CREATED_AT.date()
    streaks = [day - timedelta(days=n) for n in range(1, 4)] + [day - timedelta(days=n) for n in range(20, 32)]
    sums = PlayerStats(
        "osmosis", 41, 9, 87, GAME_ID, tuple(sorted(streaks)), ranked_games=35, ranked_wins=7, abandoned=2, undone=1
    )
    return profile_view(PLAYER, [sums], day)


def daily_board() -> dict[str, Any]:
    """Yesterday's board of the osmosis daily deal: one row, made up."""
    row = DailyBoardRow(GAME_ID, PLAYER.name, PLAYER.kind, True, 52, 0, 91, 412.5)
    return daily_board_view(CREATED_AT.date() - timedelta(days=1), "osmosis", "human", 0, [row], None)


def board() -> dict[str, Any]:
    """The all-time board of osmosis: one row, made up."""
    row = AllTimeRow(PLAYER.id, PLAYER.name, PLAYER.kind, 41, 9, wilson_interval(9, 41)[0])
    return board_view("osmosis", "human", 0, [row], None)
