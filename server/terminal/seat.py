"""What the table's screens are handed by the app that shows them: the server, the player's saved games, the cards'
faces, what the table opened on, and where to go next. The screens know this and not the app, so that no screen
imports the app that imports it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..client import Api
from .saved import SavedGames
from .table import Faces


@dataclass(frozen=True)
class Opening:
    """What the table opens on: a new game (with the body of POST /games), or a game by its id."""

    new_game: Mapping[str, Any] = field(default_factory=dict)
    resume: str | None = None
    """A game id, or "" for the list of your games in progress."""
    replay: str | None = None
    follow: str | None = None


class Seat(Protocol):
    api: Api
    server_name: str
    saved: SavedGames
    faces: Faces
    opening: Opening

    def replay(self, game_id: str) -> None: ...

    def resume(self, game_id: str) -> None: ...

    def play_next(self, game: Mapping[str, Any]) -> None:
        """A new game like the one just ended."""
        ...

    def new_game(self, body: Mapping[str, Any]) -> None: ...
