"""A player's side of a competition: entering it, withdrawing before their start, and their one game of its deal."""

from __future__ import annotations

from typing import Protocol
from uuid import UUID

from ...game.callers import Caller
from ...game.change import Reply
from ...game.competitions import CompetitionFull, StartClosed, check_entry, clock_for
from ...game.deciding import Dealt, created
from ...game.records import PublicEntry
from ...log import competition_entries as ce
from ...log.deal_record import game_opening
from ..errors import AlreadyStarted, NotEntered, NotYetInLog
from ..games.acting import ChangeSink, tell
from ..players.tokens import PLAY, require, token_hash_of
from ..ports import GameReads
from ..sources import Sources
from .ports import CompetitionTables
from .records import Entrant


class EnteringStore(CompetitionTables, GameReads, Protocol):
    """The ports entering uses: the competitions, and the games their entrants play."""


class Entering:
    def __init__(self, store: EnteringStore, changes: ChangeSink | None, sources: Sources) -> None:
        """`changes`: told of every entrant's game made here (the live hub; the game stays its player's alone)."""
        self._store = store
        self._changes = changes
        self._sources = sources

    def enter(self, caller: Caller, competition_id: UUID) -> None:
        """The player in the field, their entry logged; refused after the entries close, to a player of the other
        kind or who joined after the announcement, to a full field and to an entrant already in it."""
        require(caller, PLAY)
        competition = self._store.load_competition(competition_id)
        now = self._sources.clock()
        joined_before = self._store.joined_before(caller.player.id, competition_id)
        check_entry(competition.terms, now, caller.player.kind, joined_before is not False, competition.entrants)
        if joined_before is None:
            raise NotYetInLog("your player_joined entry is not in the public log yet: enter again in a few seconds")
        owner = caller.owner
        entry = PublicEntry(competition_id, ce.COMPETITION_ENTERED, ce.entered(competition_id, now, owner.named()))
        entrant = Entrant(competition_id, owner.id, owner.name, owner.kind, now)
        if not self._store.enter_competition(entrant, entry):  # others filled the field meanwhile
            raise CompetitionFull(f"the field is full: {competition.terms.max_entrants:,} entrants")

    def withdraw(self, caller: Caller, competition_id: UUID) -> None:
        """The entrant out of the field, their withdrawal logged: only before their clock starts."""
        require(caller, PLAY)
        competition = self._store.load_competition(competition_id)
        entrant = self._entrant(caller, competition_id)
        now = self._sources.clock()
        started = entrant.game_id is not None or (
            competition.terms.format == "race" and now >= competition.terms.starts_at
        )
        if started:
            raise AlreadyStarted("your clock has started: your game counts, as it ends")
        owner = caller.owner
        entry = ce.withdrawn(competition_id, now, owner.named())
        if not self._store.withdraw_from_competition(
            competition_id, owner.id, PublicEntry(competition_id, ce.COMPETITION_WITHDRAWN, entry)
        ):
            raise AlreadyStarted("your clock has started: your game counts, as it ends")

    def game(self, caller: Caller, competition_id: UUID) -> Reply:
        """The entrant's game of the deal: made at their first call from the start (201), the same one after
        (200), however many calls come at once. A race's clock starts at its start, fetched or not."""
        require(caller, PLAY)
        competition = self._store.load_competition(competition_id)
        entrant = self._entrant(caller, competition_id)
        if entrant.game_id is not None:
            return self._existing(entrant.game_id)
        now = self._sources.clock()
        clock = clock_for(competition.terms, competition_id, now)
        seed, rules = self._store.load_competition_seed(competition_id), competition.terms.rules
        dealt = Dealt(seed, "", competition.deal, game_opening(rules, seed, "", competition.deal), clock=clock)
        token = self._sources.new_game_token()
        change = created(rules, dealt, caller.owner, self._sources.new_id(), (token, token_hash_of(token)), now)
        if not self._store.create_competition_game(change, competition_id, entrant.player_id):
            claimed = self._entrant(caller, competition_id).game_id
            if claimed is None:  # the close came first: it took the competition's row while this start was on its way
                raise StartClosed("the competition closed before this game could start")
            return self._existing(claimed)
        tell(self._changes, change)
        return change.reply

    def _existing(self, game_id: UUID) -> Reply:
        return Reply(200, self._store.load_document(game_id)[1])

    def _entrant(self, caller: Caller, competition_id: UUID) -> Entrant:
        entrant = self._store.load_entrant(competition_id, caller.player.id)
        if entrant is None:
            raise NotEntered("you have not entered this competition")
        return entrant
