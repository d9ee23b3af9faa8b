"""Players' statistics: what a finished game counts for, the win rate's interval, the daily streaks.

The counts are a projection of the games: the write that reveals a player's game records its result and adds it
to the player's sums (store, in the same statement), and `osmosis rebuild-stats` rebuilds both from the games' logs
alone (game/results.py). The two must agree, and the tests hold them to it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

"""The events a player's action appends that count as actions: moves, deals and redeals."""
ABANDONED_AFTER = timedelta(hours=72)
"""A player's game (not a daily one, which its day's close ends) with no action for this long is left: the upkeep
ends it as resigned, and it counts as a loss (docs/players.md, "Abandoned games")."""
Z_95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""


def wilson_interval(wins: int, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% by default): sound for few games and for rates near 0 or 1,
    where the normal approximation is not (a player with 1 win in 1 game is not a 100% player). The commands'
    win rates use it too."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    denominator = 1 + z * z / games
    centre = (rate + z * z / (2 * games)) / denominator
    margin = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - margin), min(1.0, centre + margin)


@dataclass(frozen=True, slots=True)
class Streaks:
    current: int
    longest: int


def daily_streaks(days: Iterable[date], today: date) -> Streaks:
    """Runs of consecutive days with a daily game of the preset played to its end. The current run is the one
    that reaches yesterday or today (a day's games are counted when it closes, so yesterday's is the latest
    that can be), else 0."""
    ordered = sorted(set(days))
    longest = run = 0
    previous: date | None = None
    for day in ordered:
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    current = run if previous is not None and previous >= today - timedelta(days=1) else 0
    return Streaks(current, longest)
