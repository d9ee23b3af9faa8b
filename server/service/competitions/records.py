"""A competition's records as the store gives them: an entrant, and an entrant's row of the standings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from ...log.standings import Standing


@dataclass(frozen=True, slots=True)
class Entrant:
    competition_id: UUID
    player_id: UUID
    name: str
    kind: str
    entered_at: datetime
    game_id: UUID | None = None
    started_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class StandingsAt:
    """An entrant with their game's row (none before their start) and, once it ended, its finish as its write kept
    it, with the leaf index of its finish entry once the public log has it."""

    name: str
    kind: str
    game_id: UUID | None
    started_at: datetime | None
    struck: str | None
    status: str | None
    score: int | None
    version: int | None
    hints: int | None
    updated_at: datetime | None
    finished_status: str | None
    finished_score: int | None
    finished_actions: int | None
    finished_elapsed_ms: int | None
    finish_index: int | None

    def standing(self, limit_ms: int, now: datetime, closed: bool) -> Standing:
        """The entrant as the ranking counts them at `now`: a finished game as it finished; a game on, by its
        progress and its clock; no game, `entered` (at the close: timed out with nothing home)."""
        if self.game_id is None:
            return Standing(self.name, self.kind, "timed_out" if closed else "entered", struck=self.struck)
        if self.finished_status is not None:
            assert self.finished_score is not None and self.finished_actions is not None
            assert self.finished_elapsed_ms is not None
            return Standing(
                self.name,
                self.kind,
                self.finished_status,
                self.finished_score,
                self.finished_actions,
                self.finished_elapsed_ms,
                self.game_id,
                self.finish_index,
                self.struck,
            )
        assert self.started_at is not None and self.version is not None and self.hints is not None
        elapsed = max(0, min(limit_ms, (now - self.started_at) // timedelta(milliseconds=1)))
        actions = self.version - 1 - self.hints
        return Standing(
            self.name, self.kind, "playing", self.score or 0, actions, elapsed, self.game_id, None, self.struck
        )
