"""A competition as the API shows it, and its results' rows with the links to each game."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...game.competitions import CompetitionRecord
from ...log.competition_entries import ELIGIBILITY, RANKING


def competition_view(record: CompetitionRecord, now: datetime) -> dict[str, Any]:
    terms = record.terms
    return {
        "id": str(record.id),
        "name": terms.name,
        "organizer": record.organizer.named(),
        "format": terms.format,
        "variant": terms.rules.preset_name,
        "rules": dict(sorted(terms.rules.to_dict().items())),
        "entrants": terms.entrants,
        "eligibility": ELIGIBILITY,
        "starts_at": terms.starts_at.isoformat(),
        "ends_at": terms.ends_at.isoformat(),
        "entries_close_at": terms.last_start.isoformat(),
        "limit_s": terms.limit_ms // 1000,
        "winnable": terms.winnable,
        "max_entrants": terms.max_entrants,
        "hints": terms.hints,
        "review_s": terms.review_s,
        "ranking": RANKING,
        "commitment": record.commitment,
        "announced_at": record.announced_at.isoformat(),
        "status": record.status(now),
        "entered": record.entrants,
        "closed_at": None if record.closed_at is None else record.closed_at.isoformat(),
        "standings_root": record.standings_root,
    }


PROGRESS = ("rank", "player", "status", "score", "elapsed_ms", "actions")
"""What the standings show of each row: progress, never the game (its id would open nothing before the close, and
tells nothing the row does not)."""


def progress_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: row[key] for key in PROGRESS} for row in rows]


def result_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ranked rows with where to replay and verify each game (none for an entrant who never started)."""
    return [
        {
            **row,
            "links": None
            if row["game_id"] is None
            else {
                "game": f"/games/{row['game_id']}",
                "replay": f"/games/{row['game_id']}/replay",
                "verification": f"/games/{row['game_id']}/verification",
            },
        }
        for row in rows
    ]
