"""The examples of players' operations: made by the functions that make the real responses, from a player
and tokens made up (tests/api/test_players.py compares them with real responses, ids and clocks aside)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, time, timedelta
from typing import Any
from uuid import UUID

from ..log.public_entries import daily_deal_id
from ..rules import PRESETS, commitment
from ..service.documents import api_token_view, daily_view, player_view
from ..service.players.accounts import PlayerMade, TokenMade
from ..service.players.daily import closes_at
from ..service.players.stats import wilson_interval
from ..service.records import ApiTokenRecord, DailyDeal, PlayerRecord
from .examples import CREATED_AT, GAME_ID
from .replies import api_token_created, player_created

PLAYER = PlayerRecord(UUID("5a1c3e0f-2b7d-4f19-9c8e-6d4b2a0f7e31"), "alice", "human", CREATED_AT)
API_TOKEN = "osm_4Qe0bN8xZr2LkT7wVy9Hc3Jm5Pd1Sf0Xp6Yg"
_FIRST = ApiTokenRecord(UUID("9d8e7f60-1a2b-4c3d-8e9f-0a1b2c3d4e5f"), PLAYER.id, "", ("play", "account"),
                        "first token", CREATED_AT)
_BOT = ApiTokenRecord(UUID("3f2e1d0c-9b8a-4765-a432-10fedcba9876"), PLAYER.id, "", ("play",), "my bot",
                      CREATED_AT + timedelta(minutes=5))


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
        deals.append(DailyDeal(day, variant, daily_deal_id(day.isoformat(), variant), seed, commitment(seed),
                               datetime.combine(day, time(), UTC)))
    return daily_view(day, closes_at(day), closed, deals, {} if closed else {"peek": GAME_ID})


def profile() -> dict[str, Any]:
    """A player's page, their statistics made up for the example as the service shows them."""
    low, high = wilson_interval(9, 41)
    return {**player(), "stats": [{
        "variant": "osmosis", "games": 41, "wins": 9, "win_rate": 9 / 41,
        "win_rate_interval": {"low": round(low, 6), "high": round(high, 6)},
        "daily_streak": {"current": 3, "longest": 12},
        "best_win": {"game_id": str(GAME_ID), "actions": 87},
    }]}


def daily_board() -> dict[str, Any]:
    """Yesterday's board of the osmosis daily deal, its rows made up for the example."""
    day = CREATED_AT.date() - timedelta(days=1)
    game = str(GAME_ID)
    return {"day": day.isoformat(), "variant": "osmosis", "kind": "human", "rows": [
        {"rank": 1, "player": {"name": "alice", "kind": "human"}, "game_id": game, "won": True, "score": 52,
         "hints": 0, "actions": 91, "seconds": 412.5, "replay": f"/games/{game}/replay",
         "transparency": f"/games/{game}/transparency"}], "next_cursor": None}


def board() -> dict[str, Any]:
    low, high = wilson_interval(9, 41)
    return {"variant": "osmosis", "kind": "human", "min_games": 20, "rows": [
        {"rank": 1, "player": {"name": "alice", "kind": "human"}, "games": 41, "wins": 9, "win_rate": 9 / 41,
         "win_rate_interval": {"low": round(low, 6), "high": round(high, 6)},
         "games_url": "/players/alice/games?variant=osmosis"}], "next_cursor": None}
