"""An episode as a real game on a server, through its public HTTP API: created with the episode's deal number,
played by the actions the server lists as legal, so that every episode is in the server's log and anyone can
verify it afterwards (GET /games/{id}/replay, osmosis verify). One keep-alive connection an environment."""

from __future__ import annotations

from typing import Any

from ..client import Api, ApiError, Unreachable
from ..rules import action_from_dict
from .spaces import RESIGN, index_of, observe_view

ServerError = Unreachable
"""The server could not be reached, or answered what a game server does not (the client's Unreachable)."""


class RemoteGame:
    def __init__(self, server: str, preset: str, timeout: float) -> None:
        self._api = Api(server, timeout)
        self._preset = preset
        self._game: dict[str, Any] | None = None
        self._legal: dict[int, dict[str, Any]] = {}

    def start(self, deal_number: int) -> None:
        try:
            game = self._api.post("/games", {"variant": self._preset, "deal_number": deal_number})
        except ApiError as error:
            raise ServerError(f"the server did not create the game: {error.status} {error.detail}") from None
        self._token = game["player_token"]
        self._show(game)

    def act(self, index: int) -> str | None:
        game = self._current
        if index == RESIGN and game["status"] == "playing":
            path, body = f"/games/{game['id']}/resign", {}
        elif index in self._legal:
            path, body = f"/games/{game['id']}/actions", {"action": self._legal[index]}
        else:
            return "not a legal action here (the server lists the legal ones)" if game["status"] == "playing" \
                else "the game is over: no further action is accepted"
        try:
            answer = self._api.post(path, body, self._token)
        except ApiError as error:
            return error.detail
        self._show(answer["game"])
        return None

    @property
    def status(self) -> str:
        return str(self._current["status"])

    @property
    def cards_home(self) -> int:
        return sum(len(foundation["cards"]) for foundation in self._current["state"]["foundations"])

    def observation(self) -> dict[str, Any]:
        return observe_view(self._current["state"])

    def legal(self) -> list[int]:
        return list(self._legal)

    def text(self) -> str:
        state = self._current["state"]
        lines = [f"game {self._current['id']} ({self._preset})"]
        for p, pile in enumerate(state["reserves"]):
            lines.append(f"R{p + 1} " + " ".join(["##"] * pile["face_down"] + pile["face_up"]))
        for k, foundation in enumerate(state["foundations"]):
            lines.append(f"F{k + 1} " + (" ".join(foundation["cards"]) or "-"))
        lines.append(f"stock {state['stock_count']} cards")
        lines.append("waste " + (" ".join(state["waste"]) or "-"))
        return "\n".join(lines)

    @property
    def game_id(self) -> str | None:
        return str(self._current["id"])

    def _show(self, game: dict[str, Any]) -> None:
        self._game = game
        # The server's own legal actions (they name each card's source, which the API asks for), by number.
        self._legal = {index_of(action_from_dict(action)): action for action in game["legal_actions"]}

    @property
    def _current(self) -> dict[str, Any]:
        if self._game is None:
            raise RuntimeError("call reset() before step()")
        return self._game
