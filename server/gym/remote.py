"""An episode as a real game on a server, through its public HTTP API: created with the episode's deal number,
played by the actions the server lists as legal, so that every episode is in the server's log and anyone can
verify it afterwards (GET /games/{id}/replay, osmosis verify). One keep-alive connection an environment."""

from __future__ import annotations

import http.client
import json
import uuid
from typing import Any
from urllib.parse import urlsplit

from ..rules import action_from_dict
from .spaces import RESIGN, index_of, observe_view


class ServerError(RuntimeError):
    """The server could not be reached, or answered what a game server does not."""


class RemoteGame:
    def __init__(self, server: str, preset: str, timeout: float) -> None:
        parts = urlsplit(server)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"server is an http:// or https:// base URL, not {server!r}")
        self._parts, self._prefix, self._timeout = parts, parts.path.rstrip("/"), timeout
        self._preset = preset
        self._connection: http.client.HTTPConnection | None = None
        self._game: dict[str, Any] | None = None
        self._legal: dict[int, dict[str, Any]] = {}

    def start(self, deal_number: int) -> None:
        status, game = self._call("POST", "/games", {"variant": self._preset, "deal_number": deal_number})
        if status != 201:
            raise ServerError(f"the server did not create the game: {status} {game.get('detail', game)}")
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
        status, answer = self._call("POST", path, body, self._token)
        if status != 200:
            return f"{answer.get('detail', answer)}"
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

    def _call(self, method: str, path: str, body: dict[str, Any], token: str | None = None
              ) -> tuple[int, dict[str, Any]]:
        # One key for both attempts: a retry whose first try did reach the server is answered, not done twice.
        headers = {"Content-Type": "application/json", "Idempotency-Key": str(uuid.uuid4()),
                   **({"Authorization": f"Bearer {token}"} if token else {})}
        for attempt in (1, 2):  # once more on a fresh connection, if the kept one was closed meanwhile
            try:
                connection = self._connect()
                connection.request(method, self._prefix + path, json.dumps(body), headers)
                response = connection.getresponse()
                data = response.read()
                return response.status, json.loads(data) if data else {}
            except (OSError, http.client.HTTPException) as error:
                self._connection = None
                if attempt == 2:
                    raise ServerError(f"cannot reach {self._parts.geturl()}: {error}") from None
            except ValueError:
                raise ServerError(f"{self._parts.geturl()} answered {path} with something other than JSON") from None
        raise AssertionError("unreachable")

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
            self._connection = kind(self._parts.hostname or "", self._parts.port, timeout=self._timeout)
        return self._connection
