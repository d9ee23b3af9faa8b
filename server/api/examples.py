"""The examples of the OpenAPI document: one game played through the functions that make real responses.

Deal 4711 of `osmosis` is dealt, dealt from, played on, hinted and resigned by the rules engine and the
solver; its events are chained and its documents rendered as the service does, so every example is what
the server would send for it (tests/api/test_contract_examples.py compares them with real responses, ids
and clocks aside).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http import HTTPStatus
from typing import Any
from uuid import UUID

from ..game.change import Change
from ..game.commands import Act, Command, Draw, GiveHint, Hint, Resign
from ..game.deciding import Dealt, created, decide
from ..game.records import GameRecord
from ..log import events as ev
from ..log.replay import export, verify
from ..rules import (
    GameState,
    Move,
    commitment,
    deal_number_seed,
    layout,
    legal_actions,
    preset,
    shuffled_deck,
)
from ..rules import opening as opening_of
from ..service.feed import FeedEntry, FeedPosition
from ..service.games.analyses import steps_of
from ..service.games.cursors import encode_cursor
from ..service.games.documents import position_after, sealed_deal_view
from ..service.players.tokens import token_hash_of
from ..service.records import SealedDeal
from ..solver import hints
from ..solver.analysis import analyse
from .streaming.streams import event_message, feed_message

VARIANT = "osmosis"
DEAL_NUMBER = 4711
GAME_ID = UUID("65eee5b0-03b5-49e9-b1e2-863d2e8084cd")
SEALED_DEAL_ID = "0b3c9a1e-6d2f-4c57-8a3e-2f1d5e7c9b40"
PLAYER_TOKEN = "pt_Jx3q9V0mZk2cR8yL5uWn1sA7dE4hT6bG"
CREATED_AT = datetime(2026, 11, 21, 23, 42, 17, 82270, tzinfo=UTC)


class Later:
    """An example made when the document is first rendered (`rendered`), not when the API is imported: the
    played game's examples take a hint and a verification, some 0.17 s that every worker process of every
    server paid at its start whether or not anyone read the document."""

    def __init__(self, make: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self._make = functools.partial(make, *args, **kwargs)

    def __call__(self) -> Any:
        return self._make()


def rendered(document: Any) -> Any:
    """`document` with each of its `Later` examples made."""
    if isinstance(document, Later):
        return rendered(document())
    if isinstance(document, dict):
        return {key: rendered(value) for key, value in document.items()}
    if isinstance(document, list):
        return [rendered(value) for value in document]
    return document


@dataclass(frozen=True)
class Step:
    """A game as it stood after an action, and the events that action appended."""

    record: GameRecord
    state: GameState
    game: dict[str, Any]
    events: list[dict[str, Any]]


def _step(change: Change) -> Step:
    return Step(change.game, change.after.state, json.loads(change.game.document), [e.to_dict() for e in change.events])


@functools.cache
def _played() -> tuple[Step, Step, Step, Step, Step, list[ev.Event]]:
    """Created; then a deal; then the first move the rules allow after deals; then a hint; then resigned: each
    decided by the game (game/deciding.py) as the server decides it, four seconds apart."""
    rules = preset(VARIANT)
    server_seed = deal_number_seed(DEAL_NUMBER)
    dealt = Dealt(
        server_seed,
        "",
        {"kind": "number", "deal_number": DEAL_NUMBER},
        opening_of(rules, layout(shuffled_deck(server_seed), rules)),
    )
    changes = [created(rules, dealt, None, GAME_ID, (PLAYER_TOKEN, token_hash_of(PLAYER_TOKEN)), CREATED_AT)]

    def then(command: Command) -> Change:
        game = changes[-1].after
        changes.append(decide(game, command, game.record.updated_at + timedelta(seconds=4)))
        return changes[-1]

    while not any(isinstance(action, Move) for action in legal_actions(then(Draw(GAME_ID, PLAYER_TOKEN)).after.state)):
        pass
    deal_change = changes[1]
    state = changes[-1].after.state
    moved = then(Act(GAME_ID, PLAYER_TOKEN, next(a for a in legal_actions(state) if isinstance(a, Move))))
    hinted = then(GiveHint(Hint(GAME_ID, PLAYER_TOKEN), moved.game.version, hints.hint(moved.after.state).to_dict()))
    resigned = then(Resign(GAME_ID, PLAYER_TOKEN))
    log = [event for change in changes for event in change.events]
    return _step(changes[0]), _step(deal_change), _step(moved), _step(hinted), _step(resigned), log


@functools.cache
def analysis() -> dict[str, Any]:
    """The analysis of the resigned game."""
    created = _played()[0]
    steps = list(steps_of(created.state, _played()[5]))
    return {"game_id": str(GAME_ID), **analyse(steps)}


def game() -> dict[str, Any]:
    """The game just created."""
    return _played()[0].game


def created_game() -> dict[str, Any]:
    return {**game(), "player_token": PLAYER_TOKEN}


def dealt() -> dict[str, Any]:
    step = _played()[1]
    return {"game": step.game, "events": step.events}


def moved() -> dict[str, Any]:
    step = _played()[2]
    return {"game": step.game, "events": step.events}


def hinted() -> dict[str, Any]:
    step = _played()[3]
    return {"game": step.game, "events": step.events, "hint": step.events[0]["data"]}


def resigned() -> dict[str, Any]:
    step = _played()[4]
    return {"game": step.game, "events": step.events}


def move_request() -> dict[str, Any]:
    """The move of `moved()`, as the legal action the game listed before it."""
    event = _played()[2].events[0]
    return {"kind": "move", "card": event["data"]["card"], "from": event["data"]["from"], "to": event["data"]["to"]}


def game_list() -> dict[str, Any]:
    cursor = encode_cursor(_played()[2].record)
    return {"games": [moved()["game"]], "next": f"/games?limit=1&cursor={cursor}", "next_cursor": cursor}


def event_list() -> dict[str, Any]:
    events = [event.to_dict() for event in _played()[5][:3]]
    return {"events": events, "next": f"/games/{GAME_ID}/events?after=3&limit=3", "next_after": 3}


def state_at() -> dict[str, Any]:
    step = _played()[1]
    return position_after(GAME_ID, step.events[-1]["seq"], step.events[-1]["hash"], step.state)


def replay() -> dict[str, Any]:
    return export(_played()[4].game, _played()[5])


def verdict() -> dict[str, Any]:
    return verify(replay()).to_dict()


def stream_message() -> dict[str, Any]:
    """A message of a game's event stream, as an SSE parser reads it: the event after a deal."""
    return _parsed(event_message(dealt()["events"][0]))


def feed_message_example() -> dict[str, Any]:
    """A message of the feed of many games: an event of a game (its position made up)."""
    event = dealt()["events"][0]
    return _parsed(
        feed_message(
            FeedEntry(FeedPosition(7_520, str(GAME_ID), event["seq"]), VARIANT, {"game_id": str(GAME_ID), **event})
        )
    )


def _parsed(message: str) -> dict[str, Any]:
    fields = dict(line.split(": ", 1) for line in message.strip().splitlines())
    return {"event": fields.pop("event", "message"), **fields}


def sealed_deal() -> dict[str, Any]:
    """A sealed deal not used yet (its seed, which the server never shows, made up for the example)."""
    seed = bytes(range(32))
    return sealed_deal_view(SealedDeal(UUID(SEALED_DEAL_ID), CREATED_AT, seed, commitment(seed), None))


PROBLEM_DETAILS: dict[str, tuple[str, dict[str, Any]]] = {
    "bad-request": ("the body is not JSON: Expecting value at line 1, column 1", {}),
    "unauthorized": ("this action needs the game's player token: Authorization: Bearer <player_token>", {}),
    "forbidden": ("this token does not open this game", {}),
    "game-not-found": (f"no game {GAME_ID}", {}),
    "game-gone": (
        f"the game {GAME_ID} is gone: the public log's entry 1207 records its creation, but the database was "
        "restored from a backup taken before it; its moves are lost",
        {"log_entry": 1207},
    ),
    "sealed-deal-not-found": (f"no sealed deal {SEALED_DEAL_ID}", {}),
    "event-not-found": ("game 65eee5b0-03b5-49e9-b1e2-863d2e8084cd has no event 99", {}),
    "not-found": ("The requested URL was not found on the server.", {}),
    "request-timeout": ("the body did not arrive within 10 seconds", {}),
    "illegal-action": ("7S cannot go to F3: no 7 in F2", {"rule": "osmosis"}),
    "game-over": ("the game is over (lost): no further action is accepted", {}),
    "sealed-deal-used": (f"sealed deal {SEALED_DEAL_ID} has already made a game", {}),
    "game-not-over": (f"game {GAME_ID} is still being played: it is analysed once it is over", {}),
    "no-winnable-deal": (
        "none of the first 100 deals of these seeds is proven winnable within 10000 positions under "
        "these rules: choose other rules, or deal without 'winnable'",
        {},
    ),
    "version-conflict": ("the game is at version 7, not 5", {}),
    "payload-too-large": ("the body is over 4 MiB", {}),
    "unsupported-media-type": ("send the body as JSON, with Content-Type: application/json", {}),
    "validation-failed": ("the request has invalid fields: see errors", {"errors": {"card": ["not a card code"]}}),
    "invalid-rules": ("with no reserve piles there is nothing to lay face down: reserve_face_down must be 0", {}),
    "invalid-input": ("Last-Event-ID must be the id of an event this stream sent: its seq, a whole number", {}),
    "invalid-cursor": ("the cursor is not one this server gave", {}),
    "idempotency-key-reused": ("this Idempotency-Key was used for another request", {}),
    "rate-limited": ("too many requests: 120 per 1 minute", {}),
    "not-in-log": ("the log has no tile/0/x001/234.p/17 (yet)", {}),
    "log-not-started": ("the log has no checkpoint yet: its sequencer signs the first within a second", {}),
    "player-not-found": ("no player named 'alice'", {}),
    "token-not-found": ("you have no API token with id 3f2e1d0c-9b8a-4765-a432-10fedcba9876", {}),
    "name-taken": (
        "the name 'Alice' is taken (names differing only by case or look-alike characters are one name)",
        {},
    ),
    "too-many-tokens": ("you have 20 live API tokens, the most a player may have: revoke one", {}),
    "name-reserved": ("'Admin' is reserved: choose another name", {}),
    "invalid-name": ("a name begins with a letter and has only ASCII letters, digits, '_' and '-'", {}),
    "day-not-found": ("2026-11-26 has not begun: its deals open at midnight UTC", {}),
    "daily-deal-played": ("you have played this deal today already: one attempt a day", {}),
    "day-closed": ("the day of this daily game, 2026-11-24, has closed: the game ended with it", {}),
    "day-not-closed": (
        f"game {GAME_ID} is a daily deal of 2026-11-24: it is analysed once the day closes, since "
        "the analysis would show the deal to players still at it",
        {},
    ),
    "internal-error": ("the server failed to handle this request; it has been logged", {}),
    "service-unavailable": ("the database is unreachable; try again shortly", {}),
    "log-behind": (
        "the log's database lacks entries of its published checkpoint (4096): it is being recovered, and proves "
        "nothing until then",
        {},
    ),
    "not-ready": ("the database schema is not at the latest migration yet", {}),
    "solver-busy": (
        "you have 2 solver jobs in flight already (hints, winnable deals, analyses, verifications): "
        "retry once one has finished",
        {},
    ),
    "solver-saturated": ("the solver is busy with other clients' work: no thread came free within 30 seconds", {}),
    "competition-not-found": ("no competition with id 3f6c1b2a-9d8e-4f70-a6b5-c4d3e2f1a0b9", {}),
    "too-many-competitions": ("you have 20 competitions not closed yet, as many as an organizer may", {}),
    "entries-closed": ("entries closed at 2026-11-22T00:12:17.082270+00:00", {}),
    "already-entered": ("you have entered this competition already", {}),
    "competition-full": ("the field is full: 1,000 entrants", {}),
    "not-eligible": ("this competition is for humans, and you are a bot", {}),
    "not-yet-logged": (
        "your player_joined entry is not in the public log yet: enter again in a few seconds",
        {},
    ),
    "not-entered": ("you have not entered this competition", {}),
    "already-started": ("your clock has started: your game counts, as it ends", {}),
    "not-started": ("the competition starts at 2026-11-22T00:12:17.082270+00:00", {}),
    "start-closed": (
        "the last start that leaves a whole clock before the close was 2026-11-22T00:22:17.082270+00:00",
        {},
    ),
    "clock-expired": (
        "your clock ran out at 2026-11-22T00:22:17.082270+00:00: a competition game takes nothing after",
        {},
    ),
    "undo-in-competition": ("a competition game takes no undo: every entrant plays one line, as it stands", {}),
    "hints-off": ("this competition gives no hints: its organizer set hints off", {}),
    "competition-not-closed": (
        "the competition closes at 2026-11-22T00:22:17.082270+00:00: its results are shown once it has",
        {},
    ),
    "results-final": ("the review time ended 0 s after the close: the results stand", {}),
}


def problem_example(status: int, code: str) -> dict[str, Any]:
    detail, extra = PROBLEM_DETAILS[code]
    return {
        "type": f"urn:osmosis:problem:{code}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        **extra,
    }
