"""A daily game's day: its game is its player's alone until the day closes, at midnight UTC (service/daily.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime


def day_of(moment: datetime) -> date:
    """The UTC day a moment falls in."""
    return moment.astimezone(UTC).date()


def still_private(day: date | None, now: datetime) -> bool:
    """Whether a game of this daily day (None: not a daily game) is still its player's alone: its day has not
    closed."""
    return day is not None and day >= day_of(now)
