"""Where an episode's game is played: in this process by the rules engine (LocalGame), or on a server over
its public HTTP API (RemoteGame in remote.py), each episode then a real game in its log. The environment
sees either through this one face."""

from __future__ import annotations

from typing import Any, Protocol

from ..rules import (
    GameState,
    RulesError,
    apply,
    legal_actions,
    numbered_opening,
    preset,
    public_text,
)
from .spaces import action_of, index_of, observe


class Game(Protocol):
    @property
    def status(self) -> str: ...

    @property
    def cards_home(self) -> int: ...

    def start(self, deal_number: int) -> None: ...

    def act(self, index: int) -> str | None:
        """Take the action numbered `index`: None, or why the rules refused it (then nothing changed)."""
        ...

    def observation(self) -> dict[str, Any]: ...

    def legal(self) -> list[int]:
        """The legal actions' numbers but resigning, in the engine's order."""
        ...

    def text(self) -> str: ...

    @property
    def game_id(self) -> str | None:
        """The game's id on the server, for a remote game."""
        ...


class LocalGame:
    def __init__(self, preset_name: str) -> None:
        self._rules = preset(preset_name)
        self._state: GameState | None = None

    def start(self, deal_number: int) -> None:
        self._state = numbered_opening(self._rules, deal_number)

    def act(self, index: int) -> str | None:
        try:
            self._state = apply(self._position, action_of(index))
        except RulesError as error:
            return str(error)
        return None

    @property
    def status(self) -> str:
        return self._position.status.value

    @property
    def cards_home(self) -> int:
        return self._position.cards_on_foundations

    def observation(self) -> dict[str, Any]:
        return observe(self._position)

    def legal(self) -> list[int]:
        return [index_of(action) for action in legal_actions(self._position)]

    def text(self) -> str:
        return public_text(self._position)

    @property
    def game_id(self) -> str | None:
        return None

    @property
    def _position(self) -> GameState:
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        return self._state
