"""The game's own refusals: an action stated for a version the game has passed, or on a daily game whose day has
closed. The rules' refusals (an illegal action, a game over) are the rules engine's (server/rules/errors.py)."""

from __future__ import annotations


class GameRefused(Exception):
    """A command the game refuses; its message says why, in words a client can read."""


class VersionConflict(GameRefused):
    """Another action was appended first: the version this one was computed against is stale."""


class PositionMoved(VersionConflict):
    """An action landed while a hint for the position before it was worked out."""


class DayClosed(GameRefused):
    """The day of a daily game has closed: its game is ended by the close, and takes no more actions."""
