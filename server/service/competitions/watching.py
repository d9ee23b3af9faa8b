"""A competition watched live: its standings read at most once a WATCH_SECONDS per competition and process, however
many spectators follow it, and told as what changed since a spectator's last look (`changes`): who entered,
withdrew, started, made progress, finished or timed out, and the close and every amendment. Progress only: no game,
no card."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any
from uuid import UUID

from ...game.document import to_json
from .organizing import Organizing

WATCH_SECONDS = 1.0
"""How stale the standings a spectator is told may be: one read a second per competition and process."""
_FINISHED = {"won": "finished", "lost": "finished", "resigned": "finished", "timed_out": "timed_out"}
EVENTS = ("entered", "withdrawn", "started", "progress", "finished", "timed_out", "closed", "amended")
"""What a spectator is told, after the standings."""


class Watching:
    def __init__(self, organizing: Organizing, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._organizing = organizing
        self._monotonic = monotonic
        self._read: dict[UUID, tuple[float, dict[str, Any], str]] = {}
        self._lock = threading.Lock()

    def standings(self, competition_id: UUID) -> dict[str, Any]:
        """The competition and its standings, as read within the last WATCH_SECONDS."""
        return self._reading(competition_id)[1]

    def standings_json(self, competition_id: UUID) -> str:
        """The same, as JSON text: encoded once a reading, however many read it."""
        return self._reading(competition_id)[2]

    def _reading(self, competition_id: UUID) -> tuple[float, dict[str, Any], str]:
        now = self._monotonic()
        with self._lock:
            read = self._read.get(competition_id)
            if read is not None and now - read[0] < WATCH_SECONDS:
                return read
        standings = self._organizing.standings(competition_id)
        fresh = (now, standings, to_json(standings))
        with self._lock:
            self._read[competition_id] = fresh
            for stale in [key for key, (at, _, _) in self._read.items() if now - at >= WATCH_SECONDS]:
                del self._read[stale]
        return fresh


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """What changed from one look at the standings to the next, in order, each as (event, data): `entered`,
    `withdrawn`, `started`, `progress`, `finished` and `timed_out` with the entrant's row; `closed` and `amended`
    with the competition."""
    told: list[tuple[str, dict[str, Any]]] = []
    old = {row["player"]["name"]: row for row in before["standings"]}
    new = {row["player"]["name"]: row for row in after["standings"]}
    for name, row in new.items():
        was = old.get(name)
        if was is None:
            told.append(("entered", row))
        elif was["status"] != row["status"]:
            told.append((_FINISHED.get(row["status"], "started" if row["status"] == "playing" else "progress"), row))
        elif (was["score"], was["actions"]) != (row["score"], row["actions"]):
            told.append(("progress", row))
    told += [("withdrawn", row) for name, row in old.items() if name not in new]
    competition, was = after["competition"], before["competition"]
    if was["closed_at"] is None and competition["closed_at"] is not None:
        told.append(("closed", competition))
    elif was["standings_root"] != competition["standings_root"]:
        told.append(("amended", competition))
    return told
