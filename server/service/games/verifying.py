"""Verifying games: a stored game re-checked from its log with the server's own seeds, and an uploaded export
checked as an auditor would check it offline; both in the solver's time, within VERIFICATION_BUDGET."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any
from uuid import UUID

from ...game.document import game_document
from ...game.results import COUNTED_ACTION_EVENTS
from ...log import events as ev
from ...log.audit import Audit, verify_log
from ...log.replay import verify
from ...rules import Rules, to_text
from ..ports import GameReads, SolverTime

VERIFICATION_BUDGET = 300_000
"""Solver positions one verification request may search (re-deriving a winnable deal, recomputing hints, each
search started counted as hints.SOLVE_COST positions more): about two seconds of one core, and more than the server's
own exports with a winnable deal and a few hints need. Beyond it the verdict says what was left unchecked
(docs/security.md)."""

HINTS_REMEMBERED = 65_536
"""Hints this process remembers having found the solver's (audit.hint_key, 64 bytes each): a stored game verified
again (anyone may ask, as often as the rate limit lets them) works out only the hints it has not checked before."""


class CheckedHints:
    """The keys of the hints found the solver's (audit.HintMemory), the least recently met forgotten first; shared by
    the solver's threads."""

    def __init__(self, size: int = HINTS_REMEMBERED) -> None:
        self._keys: OrderedDict[str, None] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def __contains__(self, key: object) -> bool:
        with self._lock:
            if not isinstance(key, str) or key not in self._keys:
                return False
            self._keys.move_to_end(key)
            return True

    def add(self, key: str) -> None:
        with self._lock:
            self._keys[key] = None
            self._keys.move_to_end(key)
            if len(self._keys) > self._size:
                self._keys.popitem(last=False)


class Verifying:
    def __init__(self, games: GameReads, solver_time: SolverTime) -> None:
        self._games = games
        self._solver_time = solver_time
        self._checked_hints = CheckedHints()

    def verification(self, game_id: UUID) -> dict[str, Any]:
        """Re-check a game from its stored log with the server's own seeds, and its projection and snapshots
        against it."""
        game, secret = self._games.load_for_action(game_id)
        events = self._games.load_events(game_id, 0, None)
        snapshots = self._games.load_snapshots(game_id)
        audit, final = self._solver_time(
            lambda: verify_log(
                Rules.from_mapping(game.rules),
                game.commitment,
                events,
                seeds=(secret.server_seed, secret.client_seed),
                game_id=str(game.id),
                snapshots=snapshots,
                budget=VERIFICATION_BUDGET,
                known_hints=self._checked_hints,
            )
        )
        if (
            audit.valid
            and final is not None
            and (
                game.version != events[-1].seq
                or game.head_hash != events[-1].hash
                or game.status != final.status.value
                or game.score != final.cards_on_foundations
                or secret.state_text != to_text(final)
                or game.hints != sum(event.kind == ev.HINT_GIVEN for event in events)
                or (game.undos, game.undoable) != undo_counts(events)
                or json.loads(game.document) != game_document(game, final)
            )
        ):
            audit = Audit(
                False,
                audit.complete,
                len(events),
                None,
                f"the stored game (version {game.version}) is not the fold of its {len(events)} events",
            )
        return audit.to_dict()

    def verify_replay(self, document: dict[str, Any]) -> dict[str, Any]:
        """The verdict on an uploaded export, worked out in the solver's time within VERIFICATION_BUDGET."""
        return self._solver_time(lambda: verify(document, VERIFICATION_BUDGET)).to_dict()

    def valid(self, game_id: UUID) -> bool:
        """Whether the game verifies, completely: what lets a player's result count (players/profiles.py)."""
        verdict = self.verification(game_id)
        return bool(verdict["valid"] and verdict["complete"])


def undo_counts(events: list[ev.Event]) -> tuple[int, int]:
    """A game's undos, and the actions an undo could still take back, as its log has them: every action not taken
    back (those that ended the game too; a resignation never)."""
    undos = sum(event.kind == ev.ACTION_UNDONE for event in events)
    return undos, sum(event.kind in COUNTED_ACTION_EVENTS for event in events) - undos
