"""A competition game's clock, as its log shows it: game_created names the competition and the entrant's clock, every
event carries the entrant's time (`elapsed_ms`), never decreasing, never above the limit, standing still once the
game has ended; a game the server ended on time (game_timed_out) ended at the limit. Every other game's log carries
no time and no timeout. Pure: the log is all it reads."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from . import events as ev
from .events import Event, ReplayError

_ENDING = (ev.GAME_WON, ev.GAME_LOST, ev.GAME_RESIGNED, ev.GAME_TIMED_OUT)
"""The events that end a game: its clock stops at them."""


def check_clock(events: Sequence[Event]) -> None:
    """Raises ReplayError at the first event whose time (or lack of one) breaks the rules above."""
    created = events[0]
    clock = created.data.get("competition")
    if clock is None:
        for event in events:
            if ev.ELAPSED in event.data or event.kind == ev.GAME_TIMED_OUT:
                raise ReplayError(event.seq, "a game in no competition runs on no clock")
        return
    deal = created.data["deal"]
    if deal.get("kind") != "competition" or deal.get("competition_id") != clock["id"]:
        raise ReplayError(created.seq, "game_created names a competition clock but not its competition's deal")
    limit = clock["limit_ms"]
    deadline = datetime.fromisoformat(clock["started_at"]) + timedelta(milliseconds=limit)
    if datetime.fromisoformat(clock["deadline"]) != deadline:
        raise ReplayError(created.seq, "the clock's deadline is not its start plus its limit")
    previous, stopped_at = 0, None
    for event in events:
        elapsed = event.data.get(ev.ELAPSED)
        if elapsed is None:
            raise ReplayError(event.seq, "an event of a competition game without the entrant's time")
        if elapsed < previous or elapsed > limit:
            raise ReplayError(event.seq, "the entrant's time goes back, or past the clock's limit")
        if stopped_at is not None and elapsed != stopped_at:
            raise ReplayError(event.seq, "the entrant's time moves after the game ended")
        if event.kind == ev.GAME_TIMED_OUT and elapsed != limit:
            raise ReplayError(event.seq, "the game timed out before its clock ran out")
        if event.kind in _ENDING:
            stopped_at = elapsed
        previous = elapsed
