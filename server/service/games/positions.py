"""The position after any event of a game, folded from the nearest snapshot at or before it: what time travel shows,
and what an undo returns to. A snapshot is kept every SNAPSHOT_EVERY versions and at every undo (game/deciding.py),
so a fold reads a snapshot's stretch of the log however long the game, and never past the step asked for."""

from __future__ import annotations

from uuid import UUID

from ...log import events as ev
from ...log.deal_record import game_opening
from ...rules import GameState, Rules, from_text
from ..errors import EventNotFound
from ..ports import GameReads

MAX_SEQ = 2**31 - 1
"""The largest seq a log can hold."""


def position_after_event(games: GameReads, game_id: UUID, seq: int) -> tuple[ev.Event, GameState]:
    """Event `seq` of the game and the position right after it (the position after its whole step: events.positions).
    Raises EventNotFound when the game has no such event."""
    travel = games.load_time_travel(game_id, seq) if 1 <= seq <= MAX_SEQ else None
    event = next((event for event in travel.events if event.seq == seq), None) if travel else None
    if travel is None or event is None:
        raise EventNotFound(f"game {game_id} has no event {seq}")
    secret = travel.secret
    events = ev.through_step(travel.events, seq)

    def from_opening(events: list[ev.Event]) -> GameState:
        rules = Rules.from_mapping(travel.rules)
        return ev.fold(game_opening(rules, secret.server_seed, secret.client_seed, travel.deal), events, upto=seq)

    if travel.snapshot is None:
        return event, from_opening(events)
    snapshot_seq, snapshot_text = travel.snapshot
    try:
        return event, ev.fold(from_text(snapshot_text), [e for e in events if e.seq > snapshot_seq], upto=seq)
    except ev.HistoryBeforeStart:
        # An undo logged before undos kept their position takes back an action from before the snapshot: the log
        # up to the step asked for, from the deal.
        return event, from_opening(ev.through_step(games.load_events(game_id, 0, None, upto=seq + 2), seq))
