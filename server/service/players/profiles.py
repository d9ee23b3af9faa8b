"""A player's page: their statistics per preset, counted from their games; and the statistics made again from
the games' logs (`osmosis rebuild-stats`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date, datetime
from typing import Any, Protocol
from uuid import UUID

from ...game.callers import PlayerRecord
from ...game.contests import day_of
from ...game.records import PlayerResult
from ...game.results import result_from_log
from ..errors import SolverBusy, SolverSaturated
from ..games.documents import player_view
from ..games.verifying import Verifying
from ..ports import GameReads, Players, Statistics, StatisticsReads
from ..records import PlayerStats
from . import names
from .stats import daily_streaks, wilson_interval

REBUILD_PAGE = 500


class ProfileStore(Players, Statistics, GameReads, Protocol):
    """The ports a player's page and the rebuild use."""


class Profiles:
    def __init__(
        self,
        store: ProfileStore,
        verifying: Verifying,
        clock: Callable[[], datetime],
        sums: StatisticsReads | None = None,
    ) -> None:
        """`verifying`: what tells whether a game's result may count (its verification is valid and complete);
        `sums`: where a player's page reads their sums (a read store's, a moment behind; `store`'s by default)."""
        self._store = store
        self._verifying = verifying
        self._clock = clock
        self._sums = store if sums is None else sums

    def profile(self, name: str) -> dict[str, Any]:
        """The player and their statistics per preset; raises PlayerNotFound."""
        player = self._store.load_player(names.looked_up(name))
        stats = self._sums.load_player_stats(player.id)
        today = day_of(self._clock())
        return profile_view(player, stats, today)

    def verify_results(self, batch: int = 20) -> int:
        """Verify results recorded and not verified yet, at most `batch`: each valid one counts from now on.
        How many it verified: the solver's time is shared with the clients', so when none is free the rest
        waits for the next turn."""
        verified = 0
        for game_id in self._store.unverified_results(batch):
            try:
                valid = self._verifying.valid(game_id)
            except (SolverBusy, SolverSaturated):
                break
            self._store.mark_verified(game_id, valid)
            verified += 1
        return verified

    def rebuild(self) -> int:
        """The statistics made again from every revealed game of a player: its result counted from its log, and
        counted only if the game verifies. How many games they count."""
        results: list[PlayerResult] = []
        after = UUID(int=0)
        while page := self._store.revealed_player_games(after, REBUILD_PAGE):
            for game_id in page:
                game = self._store.load_game(game_id)
                result = result_from_log(game, self._store.load_events(game_id, 0, None))
                if result is not None:
                    results.append(replace(result, verified=self._verifying.valid(game_id)))
            after = page[-1]
        self._store.replace_statistics(results)
        return sum(bool(result.verified) for result in results)


def profile_view(player: PlayerRecord, stats: Sequence[PlayerStats], today: date) -> dict[str, Any]:
    """A player's page as the API shows it: the player, and their sums per preset by name."""
    return {**player_view(player), "stats": [_preset_view(sums, today) for sums in sorted(stats, key=_by_variant)]}


def _by_variant(sums: PlayerStats) -> str:
    return sums.variant


def _preset_view(sums: PlayerStats, today: date) -> dict[str, Any]:
    low, high = wilson_interval(sums.wins, sums.games)
    streaks = daily_streaks(sums.daily_days, today)
    return {
        "variant": sums.variant,
        "games": sums.games,
        "wins": sums.wins,
        "win_rate": sums.wins / sums.games,
        "win_rate_interval": {"low": round(low, 6), "high": round(high, 6)},
        "daily_streak": {"current": streaks.current, "longest": streaks.longest},
        "best_win": None if sums.best_game is None else {"game_id": str(sums.best_game), "actions": sums.best_actions},
        "ranked": {"games": sums.ranked_games, "wins": sums.ranked_wins},
        "abandoned": sums.abandoned,
        "undone": sums.undone,
    }
