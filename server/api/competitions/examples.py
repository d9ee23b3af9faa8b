"""The examples of the competitions' operations, made by the functions that make the real responses: a ten-minute race
of `osmosis`, its seed made up for the example."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any
from uuid import UUID

from ...game.competitions import CompetitionRecord, Terms, clock_for
from ...game.deciding import Dealt, created
from ...game.records import Owner
from ...log.deal_record import game_opening
from ...log.standings import Standing, ranked, standings_root
from ...rules import commitment, preset
from ...service.competitions.views import competition_view, progress_rows, result_rows
from ...service.players.tokens import token_hash_of
from ..examples import CREATED_AT, GAME_ID, PLAYER_TOKEN

COMPETITION_ID = UUID("3f6c1b2a-9d8e-4f70-a6b5-c4d3e2f1a0b9")
SEED = bytes(range(32, 64))
ORGANIZER = Owner(UUID("7e1d2c3b-4a59-4687-9f0e-1d2c3b4a5968"), "sunday-club", "human")
ALICE = Owner(UUID("a11ce000-0000-4000-8000-000000000001"), "alice", "human")
STARTS_AT = CREATED_AT + timedelta(minutes=30)
TERMS = Terms("Sunday race", "race", preset("osmosis"), "human", STARTS_AT, STARTS_AT + timedelta(minutes=10), 600_000)
DEAL = {"kind": "competition", "competition_id": str(COMPETITION_ID)}


def _record(entered: int = 0, closed: bool = False, root: str | None = None) -> CompetitionRecord:
    closed_at = TERMS.ends_at + timedelta(seconds=1) if closed else None
    return CompetitionRecord(
        COMPETITION_ID, ORGANIZER, TERMS, commitment(SEED), DEAL, CREATED_AT, entered, closed_at, root
    )


def competition(entered: int = 0) -> dict[str, Any]:
    return competition_view(_record(entered), CREATED_AT)


def competition_list() -> dict[str, Any]:
    return {"competitions": [competition(3)], "next": None, "next_cursor": None}


def entrant_game() -> dict[str, Any]:
    """Alice's game, fetched five seconds after the start."""
    now = STARTS_AT + timedelta(seconds=5)
    clock = clock_for(TERMS, COMPETITION_ID, now)
    dealt = Dealt(SEED, "", DEAL, game_opening(TERMS.rules, SEED, "", DEAL), clock=clock)
    change = created(TERMS.rules, dealt, ALICE, GAME_ID, (PLAYER_TOKEN, token_hash_of(PLAYER_TOKEN)), now)
    return json.loads(change.reply.text)  # type: ignore[no-any-return]


def _rows(struck: str | None = None) -> list[Standing]:
    return [
        Standing("alice", "human", "won", 52, 131, 412_338, GAME_ID, 1041),
        Standing("bob", "human", "timed_out", 37, 164, 600_000, UUID(int=2), 1052),
        Standing("mallory", "human", "won", 52, 129, 398_020, UUID(int=3), 1039, struck),
    ]


def standings() -> dict[str, Any]:
    """The race three minutes in."""
    now = STARTS_AT + timedelta(minutes=3)
    rows = [
        Standing("alice", "human", "playing", 18, 47, 180_000, GAME_ID),
        Standing("bob", "human", "playing", 21, 52, 180_000, UUID(int=2)),
        Standing("carol", "human", "entered"),
    ]
    return {"competition": competition_view(_record(3), now), "standings": progress_rows(ranked(rows))}


def stream_message() -> dict[str, Any]:
    """A message of a competition's stream, as an SSE parser reads it: an entrant's progress."""
    return {"event": "progress", "data": json.dumps({**standings()["standings"][0], "score": 19, "actions": 48})}


def results(struck: str | None = None) -> dict[str, Any]:
    rows = ranked(_rows(struck))
    root = standings_root(rows)
    record = _record(3, closed=True, root=root)
    return {
        "competition": competition_view(record, record.closed_at or CREATED_AT),
        "final": False,
        "standings_root": root,
        "results": result_rows(rows),
    }
