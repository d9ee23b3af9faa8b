"""A competition's standings by its ranking rule, `osmosis-race-1`, and their root: the digest of the ranked rows that
its close and every amendment put in the public log, which anyone recomputes from the log and the games' exports.

The rule: won first, then more cards home, then less elapsed time, then fewer actions, then the earlier
competition_game_finished entry in the public log. An entrant with no game (a race's entrant who never fetched it, a
window's who never started) has timed out with nothing home, after every finished game, by name. A struck row (an
amendment disqualified its player) has no rank and comes last, by name; its reason stands in the row.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from .events import canonical_json

FINISHED = ("won", "lost", "resigned", "timed_out")


@dataclass(frozen=True, slots=True)
class Standing:
    """An entrant as the standings count them: their game's status (`playing` before it ends, `entered` before it
    starts), cards home, actions and time, and where their finish entry stands in the public log."""

    name: str
    kind: str
    status: str
    score: int = 0
    actions: int = 0
    elapsed_ms: int = 0
    game_id: UUID | None = None
    finish_index: int | None = None
    """The leaf index of the game's competition_game_finished entry; None before it is in the log."""
    struck: str | None = None
    """The reason an amendment disqualified the entrant; None while they stand."""


def _key(row: Standing) -> tuple[Any, ...]:
    if row.game_id is None:
        return (2, row.name)
    return (
        row.status != "won",
        -row.score,
        row.elapsed_ms,
        row.actions,
        row.finish_index if row.finish_index is not None else float("inf"),
        row.name,
    )


def ranked(rows: list[Standing]) -> list[dict[str, Any]]:
    """The rows in rank order, each as its canonical form: rank (null when struck), player, status, score,
    elapsed_ms, actions, game_id (null with no game) and struck (its reason, or null)."""
    standing = sorted((row for row in rows if row.struck is None), key=_key)
    struck = sorted((row for row in rows if row.struck is not None), key=lambda row: row.name)
    return [
        {
            "rank": rank,
            "player": {"name": row.name, "kind": row.kind},
            "status": row.status,
            "score": row.score,
            "elapsed_ms": row.elapsed_ms,
            "actions": row.actions,
            "game_id": None if row.game_id is None else str(row.game_id),
            "struck": row.struck,
        }
        for rank, row in [*enumerate(standing, start=1), *((None, row) for row in struck)]
    ]


def standings_root(rows: list[dict[str, Any]]) -> str:
    """hex(SHA-256(canonical JSON of the ranked rows, as one array)): canonical as every log entry is (keys
    sorted, no white space, UTF-8 without escapes; docs/transparency.md)."""
    return hashlib.sha256(canonical_json(rows)).hexdigest()
