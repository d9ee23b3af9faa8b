"""Watching a game you do not play: replaying any game by its id, a step at a time through the positions
the API serves for each event (GET /games/{id}/states/{seq}), or following one live from its stream of
events (server-sent events, resumed after the last event seen when the connection drops)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from textual import events, work

from ..client import ApiError, Stream, Unreachable, messages
from .board import BoardScreen
from .seat import Seat
from .words import ending, event_text, title

FOLLOWS_STEP = frozenset({"game_won", "game_lost", "seeds_revealed"})
"""Events an action appends after its own: they belong to the step of that action."""
RECONNECT_SECONDS = 1.0


def steps_of(events_: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """The log's events grouped by the action that appended them, the game's creation first."""
    steps: list[list[Mapping[str, Any]]] = []
    for event in events_:
        if steps and event["kind"] in FOLLOWS_STEP:
            steps[-1].append(event)
        else:
            steps.append([event])
    return steps


class WatchedGameScreen(BoardScreen):
    """A screen of one game another plays or played, by its id: its replay, or following it live."""

    def __init__(self, seat: Seat, game_id: str) -> None:
        super().__init__(seat)
        self.game_id = game_id
        self.game: dict[str, Any] | None = None


class ReplayScreen(WatchedGameScreen):
    KEYS = "Right or space: next step  Left: back  Home: first  End: last  q quit"

    def __init__(self, seat: Seat, game_id: str) -> None:
        super().__init__(seat, game_id)
        self.steps: list[list[Mapping[str, Any]]] = []
        self.states: dict[int, dict[str, Any]] = {}
        self.at = 0

    def on_mount(self) -> None:
        super().on_mount()
        self.say("Reading the game's log...")
        self.run_worker(self._load(), exclusive=True, group="server")

    async def _load(self) -> None:
        loaded = await self.call(self._read_log)
        if loaded is not None:
            self.game, events_ = loaded
            self.steps = steps_of(events_)
            await self._go(0)

    def _read_log(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        game = self.api.get(f"/games/{self.game_id}")
        events_: list[dict[str, Any]] = []
        after: int | None = 0
        while after is not None:
            page = self.api.get(f"/games/{self.game_id}/events", after=after, limit=500)
            events_ += page["events"]
            after = page["next_after"]
        return game, events_

    async def _go(self, step: int) -> None:
        assert self.game is not None
        self.at = max(0, min(step, len(self.steps) - 1))
        seq = self.steps[self.at][-1]["seq"]
        if seq not in self.states:
            position = await self.call(self.api.get, f"/games/{self.game_id}/states/{seq}")
            if position is None:
                return
            self.states[seq] = position["state"]
        self.show(self.game, self.states[seq])
        what = "; ".join(event_text(event) for event in self.steps[self.at])
        # Counted in the log's events, as the browser's replay counts them; a step shows an action's events at once.
        self.ask(f"Replay of {title(self.game)}: event {seq} of {self.steps[-1][-1]['seq']}")
        over = self.at == len(self.steps) - 1 and self.game["status"] != "playing"
        self.say(what + (f"\n{ending(self.game)}" if over else ""))

    def on_key(self, event: events.Key) -> None:
        event.stop()
        moves = {
            "right": self.at + 1,
            "space": self.at + 1,
            "l": self.at + 1,
            "left": self.at - 1,
            "h": self.at - 1,
            "home": 0,
            "end": len(self.steps) - 1,
        }
        if event.key == "q":
            self.app.exit()
        elif event.key in moves and self.steps:
            self.run_worker(self._go(moves[event.key]), exclusive=True, group="server")


class FollowScreen(WatchedGameScreen):
    KEYS = "following live: each event shows as it happens  q quit"

    def __init__(self, seat: Seat, game_id: str) -> None:
        super().__init__(seat, game_id)
        self._stop = threading.Event()
        self._stream: Stream | None = None

    def on_mount(self) -> None:
        super().on_mount()
        self.say("Connecting...")
        self._follow()

    def on_unmount(self) -> None:
        self._stop.set()
        self._hang_up()

    @work(thread=True, exclusive=True, group="follow")
    def _follow(self) -> None:
        """Reads the stream in a thread of its own; each event's position is read before the next event, so
        that the table shows them in the log's order."""
        try:
            after = int(self.api.get(f"/games/{self.game_id}")["version"])
        except (ApiError, Unreachable) as error:
            self.app.call_from_thread(self.say, str(error), True)
            return
        while not self._stop.is_set():
            try:
                self._stream = self.api.open_stream(f"/games/{self.game_id}/events/stream?after={after}")
                if self._stop.is_set():  # the screen closed while the stream was being opened
                    return
                for message in messages(self._stream):
                    if message.event == "game":
                        self.app.call_from_thread(self._show_game, json.loads(message.data))
                        continue
                    event = json.loads(message.data)
                    state = self.api.get(f"/games/{self.game_id}/states/{event['seq']}")["state"]
                    self.app.call_from_thread(self._show_event, event, state)
                    after = event["seq"]
                    if event["kind"] == "seeds_revealed":
                        return  # the game's last event
            except ApiError as error:
                self.app.call_from_thread(self.say, error.detail, True)
                return
            except (Unreachable, OSError, ValueError) as error:
                if self._stop.is_set():
                    return
                self.app.call_from_thread(self.say, f"The stream broke ({error}); reconnecting...", True)
            finally:
                self._hang_up()
            if self.game is not None and self.game["status"] != "playing":
                return
            self._stop.wait(RECONNECT_SECONDS)

    def _hang_up(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()

    def _show_game(self, game: dict[str, Any]) -> None:
        self.game = game
        self.show(game)
        self.ask(f"Following game {self.game_id} live")
        self.say(ending(game) if game["status"] != "playing" else "Waiting for the next move...")

    def _show_event(self, event: Mapping[str, Any], state: dict[str, Any]) -> None:
        assert self.game is not None
        self.game = {**self.game, "state": state, "status": state["status"], "version": event["seq"]}
        self.show(self.game)
        self.say(
            f"{time.strftime('%H:%M:%S')}  event {event['seq']}: {event_text(event)}"
            + (f"\n{ending(self.game)}" if state["status"] != "playing" else "")
        )

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key == "q":
            self.app.exit()
