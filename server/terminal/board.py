"""What every screen of the table shares: the headline, the table, a line for what the player is asked, a
line for what the server said, the keys; and, on a terminal smaller than 80x24, a notice in their place."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from ..client import Api, ApiError, Unreachable
from .seat import Seat
from .table import Faces, Lit, draw_table, spacing_for
from .words import headline

MIN_WIDTH, MIN_HEIGHT = 80, 24

P = ParamSpec("P")
T = TypeVar("T")


class BoardScreen(Screen[None]):
    DEFAULT_CSS = """
    BoardScreen #board { height: 1fr; }
    BoardScreen #headline { height: 1; background: $primary-background; color: $text; padding: 0 1; }
    BoardScreen #table { height: auto; margin: 1 0 0 0; }
    BoardScreen #prompt { height: auto; margin: 1 1 0 1; color: $warning; }
    BoardScreen #message { height: auto; margin: 0 1; }
    BoardScreen #keys { dock: bottom; height: auto; padding: 0 1; background: $panel; }
    BoardScreen #too-small { display: none; padding: 1 2; }
    BoardScreen.too-small #board, BoardScreen.too-small #keys { display: none; }
    BoardScreen.too-small #too-small { display: block; }
    """

    KEYS = ""
    """The key legend at the foot of the screen."""

    def compose(self) -> ComposeResult:
        with Vertical(id="board"):
            yield Static(id="headline")
            yield Static(id="table")
            yield Static(id="prompt")
            yield Static(id="message")
        yield Static(self.KEYS, id="keys")
        yield Static(id="too-small")

    def __init__(self, seat: Seat) -> None:
        super().__init__()
        self.seat = seat
        self._shown: tuple[Mapping[str, Any], Mapping[str, Any] | None, Sequence[Lit]] | None = None

    @property
    def api(self) -> Api:
        return self.seat.api

    @property
    def faces(self) -> Faces:
        return self.seat.faces

    def on_mount(self) -> None:
        self._fit(self.app.size.width, self.app.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)
        if self._shown is not None:
            self.show(*self._shown)  # the spacing that fits the new size

    def _fit(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        self.set_class(small, "too-small")
        if small:
            self.query_one("#too-small", Static).update(
                f"The table needs a terminal of at least {MIN_WIDTH}x{MIN_HEIGHT}; this one is {width}x{height}.\n"
                "Make it larger (the game waits), or press q to leave."
            )

    def show(self, game: Mapping[str, Any], state: Mapping[str, Any] | None = None, lit: Sequence[Lit] = ()) -> None:
        """The game's table, at `state` when another position than the game's own is shown."""
        self._shown = (game, state, lit)
        shown = state if state is not None else game["state"]
        self.query_one("#headline", Static).update(headline({**game, "state": shown}))
        rules = game["rules"]
        spacing = spacing_for(self.app.size.width, self.app.size.height)
        group_waste = rules["waste_access"] == "group"
        self.query_one("#table", Static).update(
            draw_table(shown, rules["free_cells"], lit, self.faces, group_waste=group_waste, spacing=spacing)
        )

    def ask(self, text: str | Text) -> None:
        self.query_one("#prompt", Static).update(text)

    def say(self, text: str | Text, refused: bool = False) -> None:
        self.query_one("#message", Static).update(
            Text(text, style="bold red" if refused and not self.faces.ascii else "") if isinstance(text, str) else text
        )

    async def call(self, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
        """The API's answer, or None when it refused (its reason is said on the screen)."""
        answer, refusal = await ask(function, *args, **kwargs)
        if refusal is not None:
            self.say(refusal, refused=True)
        return answer


async def ask(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> tuple[T | None, str | None]:
    """The API's answer, asked off the event loop (the screen keeps drawing), or why there is none: the
    server's refusal in its own words, or that it cannot be reached."""
    try:
        return await asyncio.to_thread(function, *args, **kwargs), None
    except ApiError as error:
        return None, error.detail
    except Unreachable as error:
        return None, f"{error}. Nothing was done; try again."
