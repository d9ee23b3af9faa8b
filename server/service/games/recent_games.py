"""The games a process changed last, kept as it wrote them, so that their next action needs no read."""

from __future__ import annotations

import threading
from collections import OrderedDict
from uuid import UUID

from ...game.change import Game


class RecentGames:
    """The games this process changed last, most recent last, at most `capacity` of them.

    An action on one of them is decided on what is kept here and goes straight to its version-guarded
    write: no read, no parse of the position. A game's player usually keeps one connection, and so one
    process, for a whole game. An entry gone stale (another process acted on the game since) costs only
    a refused write, after which the action reads the game as usual. An entry is taken out while an
    action uses it, so two concurrent actions on one game never both rely on it.
    """

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._games: OrderedDict[UUID, Game] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, game_id: UUID) -> Game | None:
        with self._lock:
            return self._games.pop(game_id, None)

    def keep(self, game_id: UUID, game: Game, *, unless_newer: bool = False) -> None:
        """Keep `game` as the game's latest; with `unless_newer` (an entry given back by an action that
        wrote nothing), only if no other action has kept the game since."""
        if not self._capacity:
            return
        with self._lock:
            if unless_newer and game_id in self._games:
                return
            self._games[game_id] = game
            if len(self._games) > self._capacity:
                self._games.popitem(last=False)
