"""The game's own refusals: an action stated for a version the game has passed, on a daily game whose day has
closed, or one a competition game does not take (after its clock ran out, an undo, a hint where hints are off). The
rules' refusals (an illegal action, a game over) are the rules engine's (server/rules/errors.py)."""

from __future__ import annotations


class GameRefused(Exception):
    """A command the game refuses; its message says why, in words a client can read."""


class VersionConflict(GameRefused):
    """Another action was appended first: the version this one was computed against is stale."""


class PositionMoved(VersionConflict):
    """An action landed while a hint for the position before it was worked out."""


class DayClosed(GameRefused):
    """The day of a daily game has closed: its game is ended by the close, and takes no more actions."""


class ClockExpired(GameRefused):
    """A competition game's clock has run out: it takes no more actions (the referee ends it as timed out)."""


class UndoInCompetition(GameRefused):
    """A competition game takes back no action."""


class HintsOff(GameRefused):
    """A competition whose organizer set hints off gives none."""
