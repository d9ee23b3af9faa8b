"""An organizer's side of a competition: announcing it, reading it, its standings and results, and amending them."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

from ...game.callers import Caller
from ...game.change import Reply
from ...game.commands import Idempotency
from ...game.competitions import BadSchedule, CompetitionRecord, scheduled
from ...game.document import to_json
from ...game.records import PublicEntry
from ...log import competition_entries as ce
from ...log.standings import ranked, standings_root
from ...rules import InvalidInput, Rules, commitment
from ...solver.winnable import first_winnable
from ..errors import (
    CompetitionNotClosed,
    Forbidden,
    IdempotencyConflict,
    NotEntered,
    ResultsFinal,
    TooManyCompetitions,
)
from ..games.idempotency import answer_after_race, kept_answer, kept_reply
from ..outcomes import Answered
from ..players import names
from ..players.tokens import ORGANIZE, require
from ..ports import KeptResponses, Players, SolverTime
from ..sources import Sources
from .ports import CompetitionTables
from .records import StandingsAt
from .views import competition_view, progress_rows, result_rows

MAX_OPEN_COMPETITIONS = 20
"""Competitions an organizer may have announced and not yet closed: each holds a seed, a field and the referee's
time; more wait until one closes (409 too-many-competitions)."""
RANKINGS_KEPT = 32


class OrganizingStore(CompetitionTables, Players, KeptResponses, Protocol):
    """The ports organizing uses: the competitions, the players an amendment names, the replies kept for retries."""


@dataclass(frozen=True, slots=True)
class Announcement:
    """What an organizer asks for (POST /competitions)."""

    name: str
    format: str
    rules: Rules
    entrants: str
    starts_at: datetime
    limit_s: int
    ends_at: datetime | None = None
    winnable: bool = False
    max_entrants: int = 1_000
    hints: str = "off"
    review_s: int = 0


class Organizing:
    def __init__(self, store: OrganizingStore, solver_time: SolverTime, sources: Sources) -> None:
        self._store = store
        self._solver_time = solver_time
        self._sources = sources
        self._ranked: dict[tuple[UUID, str], str] = {}
        """Closed competitions' result rows, by competition and standings root: the latest RANKINGS_KEPT."""
        self._ranked_lock = threading.Lock()

    def announce(self, caller: Caller, asked: Announcement, idempotency: Idempotency | None = None) -> Answered[None]:
        """The competition announced: its sealed deal committed to and its terms in the public log; for a retry of
        a request with the same Idempotency-Key, its first answer (one competition, however often it is sent)."""
        require(caller, ORGANIZE)
        scope = f"player:{caller.player.id}:competitions"
        if idempotency is not None and (first := kept_answer(self._store, scope, idempotency)) is not None:
            return first
        if self._store.open_competitions_of(caller.player.id) >= MAX_OPEN_COMPETITIONS:
            raise TooManyCompetitions(
                f"you have {MAX_OPEN_COMPETITIONS} competitions not closed yet, as many as an organizer may"
            )
        now = self._sources.clock()
        try:
            terms = scheduled(
                name=asked.name,
                format_name=asked.format,
                rules=asked.rules,
                entrants=asked.entrants,
                starts_at=asked.starts_at,
                ends_at=asked.ends_at,
                limit_s=asked.limit_s,
                now=now,
                winnable=asked.winnable,
                max_entrants=asked.max_entrants,
                hints=asked.hints,
                review_s=asked.review_s,
            )
        except BadSchedule as refused:
            raise InvalidInput(str(refused)) from None
        competition_id, seed = self._sources.new_id(), self._sources.new_server_seed()
        deal: dict[str, Any] = {"kind": "competition", "competition_id": str(competition_id)}
        if terms.winnable:
            deal["winnable"] = self._solver_time(lambda: first_winnable(terms.rules, seed, "")).record
        record = CompetitionRecord(competition_id, caller.owner, terms, commitment(seed), deal, now)
        announced = ce.announced(competition_id, now, terms.announced(caller.owner.named(), record.commitment))
        reply = Reply(201, to_json(competition_view(record, now)))
        entry = PublicEntry(competition_id, ce.COMPETITION_ANNOUNCED, announced)
        try:
            self._store.announce_competition(record, seed, entry, kept_reply(scope, idempotency, reply))
        except IdempotencyConflict:
            return answer_after_race(self._store, scope, idempotency)
        return Answered(reply, None)

    def competition(self, competition_id: UUID) -> dict[str, Any]:
        return competition_view(self._store.load_competition(competition_id), self._sources.clock())

    def competitions(
        self, limit: int, status: str | None, before: tuple[datetime, UUID] | None
    ) -> tuple[list[dict[str, Any]], tuple[datetime, UUID] | None]:
        """A page, the latest start first, and where the next begins (None on the last page)."""
        now = self._sources.clock()
        found = self._store.list_competitions(limit + 1, now, status, before)
        page = found[:limit]
        following = (page[-1].terms.starts_at, page[-1].id) if len(found) > limit else None
        return [competition_view(record, now) for record in page], following

    def standings(self, competition_id: UUID) -> dict[str, Any]:
        """Everyone's progress by the ranking rule: name, kind, status, cards home, actions and time; no game, no
        card, before the close or after."""
        record = self._store.load_competition(competition_id)
        now = self._sources.clock()
        rows = ranked(self._standings(record, now))
        return {"competition": competition_view(record, now), "standings": progress_rows(rows)}

    def results(self, competition_id: UUID) -> str:
        """The ranked rows of a closed competition, each with its game, and the root the public log holds, as JSON
        text. The rows change only with an amendment, which changes the root: they are ranked and encoded once for
        each root."""
        record = self._store.load_competition(competition_id)
        now = self._sources.clock()
        root = record.standings_root
        if record.closed_at is None or root is None:
            raise CompetitionNotClosed(
                f"the competition closes at {record.terms.ends_at.isoformat()}: its results are shown once it has"
            )
        with self._ranked_lock:
            rows = self._ranked.get((competition_id, root))
        if rows is None:
            rows = to_json(result_rows(ranked(self._standings(record, now))))
            with self._ranked_lock:
                self._ranked[(competition_id, root)] = rows
                while len(self._ranked) > RANKINGS_KEPT:
                    self._ranked.pop(next(iter(self._ranked)))
        head = to_json({"competition": competition_view(record, now), "final": record.status(now) == "final"})
        return f'{head[:-1]},"standings_root":"{root}","results":{rows}}}'

    def amend(self, caller: Caller, competition_id: UUID, player: str, action: str, reason: str) -> str:
        """Disqualify an entrant (their row struck, with its reason) or reinstate them, while the results are open
        to review; the amendment and the new root are appended to the public log, never rewritten."""
        require(caller, ORGANIZE)
        record = self._store.load_competition(competition_id)
        if record.organizer.id != caller.player.id:
            raise Forbidden("only the competition's organizer amends its results")
        now = self._sources.clock()
        status = record.status(now)
        if status in ("open", "running"):
            raise CompetitionNotClosed("results are amended after the close, within its review time")
        if status == "final":
            raise ResultsFinal(f"the review time ended {record.terms.review_s} s after the close: the results stand")
        entrant = self._store.load_player(names.looked_up(player))
        if self._store.load_entrant(competition_id, entrant.id) is None:
            raise NotEntered(f"{player} has not entered this competition")
        struck = reason if action == "disqualify" else None
        named = {"name": entrant.name, "kind": entrant.kind}

        def amended(rows: list[StandingsAt]) -> tuple[str, PublicEntry]:
            root = standings_root(ranked([row.standing(record.terms.limit_ms, now, True) for row in rows]))
            entry = ce.result_amended(competition_id, now, named, action, reason, root)
            return root, PublicEntry(competition_id, ce.COMPETITION_RESULT_AMENDED, entry)

        self._store.amend_competition(competition_id, entrant.id, struck, amended)
        return self.results(competition_id)

    def _standings(self, record: CompetitionRecord, now: datetime) -> list[Any]:
        closed = record.closed_at is not None
        return [row.standing(record.terms.limit_ms, now, closed) for row in self._store.load_standings(record.id)]
