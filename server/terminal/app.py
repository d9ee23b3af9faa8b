"""`osmosis play`: the table in a terminal, a client of the public HTTP API like any other. It opens on a
new game, on one of your games to resume, on a replay or on a game followed live; the screens are in
playing.py, watching.py and resuming.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual.app import App

from ..client import Api
from .playing import PlayScreen
from .resuming import ResumeScreen
from .saved import SavedGames
from .seat import Opening
from .table import Faces
from .watching import FollowScreen, ReplayScreen


class TableApp(App[None]):
    TITLE = "Osmosis"
    ENABLE_COMMAND_PALETTE = False
    AUTO_FOCUS = None  # the keys are the table's: the card's name is asked for only after m

    def __init__(self, api: Api, server_name: str, saved: SavedGames, opening: Opening, plain: bool = False) -> None:
        super().__init__()
        self.api, self.server_name, self.saved, self.opening = api, server_name, saved, opening
        self.faces = Faces(ascii=plain)

    def on_mount(self) -> None:
        opening = self.opening
        if opening.replay is not None:
            self.push_screen(ReplayScreen(self, opening.replay))
        elif opening.follow is not None:
            self.push_screen(FollowScreen(self, opening.follow))
        elif opening.resume == "":
            self.push_screen(ResumeScreen(self))
        elif opening.resume is not None:
            self.push_screen(PlayScreen(self, game_id=opening.resume))
        else:
            self.push_screen(PlayScreen(self, new_game=opening.new_game))

    def replay(self, game_id: str) -> None:
        self._switch(ReplayScreen(self, game_id))

    def resume(self, game_id: str) -> None:
        self._switch(PlayScreen(self, game_id=game_id))

    def play_next(self, game: Mapping[str, Any]) -> None:
        """A new game like the one just ended: the next deal number after a numbered deal, else a new secret deal."""
        body: dict[str, Any] = {"variant": game["variant"]} if game["variant"] else {"rules": game["rules"]}
        if game["deal"].get("kind") == "number":
            body["deal_number"] = game["deal"]["deal_number"] + 1
        if game["deal"].get("winnable"):
            body["winnable"] = True
        self.new_game(body)

    def new_game(self, body: Mapping[str, Any]) -> None:
        self._switch(PlayScreen(self, new_game=body))

    def _switch(self, screen: PlayScreen | ReplayScreen | ResumeScreen) -> None:
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(screen)
