"""Playing a game: the lit cards numbered, `d` to deal, `m` to name any card (the engine says why it may not
go), `h` for a hint, `u` to take the latest action back, `r` to resign; each action sent with the version it was
chosen on, so that a move made meanwhile elsewhere (another window) is never played over. At the end, a panel with
the solver's verdict."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ..client import ApiError
from .board import BoardScreen, ask
from .saved import SavedGame
from .seat import Seat
from .table import Lit, lit_cards, stock_action
from .words import COUNTED_ACTIONS, action_text, ending, figures, hint_text, verdict

NOTHING_TO_UNDO = "Nothing to take back: the game is at its deal."
DAILY_IS_FINAL = "A daily deal is a competition: its actions are final, there is no undo. Press h for a hint."
CARD = re.compile(r"^\s*(?P<card>(10|[2-9TJQKA])[SHDC])\s*(?:(?:to\s+)?(?P<to>F[1-4]|cell))?\s*$", re.IGNORECASE)


class PlayScreen(BoardScreen):
    KEYS = "1-9 play a lit card  d deal  m name a card  h hint  u undo  r resign  q quit"

    def __init__(self, seat: Seat, game_id: str | None = None, new_game: Mapping[str, Any] | None = None) -> None:
        super().__init__(seat)
        self.game_id, self.new_game = game_id, new_game
        self.game: dict[str, Any] | None = None
        self.token = ""
        self.lit: list[Lit] = []
        self.choosing: Lit | None = None
        self.resigning = False
        self.busy = False

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield Input(placeholder="a card, and where if you like: 7S, 7S F2, QH cell (Esc: never mind)", id="name")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#name", Input).display = False
        self.say("Dealing..." if self.game_id is None else "Fetching the game...")
        self.run_worker(self._open(), exclusive=True, group="server")

    async def _open(self) -> None:
        saved = self.seat.saved
        if self.game_id is None:
            game, refusal = await ask(self.api.post, "/games", dict(self.new_game or {}))
            if game is not None:
                self.token = game.pop("player_token")
                saved.add(SavedGame(self.seat.server_name, game["id"], self.token, game["variant"], game["created_at"]))
        else:
            # A game of yours begun elsewhere (today's deal on another device): your API token acts on it too.
            self.token = saved.token_of(self.seat.server_name, self.game_id) or self.api.bearer or ""
            game, refusal = await ask(self.api.get, f"/games/{self.game_id}")
        if game is None:
            self.say(f"{refusal} (Enter: try again, q: leave)", refused=True)
            return
        self.say("" if self.token else "You do not hold this game's token here: you can watch it, not play it.")
        self._show(game)

    def _show(self, game: dict[str, Any]) -> None:
        self.game = game
        self.lit = lit_cards(game["legal_actions"]) if self.token else []
        self.choosing, self.resigning = None, False
        self.ask(self._moves_line())
        self.show(game, lit=self.lit)
        if game["status"] != "playing":
            self.app.push_screen(EndPanel(self.seat, game))

    def _moves_line(self) -> str:
        game = self.game
        if game is None or not self.token:
            return ""
        if game["status"] != "playing":
            return "The game is over: Enter shows how it ended and the solver's verdict; q quits."
        moves = [
            f"{lit.number} {action_text(lit.moves[0]) if len(lit.moves) == 1 else lit.card + ' (choose where)'}"
            for lit in self.lit
        ]
        stock = stock_action(game["legal_actions"])
        moves += [f"d {action_text(stock)}"] if stock else []
        return "   ".join(moves) or "No move is left but to resign (r)."

    def on_key(self, event: events.Key) -> None:
        if self.query_one("#name", Input).display:
            return
        event.stop()
        key = event.key
        if key == "q":
            self.app.exit()
        elif self.game is None:
            if key == "enter" and not self.busy:
                self.run_worker(self._open(), exclusive=True, group="server")
        elif self.busy:
            self.say("Waiting for the server...")
        elif self.game["status"] != "playing":
            if key == "enter":
                self.app.push_screen(EndPanel(self.seat, self.game))
        elif not self.token:
            self.say("This game is not yours to play: its token is not saved here.", refused=True)
        elif self.resigning:
            self.resigning = False
            if key == "y":
                self._send({"kind": "resign"})
            else:
                self.ask(self._moves_line())
        elif self.choosing is not None:
            self._choose(key)
        else:
            self._command(key)

    def _command(self, key: str) -> None:
        assert self.game is not None
        if key.isdigit():
            lit = next((lit for lit in self.lit if str(lit.number) == key), None)
            if lit is None:
                self.say(
                    f"No card is numbered {key}: the lit cards are numbered 1 to {len(self.lit)}."
                    if self.lit
                    else "No card can move now.",
                    refused=True,
                )
            elif len(lit.moves) == 1:
                self._send(lit.moves[0])
            else:
                self.choosing = lit
                self.ask(
                    f"{lit.card} to: "
                    + "  ".join(f"{chr(ord('a') + i)} {move['to']}" for i, move in enumerate(lit.moves))
                    + "  (Esc: never mind)"
                )
        elif key == "d":
            stock = stock_action(self.game["legal_actions"])
            if stock:
                self._send(stock)
            else:  # the server is asked all the same, so that the engine says why not in its own words
                self._post(f"/games/{self.game['id']}/draw", {"expected_version": self.game["version"]})
        elif key == "h":
            self._hint()
        elif key == "u":
            if self.game["can_undo"]:
                self._send({"kind": "undo"})
            else:
                self.say(DAILY_IS_FINAL if self.game["deal"]["kind"] == "daily" else NOTHING_TO_UNDO, refused=True)
        elif key == "r":
            self.resigning = True
            self.ask("Resign this game? It ends it for good (y: resign, any other key: go on).")
        elif key == "m":
            name = self.query_one("#name", Input)
            name.display = True
            name.value = ""
            name.focus()

    def _choose(self, key: str) -> None:
        lit, self.choosing = self.choosing, None
        assert lit is not None
        index = ord(key) - ord("a") if len(key) == 1 else -1
        if 0 <= index < len(lit.moves):
            self._send(lit.moves[index])
        else:
            self.ask(self._moves_line())

    def _close_name(self) -> None:
        self.query_one("#name", Input).display = False
        self.set_focus(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._close_name()
        match = CARD.match(event.value)
        if match is None:
            self.say(
                f"{event.value.strip()!r} is not a card: a rank (A, 2-10, J, Q, K) and a suit (S, H, D, C), "
                "then a place if you like (F1-F4, cell)",
                refused=True,
            )
            return
        assert self.game is not None
        card = match["card"].upper().replace("10", "T")
        body: dict[str, Any] = {"card": card, "expected_version": self.game["version"]}
        if match["to"]:
            body["to"] = match["to"].upper() if match["to"].lower() != "cell" else "cell"
        self._post(f"/games/{self.game['id']}/moves", body)

    def on_input_blurred(self, event: Input.Blurred) -> None:
        event.input.display = False

    def key_escape(self) -> None:
        self._close_name()
        self.choosing, self.resigning = None, False
        self.ask(self._moves_line())

    def _send(self, action: Mapping[str, Any]) -> None:
        assert self.game is not None
        body = {"action": dict(action), "expected_version": self.game["version"]}
        self._post(f"/games/{self.game['id']}/actions", body)

    def _post(self, path: str, body: dict[str, Any]) -> None:
        self.busy = True
        self.run_worker(self._land(path, body), exclusive=True, group="server")

    async def _land(self, path: str, body: dict[str, Any]) -> None:
        try:
            answer = await self.call(self._post_or_reload, path, body)
            if answer is not None:
                game, note, appended = answer
                self._show(game)
                taken_back = next((e["data"]["action"] for e in appended if e["kind"] == "action_undone"), None)
                if taken_back is not None:
                    more = " u again goes further back." if game["can_undo"] else ""
                    self.say(f"Took back: {action_text(taken_back)}.{more}")
                else:
                    self.say(note or "", refused=bool(note))
        finally:
            self.busy = False

    def _post_or_reload(
        self, path: str, body: dict[str, Any]
    ) -> tuple[dict[str, Any], str | None, list[dict[str, Any]]]:
        """The game after the action and the events it appended; or, if the game moved on since it was shown,
        the game as it is now and a word that nothing was done."""
        assert self.game is not None
        try:
            reply = self.api.post(path, body, self.token)
            return reply["game"], None, reply["events"]
        except ApiError as error:
            if error.code != "version-conflict":
                raise
        return (
            self.api.get(f"/games/{self.game['id']}"),
            "The game moved on elsewhere (another window?): nothing was done; here it is now.",
            [],
        )

    def _hint(self) -> None:
        assert self.game is not None
        self.busy = True
        self.say("The solver is thinking...")
        self.run_worker(self._ask_hint(self.game["id"]), exclusive=True, group="server")

    async def _ask_hint(self, game_id: str) -> None:
        try:
            answer = await self.call(self.api.post, f"/games/{game_id}/hint", {}, self.token)
            if answer is not None:
                self._show(answer["game"])
                self.say(hint_text(answer["hint"]) + self._key_for(answer["hint"]["action"]))
        finally:
            self.busy = False

    def _key_for(self, action: Mapping[str, Any]) -> str:
        """Which key takes the hinted action."""
        if action["kind"] in ("deal", "redeal"):
            return "; press d"
        lit = next((lit for lit in self.lit if dict(action) in lit.moves), None)
        if lit is None:
            return ""
        if len(lit.moves) == 1:
            return f"; press {lit.number}"
        return f"; press {lit.number}, then {chr(ord('a') + lit.moves.index(dict(action)))}"


class EndPanel(ModalScreen[None]):
    """The end of a game: how it ended, and whether the deal could have been won, from the solver."""

    DEFAULT_CSS = """
    EndPanel { align: center middle; }
    EndPanel > Vertical { width: 72; height: auto; border: round $accent; padding: 1 2; background: $surface; }
    EndPanel.-ascii > Vertical { border: ascii $accent; }
    EndPanel #verdict { margin: 1 0; }
    """

    def __init__(self, seat: Seat, game: Mapping[str, Any]) -> None:
        super().__init__()
        self.seat = seat
        self.game = game

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(ending(self.game), id="ending")
            yield Static(figures(self.game, None), id="figures")
            yield Static("The solver is looking at the deal...", id="verdict")
            yield Static(
                f"Game {self.game['id']}\np replay it  n a new game  Esc look at the table  q quit", id="end-keys"
            )

    def on_mount(self) -> None:
        self.set_class(self.seat.faces.ascii, "-ascii")
        self.run_worker(self._analyse(), exclusive=True)
        self.run_worker(self._count_actions())

    async def _count_actions(self) -> None:
        actions, after = 0, 0
        while True:
            page, _ = await ask(self.seat.api.get, f"/games/{self.game['id']}/events?after={after}&limit=1000")
            if page is None:
                return  # the figures stay without the count: the panel says what it knows
            actions += sum(event["kind"] in COUNTED_ACTIONS for event in page["events"])
            if not page["events"] or page.get("next") is None:
                break
            after = page["events"][-1]["seq"]
        # The line that stood, as the browser's end panel counts it: each undo took one logged action back.
        self.query_one("#figures", Static).update(figures(self.game, actions - self.game.get("undos", 0)))

    async def _analyse(self) -> None:
        analysis, refusal = await ask(self.seat.api.get, f"/games/{self.game['id']}/analysis")
        self.query_one("#verdict", Static).update(
            verdict(analysis) if analysis is not None else f"No verdict from the solver just now: {refusal}"
        )

    def on_key(self, event: events.Key) -> None:
        event.stop()
        if event.key == "q":
            self.app.exit()
        elif event.key == "escape":
            self.dismiss()
        elif event.key == "p":
            self.seat.replay(str(self.game["id"]))
        elif event.key == "n":
            self.seat.play_next(self.game)
