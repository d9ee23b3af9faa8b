"""The daily deal: each UTC day, one deal per preset, the same for every player, one attempt each.

A day's deal is a sealed deal the server commits to when the day opens (its `daily_deal_opened` entry in the
public log) and reveals when the day closes, at midnight UTC. Until then a daily game is its player's own: to
anyone else it does not exist, and no log, stream, replay, analysis or public-log entry shows anything of it.
At the close, a daily game still on is ended as if resigned, and every daily game of the day reveals the
seeds in its log and enters the public log (its creation and its end).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import date, datetime
from typing import Any, Protocol

from ..game.callers import Caller
from ..game.contests import day_closes_at, day_of
from ..game.records import PublicEntry
from ..log import public_entries
from ..rules import PRESETS, commitment
from .errors import DayNotOpened
from .games.documents import daily_view
from .ports import DailyDeals
from .records import DailyDeal


class DailyStore(DailyDeals, Protocol):
    """The ports the daily deals use."""


class Days:
    def __init__(
        self,
        store: DailyStore,
        clock: Callable[[], datetime],
        new_seed: Callable[[], bytes] = lambda: secrets.token_bytes(32),
    ) -> None:
        self._store = store
        self._clock = clock
        self._new_seed = new_seed

    def today(self) -> date:
        return day_of(self._clock())

    def closed(self, day: date) -> bool:
        return day < self.today()

    def deals(self, day: date | None = None) -> list[DailyDeal]:
        """The deals of `day` (today when None), one a preset in the presets' order; today's are opened now if
        they were not yet. Raises DayNotOpened for a day to come."""
        today = self.today()
        day = today if day is None else day
        if day > today:
            raise DayNotOpened(f"{day.isoformat()} has not begun: its deals open at midnight UTC")
        found = {deal.variant: deal for deal in self._store.load_daily_deals(day)}
        if day == today:
            for variant in PRESETS:
                if variant not in found:
                    found[variant] = self._open(day, variant)
        return [found[variant] for variant in PRESETS if variant in found]

    def page(self, day: date | None, viewer: Caller | None) -> dict[str, Any]:
        """The deals of `day` (today when None) as GET /daily shows them: commitments, the seeds once the day
        has closed, and the viewer's own games of them."""
        deals = self.deals(day)
        day = day or self.today()
        mine = {} if viewer is None else self._store.daily_games_of(viewer.player.id, day)
        return daily_view(day, day_closes_at(day), self.closed(day), deals, mine)

    def deal(self, variant: str) -> DailyDeal:
        """Today's deal of a preset, opened now if it was not yet."""
        today = self.today()
        opened = next((deal for deal in self._store.load_daily_deals(today) if deal.variant == variant), None)
        return opened or self._open(today, variant)

    def _open(self, day: date, variant: str) -> DailyDeal:
        seed = self._new_seed()
        name = day.isoformat()
        deal = DailyDeal(
            day, variant, public_entries.daily_deal_id(name, variant), seed, commitment(seed), self._clock()
        )
        entry = PublicEntry(
            deal.id,
            public_entries.DAILY_DEAL_OPENED,
            public_entries.daily_deal_opened(deal.id, name, variant, deal.commitment),
        )
        return self._store.open_daily_deal(deal, entry)
