"""The boards: each day's board of each preset's daily deal, and the all-time board of each preset, humans and
bots apart. Every row names its game (or player) so that anyone can recompute a board from the public log and
the games' exports (`osmosis audit --board`, docs/players.md)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any
from uuid import UUID

from ..game.contests import day_closes_at, day_of
from .errors import DayNotClosed, InvalidCursor
from .players.stats import wilson_interval
from .ports import BoardReads
from .records import AllTimeRow, DailyBoardRow

MIN_GAMES = 20
"""Games of a preset a player needs to be on its all-time board: fewer say little about a win rate."""


class Boards:
    def __init__(self, store: BoardReads, clock: Callable[[], datetime]) -> None:
        self._store = store
        self._clock = clock

    def daily(self, day: date, variant: str, kind: str, limit: int, cursor: str | None) -> dict[str, Any]:
        """A closed day's board: won first, then cards home, fewest hints, fewest actions, least time from the
        first action to the last. Raises DayNotClosed before the day closes (the board would show how today's
        deal goes)."""
        today = day_of(self._clock())
        if day >= today:
            when = f"at {day_closes_at(day).isoformat()}" if day == today else "after it has been played"
            raise DayNotClosed(f"the board of {day.isoformat()} is published when the day closes, {when}")
        key = _opened(cursor, (bool, int, int, int, int, UUID))
        rows = self._store.daily_board(day, variant, kind, key, limit + 1)
        rank = 0 if key is None else self._store.daily_board_rank(day, variant, kind, key)
        page = rows[:limit]
        next_cursor = _sealed(page[-1].key) if len(rows) > limit else None
        return daily_board_view(day, variant, kind, rank, page, next_cursor)

    def all_time(self, variant: str, kind: str, limit: int, cursor: str | None) -> dict[str, Any]:
        """The players with at least MIN_GAMES games of the preset, by the lower bound of their win rate's 95%
        interval (so that a high rate over few games does not outrank a slightly lower one over many)."""
        key = _opened(cursor, (float, int, UUID))
        rows = self._store.all_time_board(variant, kind, MIN_GAMES, key, limit + 1)
        rank = 0 if key is None else self._store.all_time_board_rank(variant, kind, MIN_GAMES, key)
        page = rows[:limit]
        next_cursor = _sealed(page[-1].key) if len(rows) > limit else None
        return board_view(variant, kind, rank, page, next_cursor)


def daily_board_view(
    day: date, variant: str, kind: str, rank: int, page: Sequence[DailyBoardRow], next_cursor: str | None
) -> dict[str, Any]:
    """A page of a day's board as the API shows it, its first row ranked `rank` + 1."""
    return {
        "day": day.isoformat(),
        "variant": variant,
        "kind": kind,
        "rows": [
            {
                "rank": rank + n,
                "player": {"name": row.name, "kind": row.kind},
                "game_id": str(row.game_id),
                "won": row.won,
                "score": row.score,
                "hints": row.hints,
                "actions": row.actions,
                "seconds": round(row.seconds, 3),
                **_links(row.game_id),
            }
            for n, row in enumerate(page, start=1)
        ],
        "next_cursor": next_cursor,
    }


def board_view(
    variant: str, kind: str, rank: int, page: Sequence[AllTimeRow], next_cursor: str | None
) -> dict[str, Any]:
    """A page of a preset's all-time board as the API shows it, its first row ranked `rank` + 1."""
    entries = []
    for n, row in enumerate(page, start=1):
        low, high = wilson_interval(row.wins, row.games)
        entries.append(
            {
                "rank": rank + n,
                "player": {"name": row.name, "kind": row.kind},
                "games": row.games,
                "wins": row.wins,
                "win_rate": row.wins / row.games,
                "win_rate_interval": {"low": round(low, 6), "high": round(high, 6)},
                "games_url": f"/players/{row.name}/games?variant={variant}",
            }
        )
    return {"variant": variant, "kind": kind, "min_games": MIN_GAMES, "rows": entries, "next_cursor": next_cursor}


def _links(game_id: UUID) -> dict[str, str]:
    return {"replay": f"/games/{game_id}/replay", "transparency": f"/games/{game_id}/transparency"}


def _sealed(key: tuple[Any, ...]) -> str:
    """A cursor: the key of the row a page ends with. The rank of the next page is counted by the store, never
    read from the cursor (a forged one showed rank 2305843009213693953)."""
    text = json.dumps([str(part) if isinstance(part, UUID) else part for part in key])
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _opened(cursor: str | None, types: tuple[type, ...]) -> tuple[Any, ...] | None:
    """The key of the row the page starts after, each part of its type; InvalidCursor for what this server did not
    give. A cursor of before (the rank, then the key) is read for its key."""
    if cursor is None:
        return None
    try:
        parts = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode())
        if (
            isinstance(parts, list)
            and len(parts) == 2
            and _whole(parts[0])
            and parts[0] >= 0
            and isinstance(parts[1], list)
        ):
            parts = parts[1]
        if not (isinstance(parts, list) and len(parts) == len(types)):
            raise ValueError
        return tuple(_typed(part, kind) for part, kind in zip(parts, types, strict=True))
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError, RecursionError):
        raise InvalidCursor("cursor is not one this server issued: use the page's next_cursor") from None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**62


def _typed(part: Any, kind: type) -> Any:
    if kind is UUID and isinstance(part, str):
        return UUID(part)
    if kind is bool and isinstance(part, bool):
        return part
    if kind is int and _whole(part):
        return part
    if kind is float and (_whole(part) or isinstance(part, float)) and abs(part) <= 2:
        return float(part)
    raise ValueError(part)
