"""An episode as a real game on a server, through its public HTTP API: created with the episode's deal number,
played by the actions the server lists as legal, so that every episode is in the server's log and anyone can
verify it afterwards (GET /games/{id}/replay, osmosis verify). One keep-alive connection an environment.

Only the rules refuse a step (409 `illegal-action` or `game-over`: a step then changes nothing, as in process);
a 429 or 503 is waited out by the client (Retry-After, the same Idempotency-Key), and any other answer, or no
answer, raises ServerError: a step is never silently lost."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..client import Api, ApiError, Unreachable
from ..rules import Action, Move, action_from_dict
from .spaces import RESIGN, index_of, observe_view

RULES_REFUSALS = ("illegal-action", "game-over")


class ServerError(RuntimeError):
    """The server could not be reached, refused the request for another reason than the rules, or answered what
    a game server does not."""


@contextmanager
def _server_errors(doing: str) -> Iterator[None]:
    try:
        yield
    except ApiError as error:
        raise ServerError(f"the server did not {doing}: {error.status} {error.code or ''} {error.detail}") from None
    except Unreachable as error:
        raise ServerError(str(error)) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise ServerError(f"the server's answer when asked to {doing} is not a game: {error!r}") from None


class RemoteGame:
    def __init__(self, server: str, preset: str, timeout: float) -> None:
        self._api = Api(server, timeout)
        self._preset = preset
        self._game: dict[str, Any] | None = None
        self._legal: dict[int, dict[str, Any]] = {}

    def start(self, deal_number: int) -> None:
        with _server_errors("create the game"):
            game = self._api.post("/games", {"variant": self._preset, "deal_number": deal_number})
            self._token = str(game["player_token"])
            self._show(game)

    def act(self, index: int) -> str | None:
        game = self._current
        if index == RESIGN and game["status"] == "playing":
            path, body = f"/games/{game['id']}/resign", {}
        elif index in self._legal:
            path, body = f"/games/{game['id']}/actions", {"action": self._legal[index]}
        else:
            return (
                "not a legal action here (the server lists the legal ones)"
                if game["status"] == "playing"
                else "the game is over: no further action is accepted"
            )
        with _server_errors("take the action"):
            try:
                answer = self._api.post(path, body, self._token)
            except ApiError as error:
                if error.status == 409 and error.code in RULES_REFUSALS:
                    return error.detail
                raise
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
        # The server's own legal actions (they name each card's source, which the API asks for), by number; the
        # whole answer read once here, so that a malformed one is refused before it is kept.
        legal = {index_of(_listed(action)): action for action in game["legal_actions"]}
        observe_view(game["state"])
        if not isinstance(game["id"], str) or game["status"] not in ("playing", "won", "lost", "resigned"):
            raise ValueError("its id or status is not a game's")
        self._game, self._legal = game, legal

    @property
    def _current(self) -> dict[str, Any]:
        if self._game is None:
            raise RuntimeError("call reset() before step()")
        return self._game


def _listed(action: dict[str, Any]) -> Action:
    """A legal action as the server lists it: a move names its target."""
    parsed = action_from_dict(action)
    if isinstance(parsed, Move) and parsed.target is None:
        raise ValueError(f"a legal move without its target: {action!r}")
    return parsed
