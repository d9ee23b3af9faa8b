"""Your games still in progress on this server, newest first, from the tokens this machine kept: pick one by
its number and play on."""

from __future__ import annotations

from typing import Any

from textual import events

from ..client import ApiError
from .board import BoardScreen
from .seat import Seat
from .words import headline

SHOWN = 9
LOOKED_AT = 50
"""Saved games whose state is asked for at most, newest first, to find the ones in progress."""


class ResumeScreen(BoardScreen):
    KEYS = "1-9 play on  n a new game  q quit"

    def __init__(self, seat: Seat) -> None:
        super().__init__(seat)
        self.games: list[dict[str, Any]] = []

    def on_mount(self) -> None:
        super().on_mount()
        self.say("Looking for your games...")
        self.run_worker(self._list(), exclusive=True, group="server")

    async def _list(self) -> None:
        saved = self.seat.saved.on(self.seat.server_name)[:LOOKED_AT]
        games = await self.call(self._in_progress, [game.id for game in saved])
        if games is None:
            return
        self.games = games
        if not games:
            self.ask("No game of yours is in progress on this server.")
            self.say("Press n for a new game, or q to leave.")
            return
        self.ask("Your games in progress, newest first:")
        self.say(
            "\n".join(
                f"{n}  {headline(game)}\n   game {game['id']}, last move {game['updated_at'][:16]}"
                for n, game in enumerate(games, start=1)
            )
        )

    def _in_progress(self, ids: list[str]) -> list[dict[str, Any]]:
        found = []
        for game_id in ids:
            try:
                game = self.api.get(f"/games/{game_id}")
            except ApiError as error:
                if error.status == 404:  # a game of another database that once answered at this address
                    continue
                raise
            if game["status"] == "playing":
                found.append(game)
                if len(found) == SHOWN:
                    break
        return found

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key == "q":
            self.app.exit()
        elif event.key == "n":
            self.seat.new_game(self.seat.opening.new_game)
        elif event.key.isdigit() and 1 <= int(event.key) <= len(self.games):
            self.seat.resume(str(self.games[int(event.key) - 1]["id"]))
