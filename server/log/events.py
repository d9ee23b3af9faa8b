"""The public move log: event types, the hash chain, and the fold that turns events back into states.

An event records only what became public when it happened, so the log can be shown to anyone while the
game runs. Each event's hash covers the previous hash and the event's canonical JSON, chained from the
game's commitment; see docs/replay-format.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from ..rules import (
    DEAL_ALGORITHM,
    FOUNDATIONS,
    RESERVES,
    Action,
    Deal,
    GameState,
    Move,
    Place,
    Redeal,
    Resign,
    Rules,
    RulesError,
    action_from_dict,
    action_to_dict,
    apply,
    foundation_for,
    legal_actions,
    public_view,
    source_of,
)

GAME_CREATED = "game_created"
CARD_PLAYED = "card_played"
CARD_TO_CELL = "card_moved_to_cell"
CARDS_DEALT = "cards_dealt"
WASTE_REDEALT = "waste_redealt"
GAME_WON = "game_won"
GAME_LOST = "game_lost"
GAME_RESIGNED = "game_resigned"
SEEDS_REVEALED = "seeds_revealed"
HINT_GIVEN = "hint_given"
ACTION_UNDONE = "action_undone"
GAME_TIMED_OUT = "game_timed_out"
ELAPSED = "elapsed_ms"
"""What every event of a competition game carries besides its own data: the entrant's time (game/contests.py)."""

MAX_UNDOS = 1_000
"""Undos a game takes at most, and so action_undone events its log holds (the verifier holds a log to it)."""

MAX_LOG_EVENTS = 10_000
"""Events a game's log holds at most: what reading a whole log costs (a verification, an export) is bounded by it
(docs/security.md). With unlimited passes the rules let a game go round for ever; a command that would leave less
room than the end of the game still takes (a resignation and the reveal of the seeds) is refused instead."""

TAKEN_BACK = (CARD_PLAYED, CARD_TO_CELL, CARDS_DEALT, WASTE_REDEALT)
"""The events of the actions an undo takes back: moves, deals and redeals (never a resignation)."""

EVENT_KINDS = (
    GAME_CREATED,
    CARD_PLAYED,
    CARD_TO_CELL,
    CARDS_DEALT,
    WASTE_REDEALT,
    GAME_WON,
    GAME_LOST,
    GAME_RESIGNED,
    SEEDS_REVEALED,
    HINT_GIVEN,
    ACTION_UNDONE,
    GAME_TIMED_OUT,
)


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event before it has a place in the log."""

    kind: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Event:
    seq: int
    kind: str
    data: dict[str, Any]
    hash: str

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "data": self.data, "hash": self.hash}


class ReplayError(Exception):
    """The log does not replay: `seq` is the first event that is wrong (None: the document around the log),
    `reason` says how."""

    def __init__(self, seq: int | None, reason: str) -> None:
        super().__init__(f"event {seq}: {reason}" if seq is not None else reason)
        self.seq = seq
        self.reason = reason


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> bytes:
    """Keys sorted, no white space, UTF-8 without escapes: the bytes every verifier hashes."""
    return _CANONICAL.encode(value).encode("utf-8")


def chain_hash(previous_hash: str, seq: int, kind: str, data: dict[str, Any]) -> str:
    """hex(SHA-256(bytes of the previous hash || canonical JSON of {"seq", "kind", "data"}))."""
    body = canonical_json({"seq": seq, "kind": kind, "data": data})
    return hashlib.sha256(bytes.fromhex(previous_hash) + body).hexdigest()


def chain(previous_hash: str, first_seq: int, new_events: Iterable[NewEvent]) -> list[Event]:
    """Give `new_events` their seqs and hashes, continuing the chain after `previous_hash`."""
    return chained(previous_hash, first_seq, new_events)[0]


def chained(previous_hash: str, first_seq: int, new_events: Iterable[NewEvent]) -> tuple[list[Event], str]:
    """`chain`, and the events as one JSON array (`events_json`): each event's data is encoded once, canonically,
    for its hash and its text alike."""
    events, texts = [], []
    for seq, event in enumerate(new_events, start=first_seq):
        data_text, kind_text = _CANONICAL.encode(event.data), _CANONICAL.encode(event.kind)
        # canonical_json({"seq", "kind", "data"}): its keys sorted, the data's own already sorted by its encoding.
        body = f'{{"data":{data_text},"kind":{kind_text},"seq":{seq}}}'
        previous_hash = hashlib.sha256(bytes.fromhex(previous_hash) + body.encode()).hexdigest()
        events.append(Event(seq, event.kind, event.data, previous_hash))
        texts.append(f'{{"seq":{seq},"kind":{kind_text},"data":{data_text},"hash":"{previous_hash}"}}')
    return events, f"[{','.join(texts)}]"


def events_json(events: Iterable[Event]) -> str:
    """Events as the API, the log's write and the live hub carry them: a JSON array of {"seq", "kind", "data",
    "hash"}, each event's data in canonical JSON."""
    texts = (
        f'{{"seq":{event.seq},"kind":{_CANONICAL.encode(event.kind)},"data":{_CANONICAL.encode(event.data)},'
        f'"hash":"{event.hash}"}}'
        for event in events
    )
    return f"[{','.join(texts)}]"


def game_created(
    game_id: UUID,
    rules: Rules,
    deal: dict[str, Any],
    commitment: str,
    opening: GameState,
    player: dict[str, str] | None = None,
    competition: dict[str, Any] | None = None,
) -> NewEvent:
    """The first event: the game's id, its rules, how the deal is made (no secret), the commitment, and
    the public opening. The id binds the log to its game: an export cannot be passed off as another's.
    `player` ({"name", "kind"}) binds it to the player who made it with their API token, if one did;
    `competition` to the competition and the entrant's clock, for an entrant's game."""
    return NewEvent(
        GAME_CREATED,
        {
            "game_id": str(game_id),
            "rules": rules.to_dict(),
            "variant": rules.preset_name,
            "deal_algorithm": DEAL_ALGORITHM,
            "deal": deal,
            "commitment": commitment,
            "opening": public_view(opening),
            **({} if player is None else {"player": player}),
            **({} if competition is None else {"competition": competition}),
        },
    )


def seeds_revealed(server_seed: bytes, client_seed: str) -> NewEvent:
    return NewEvent(SEEDS_REVEALED, {"server_seed": server_seed.hex(), "client_seed": client_seed})


def game_timed_out(after: GameState) -> NewEvent:
    """A competition game the server ended when its clock ran out: what the player had home is its score."""
    return NewEvent(GAME_TIMED_OUT, {"reason": "the clock ran out", "score": after.cards_on_foundations})


def unclocked(data: Any) -> Any:
    """An event's data without the entrant's time a competition game's events carry: what the rules decide."""
    if isinstance(data, dict) and ELAPSED in data:
        return {key: value for key, value in data.items() if key != ELAPSED}
    return data


def hint_given(hint: dict[str, Any]) -> NewEvent:
    """A hint the player asked for (solver.hints): made from what the log already shows, so it shows no
    more, and logged so that a replay shows the game was assisted."""
    return NewEvent(HINT_GIVEN, hint)


def action_undone(undone: Event) -> NewEvent:
    """An undo: it takes back the action whose own event is `undone`, naming it by seq and as an action. It
    reveals nothing: the position it returns to was shown before."""
    action = action_of(undone)
    assert action is not None, "only an action is taken back"
    return NewEvent(ACTION_UNDONE, {"undone_seq": undone.seq, "action": action_to_dict(action)})


def events_for(before: GameState, action: Action, after: GameState) -> list[NewEvent]:
    """What became public through `action`: the action's own event, then the end of the game if it came."""
    events: list[NewEvent]
    if isinstance(action, Move):
        source = source_of(before, action.card)
        foundation = foundation_for(before, action.card)
        target = Place.CELL if action.target is Place.CELL or foundation is None else FOUNDATIONS[foundation]
        data = {
            "card": action.card.code,
            "from": source.value,
            "to": target.value,
            "uncovered": _uncovered(after, source),
        }
        events = [NewEvent(CARD_TO_CELL if action.target is Place.CELL else CARD_PLAYED, data)]
    elif isinstance(action, Deal):
        dealt = after.waste[len(before.waste) :]
        events = [NewEvent(CARDS_DEALT, {"cards": [card.code for card in dealt]})]
    elif isinstance(action, Redeal):
        events = [NewEvent(WASTE_REDEALT, {"pass_number": after.pass_number})]
    elif isinstance(action, Resign):
        return [NewEvent(GAME_RESIGNED, {"reason": after.outcome.reason if after.outcome else ""})]
    else:
        raise TypeError(f"not an action: {action!r}")
    if after.outcome is not None:
        kind = GAME_WON if after.status == "won" else GAME_LOST
        events.append(NewEvent(kind, {"reason": after.outcome.reason, "score": after.cards_on_foundations}))
    return events


def _uncovered(after: GameState, source: Place) -> str | None:
    """The card that became the top of the reserve pile the card left, now face up."""
    if source not in RESERVES:
        return None
    pile = after.reserves[RESERVES.index(source)]
    return str(pile[-1]) if pile else None


def action_of(event: Event) -> Action | None:
    """The player's action an event records; None for the events the game itself appends.

    Raises ReplayError when the event's data does not name an action (a crafted log).
    """
    if event.kind in (CARD_PLAYED, CARD_TO_CELL):
        data = event.data if isinstance(event.data, dict) else {}
        card, source, target = (data.get("card"), data.get("from"), data.get("to"))
        if not (isinstance(card, str) and isinstance(source, str) and isinstance(target, str)):
            raise ReplayError(event.seq, f"{event.kind} needs card, from and to as text")
        try:
            return action_from_dict({"kind": "move", "card": card, "from": source, "to": target})
        except RulesError as error:
            raise ReplayError(event.seq, f"{event.kind} does not name a move: {error}") from None
    return _ACTIONS.get(event.kind)


_ACTIONS: dict[str, Action] = {CARDS_DEALT: Deal(), WASTE_REDEALT: Redeal(), GAME_RESIGNED: Resign()}
_ENDING = frozenset((GAME_WON, GAME_LOST, SEEDS_REVEALED))
"""The events the game appends after an action of the player's, in the same step."""


def positions(
    opening: GameState, events: Sequence[Event], taken: list[tuple[Event, GameState]] | None = None
) -> Iterator[tuple[Event, GameState]]:
    """Each event with the position after it, re-run under the rules from `opening`: the game's opening
    when the events begin with game_created, else a snapshot taken at the end of an action.

    The events one action appends (its own, then game_won or game_lost, then seeds_revealed) are one step
    of the game, and the position after each of them is the position after the whole action: the game
    never showed a position between them. So an action's events are checked together before the first
    of them is given, and a caller that stops at an event inside a step must have passed the rest of it.
    A hint_given is a step of its own that leaves the position as it was. An action_undone is a step of its own
    that returns to the position before the latest action not taken back yet, which it names (several undos walk
    further back); an undo reaching before a snapshot the fold started at raises HistoryBeforeStart. `taken`, if
    given, is kept as the actions not taken back so far, each with the position before it, the latest last.

    Every recorded action is applied by the engine and what it makes public must equal what the log
    says, so a log that does not follow the rules raises ReplayError at its first wrong event. The
    reasons name only what the log itself shows, never what the rules would have revealed.
    """
    state = opening
    position = 0
    taken = [] if taken is None else taken
    if events and events[0].kind == GAME_CREATED:
        yield events[0], state
        position = 1
    while position < len(events):
        event = events[position]
        if event.kind == ACTION_UNDONE:
            state = _taken_back(event, state, taken, from_opening=events[0].kind == GAME_CREATED)
            yield event, state
            position += 1
            continue
        if event.kind == SEEDS_REVEALED:
            if not state.is_over:
                raise ReplayError(event.seq, "the seeds are revealed while the game is still on")
            yield event, state
            position += 1
            continue
        if event.kind == HINT_GIVEN:
            _check_hint(event, state)
            yield event, state
            position += 1
            continue
        action = Resign() if event.kind == GAME_TIMED_OUT else action_of(event)
        if action is None:
            raise ReplayError(event.seq, f"{event.kind} where the rules do not end the game")
        try:
            after = apply(state, action)
        except RulesError as error:
            raise ReplayError(event.seq, f"{action} is not legal: {error}") from None
        expected = [game_timed_out(after)] if event.kind == GAME_TIMED_OUT else events_for(state, action, after)
        recorded = events[position : position + len(expected)]
        for want, got in zip(expected, recorded, strict=False):
            if (want.kind, want.data) != (got.kind, unclocked(got.data)):
                raise ReplayError(got.seq, f"{got.kind} is not what the rules make of {action} here")
        if len(recorded) < len(expected):
            raise ReplayError(event.seq, f"the log ends before the {expected[-1].kind} the rules require")
        taken.append((event, state))
        state = after
        for got in recorded:
            yield got, state
        position += len(expected)


class HistoryBeforeStart(ReplayError):
    """An undo takes back an action from before the position a fold started at (a snapshot): fold from the
    opening instead."""


def _taken_back(event: Event, state: GameState, taken: list[tuple[Event, GameState]], from_opening: bool) -> GameState:
    """The position an undo returns to: the one before the latest action not taken back, which it must name."""
    if state.is_over:
        raise ReplayError(event.seq, "an action is taken back after the game is over")
    if not taken:
        if from_opening:
            raise ReplayError(event.seq, "an undo with no action left to take back")
        raise HistoryBeforeStart(event.seq, "the undo takes back an action from before this fold's start")
    undone, before = taken.pop()
    if unclocked(event.data) != action_undone(undone).data:
        raise ReplayError(event.seq, f"{event.kind} must take back the action of event {undone.seq}, its latest")
    return before


def _check_hint(event: Event, state: GameState) -> None:
    """A hint comes while the game is on and recommends one of its legal actions, or none."""
    if state.is_over:
        raise ReplayError(event.seq, "a hint is given while the game is over")
    recommended = event.data.get("action") if isinstance(event.data, dict) else None
    if recommended is not None and recommended not in [action_to_dict(action) for action in legal_actions(state)]:
        raise ReplayError(event.seq, "the hint recommends an action that is not legal here")


def fold(opening: GameState, events: Sequence[Event], upto: int | None = None) -> GameState:
    """The position after event `upto` (after the last event when None): see `positions`."""
    state = opening
    for event, after in positions(opening, events):
        if upto is not None and event.seq > upto:
            break
        state = after
    return state


def through_step(events: Sequence[Event], seq: int) -> list[Event]:
    """`events` up to `seq`, and the rest of the step `seq` is in (the end of the game its action made): what a
    fold needs to show the position after `seq`, and nothing after it."""
    through = [event for event in events if event.seq <= seq]
    for event in events[len(through) :]:
        if event.kind not in _ENDING:
            break
        through.append(event)
    return through


def ends_a_step(events: Sequence[Event], index: int) -> bool:
    """Whether events[index] is the last event of its step: the next one, if any, is a new action."""
    return index + 1 == len(events) or events[index + 1].kind not in _ENDING


def ends_an_action(events: Sequence[Event], index: int) -> bool:
    """Whether events[index] is the last of the events its action appended: the next one, if any, is not the end
    of the game that action made. The reveal of the seeds may follow: it changes no position, and a daily game's
    comes in a write of its own, when its day closes."""
    return index + 1 == len(events) or events[index + 1].kind not in (GAME_WON, GAME_LOST)
