"""Statistics the commands print."""

from __future__ import annotations

import math


def wilson_interval(wins: int, games: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default)."""
    rate = wins / games
    denominator = 1 + z * z / games
    centre = (rate + z * z / (2 * games)) / denominator
    margin = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - margin), min(1.0, centre + margin)
