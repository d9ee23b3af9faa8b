"""The public log's entries about a competition, each about the competition (its id is their subject) and each with
the server's time (`at`): its announcement before any entry, every entrant's entry and withdrawal, each game's start
and finish, the close (its seed and standings root) and every amendment of its results. Anyone recomputes the field,
the clocks and the standings from these and the games' exports alone (`osmosis audit --competition`,
docs/transparency.md)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from uuid import UUID

from ..rules import RulesError, commitment
from .events import canonical_json

COMPETITION_ANNOUNCED = "competition_announced"
COMPETITION_ENTERED = "competition_entered"
COMPETITION_WITHDRAWN = "competition_withdrawn"
COMPETITION_GAME_STARTED = "competition_game_started"
COMPETITION_GAME_FINISHED = "competition_game_finished"
COMPETITION_CLOSED = "competition_closed"
COMPETITION_RESULT_AMENDED = "competition_result_amended"

RANKING = "osmosis-race-1"
"""Won first, then more cards home, then less elapsed time, then fewer actions, then the earlier finish entry."""
ELIGIBILITY = "players-joined-before"
"""Only players whose player_joined entry comes before the announcement may enter."""

_COMMON = {"kind", "competition_id", "at"}
FIELDS = {
    COMPETITION_ANNOUNCED: _COMMON
    | {
        "name",
        "organizer",
        "format",
        "variant",
        "rules",
        "entrants",
        "eligibility",
        "starts_at",
        "ends_at",
        "limit_ms",
        "hints",
        "winnable",
        "max_entrants",
        "review_s",
        "ranking",
        "commitment",
    },
    COMPETITION_ENTERED: _COMMON | {"player"},
    COMPETITION_WITHDRAWN: _COMMON | {"player"},
    COMPETITION_GAME_STARTED: _COMMON | {"player", "game_id", "started_at"},
    COMPETITION_GAME_FINISHED: _COMMON
    | {"player", "game_id", "status", "score", "actions", "elapsed_ms", "events", "head_hash"},
    COMPETITION_CLOSED: _COMMON | {"server_seed", "standings_root", "entrants"},
    COMPETITION_RESULT_AMENDED: _COMMON | {"player", "action", "reason", "standings_root"},
}
KINDS = tuple(FIELDS)


def _entry(kind: str, competition_id: UUID, at: datetime, **fields: Any) -> bytes:
    return canonical_json({"kind": kind, "competition_id": str(competition_id), "at": at.isoformat(), **fields})


def announced(competition_id: UUID, at: datetime, terms: Mapping[str, Any]) -> bytes:
    """`terms`: everything the competition is held to (FIELDS[COMPETITION_ANNOUNCED] less kind, id and time)."""
    return _entry(COMPETITION_ANNOUNCED, competition_id, at, **terms)


def entered(competition_id: UUID, at: datetime, player: Mapping[str, str]) -> bytes:
    return _entry(COMPETITION_ENTERED, competition_id, at, player=dict(player))


def withdrawn(competition_id: UUID, at: datetime, player: Mapping[str, str]) -> bytes:
    return _entry(COMPETITION_WITHDRAWN, competition_id, at, player=dict(player))


def game_started(
    competition_id: UUID, at: datetime, player: Mapping[str, str], game_id: UUID, started_at: datetime
) -> bytes:
    return _entry(
        COMPETITION_GAME_STARTED,
        competition_id,
        at,
        player=dict(player),
        game_id=str(game_id),
        started_at=started_at.isoformat(),
    )


def game_finished(competition_id: UUID, at: datetime, player: Mapping[str, str], finish: Mapping[str, Any]) -> bytes:
    """`finish`: game_id, status, score, actions, elapsed_ms, events and head_hash of the game as it ended."""
    return _entry(COMPETITION_GAME_FINISHED, competition_id, at, player=dict(player), **finish)


def closed(competition_id: UUID, at: datetime, server_seed: bytes, standings_root: str, entrants: int) -> bytes:
    return _entry(
        COMPETITION_CLOSED,
        competition_id,
        at,
        server_seed=server_seed.hex(),
        standings_root=standings_root,
        entrants=entrants,
    )


def seed_matches(closed_entry: Mapping[str, Any], announced_commitment: str) -> bool:
    """Whether the seed a competition_closed entry reveals is the one its announcement committed to."""
    try:
        return commitment(bytes.fromhex(closed_entry["server_seed"])) == announced_commitment
    except (ValueError, TypeError, RulesError):
        return False


def result_amended(
    competition_id: UUID, at: datetime, player: Mapping[str, str], action: str, reason: str, standings_root: str
) -> bytes:
    return _entry(
        COMPETITION_RESULT_AMENDED,
        competition_id,
        at,
        player=dict(player),
        action=action,
        reason=reason,
        standings_root=standings_root,
    )
