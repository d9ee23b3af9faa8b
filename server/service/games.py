"""The use cases, as the HTTP layer and the command line see them: GameService. Creating games and sealed
deals is here; acting on a game in acting.py, reading in queries.py. No HTTP and no SQL: the ports
(ports.py) are given to it, and a caller that answers clients passes its way of answering (outcomes.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any
from uuid import UUID, uuid4

from ..log import events as ev
from ..log import public_entries
from ..rules import InvalidInput, Rules, commitment, deal_number_seed, layout, opening, shuffled_deck, to_text
from ..solver.winnable import first_winnable
from .acting import Acting, ChangeSink, creation_entry
from .documents import daily_view, rendered, sealed_deal_view
from .errors import IdempotencyConflict, IdenticalRequestFinished, SealedDealUsed, Unauthorized
from .idempotency import (
    FORGOTTEN_A_TURN,
    KEPT_FOR,
    Idempotency,
    answer_after_race,
    kept_answer,
    kept_reply,
    work_of,
)
from .outcomes import Answer, Answered, GameMade, SealedDealMade
from .players.accounts import Accounts
from .players.boards import Boards
from .players.daily import Days, closes_at
from .players.profiles import Profiles
from .players.stats import ABANDONED_AFTER
from .players.tokens import PLAY, require, token_hash_of
from .ports import SolverTime, Store, at_once
from .queries import GameQueries
from .recent_games import Known, RecentGames
from .records import Caller, GameRecord, GameSecret, PublicEntry, SealedDeal


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _new_server_seed() -> bytes:
    return secrets.token_bytes(32)


def _new_token() -> str:
    return secrets.token_urlsafe(32)


class GameService(Acting, GameQueries):
    _store: Store

    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime] = _utc_now,
        new_server_seed: Callable[[], bytes] = _new_server_seed,
        new_token: Callable[[], str] = _new_token,
        new_id: Callable[[], UUID] = uuid4,
        recent_games: int = 1024,
        solver_time: SolverTime = at_once,
    ) -> None:
        """`recent_games`: how many games this process keeps as it last wrote them (0: none), so that
        their next action needs no read (see RecentGames). `solver_time`: where the solver runs."""
        super().__init__(store, solver_time)
        self.changes: ChangeSink | None = None
        """Told of every game created and every action that lands here (the live hub)."""
        self._recent = RecentGames(recent_games)
        self._clock = clock
        self._new_server_seed = new_server_seed
        self._new_token = new_token
        self._new_id = new_id
        self.accounts = Accounts(store, clock, new_id)
        """Players and their API tokens."""
        self.days = Days(store, clock, new_server_seed)
        """The daily deals."""
        self.profiles = Profiles(store, clock, self._valid)
        """Players' pages and statistics."""
        self.boards = Boards(store, clock)
        """The daily and all-time boards."""

    @property
    def store(self) -> Store:
        """The store it runs on: the composition root gives the live hub the same."""
        return self._store

    def create_sealed_deal(self, idempotency: Idempotency | None,
                           answer: Answer[SealedDealMade] | None = None) -> Answered[SealedDealMade]:
        """A fresh secret server seed, of which only the commitment is shown until its game is over."""
        scope = "deals"
        if idempotency is not None and (first := kept_answer(self._store, scope, idempotency)) is not None:
            return first
        server_seed = self._new_server_seed()
        made = SealedDealMade(SealedDeal(self._new_id(), self._clock(), server_seed, commitment(server_seed), None))
        reply = answer(made) if answer is not None else None
        logged = PublicEntry(made.deal.id, public_entries.DEAL_SEALED,
                             public_entries.deal_sealed(made.deal.id, made.deal.commitment))
        try:
            self._store.create_sealed_deal(made.deal, kept_reply(scope, idempotency, reply), logged)
        except IdempotencyConflict:
            return answer_after_race(self._store, scope, idempotency)
        return Answered(reply, made)

    def get_sealed_deal(self, deal_id: UUID) -> dict[str, Any]:
        return sealed_deal_view(self._store.load_sealed_deal(deal_id))

    def create_game(
        self,
        rules: Rules,
        deal_number: int | None = None,
        idempotency: Idempotency | None = None,
        sealed_deal_id: UUID | None = None,
        client_seed: str = "",
        winnable: bool = False,
        answer: Answer[GameMade] | None = None,
        owner: Caller | None = None,
        daily: bool = False,
    ) -> Answered[GameMade]:
        """A game from a public deal number, a sealed deal and the client's seed, or a fresh secret seed;
        `winnable`: the first of the seeds' candidate deals the solver proves winnable (solver.winnable).
        `owner`: the player calling with their API token, whose game it is. `daily`: the owner's attempt at
        today's deal of the preset (players/daily.py)."""
        scope = "games" if owner is None else f"player:{owner.player.id}:games"
        if owner is not None:
            require(owner, PLAY)
        if idempotency is not None and (first := kept_answer(self._store, scope, idempotency)) is not None:
            return first
        deal: dict[str, Any]
        day = None
        if daily:
            if owner is None:
                raise Unauthorized("the daily deal is played as a player: send your API token (POST /players)")
            if rules.preset_name is None:
                raise InvalidInput("the daily deal is dealt for each preset: name a variant, not custom rules")
            today = self.days.deal(rules.preset_name)
            day, server_seed, deal = today.day, today.server_seed, {"kind": "daily", "day": today.day.isoformat()}
        elif sealed_deal_id is not None:
            sealed = self._store.load_sealed_deal(sealed_deal_id)
            if sealed.game_id is not None:
                raise SealedDealUsed(f"sealed deal {sealed_deal_id} has already made a game")
            server_seed, deal = sealed.server_seed, {"kind": "sealed", "sealed_deal_id": str(sealed_deal_id)}
        elif deal_number is not None:
            server_seed, deal = deal_number_seed(deal_number), {"kind": "number", "deal_number": deal_number}
        else:
            server_seed, deal = self._new_server_seed(), {"kind": "random"}
        if winnable:
            try:
                chosen = self._solver_time(lambda: first_winnable(rules, server_seed, client_seed),
                                           once_for=work_of(scope, idempotency))
            except IdenticalRequestFinished:
                # The first request with this key has finished: its answer, or (if it kept none) this one's.
                if idempotency is not None and (first := kept_answer(self._store, scope, idempotency)) is not None:
                    return first
                chosen = self._solver_time(lambda: first_winnable(rules, server_seed, client_seed))
            state, deal = chosen.opening, {**deal, "winnable": chosen.record}
        else:
            state = opening(rules, layout(shuffled_deck(server_seed, client_seed), rules))
        commit = commitment(server_seed)
        game_id = self._new_id()
        player = None if owner is None else owner.owner.named()
        events = ev.chain(commit, 1, [ev.game_created(game_id, rules, deal, commit, state, player)])
        now = self._clock()
        record = rendered(GameRecord(
            id=game_id,
            created_at=now,
            updated_at=now,
            rules=rules.to_dict(),
            variant=rules.preset_name,
            deal=deal,
            commitment=commit,
            version=1,
            status=state.status.value,
            score=state.cards_on_foundations,
            head_hash=events[-1].hash,
            hints=0,
            document="",
            owner=None if owner is None else owner.owner,
            daily=day,
        ), state)
        token = self._new_token()
        secret = GameSecret(server_seed, client_seed, to_text(state), token_hash_of(token))
        made = GameMade(record, token)
        reply = answer(made) if answer is not None else None
        # A daily game enters the public log when its day closes (acting.py): nothing of it shows before.
        logged = None if daily else creation_entry(record)
        try:
            self._store.create_game(record, secret, events, kept_reply(scope, idempotency, reply, token),
                                    sealed_deal_id, logged)
        except IdempotencyConflict:
            return answer_after_race(self._store, scope, idempotency)
        self._keep_recent(Known(record, secret, state))
        self._tell(record, events)
        return Answered(reply, made, token)

    def close_days(self, batch: int = 100) -> int:
        """Open today's daily deals if no one has yet, and close the days that have ended: each of their daily
        games not closed yet is ended and revealed (close_daily_game). How many games it closed; at most `batch`
        a call, so that a turn stays short (the next turn goes on)."""
        self.days.deals()
        return sum(self.close_daily_game(game_id)
                   for game_id in self._store.unrevealed_daily_games(self.days.today(), batch))

    def upkeep(self) -> int:
        """The server's own chores, a turn at a time: open today's daily deals, close the days that have ended,
        verify the results of players' finished games so that they count, forget the replies kept for retries
        longer than KEPT_FOR. How much it did (0: nothing waits)."""
        forgotten = self._store.forget_responses(self._clock() - KEPT_FOR, FORGOTTEN_A_TURN)
        return self.close_days() + self.close_left_games() + self.profiles.verify_results() + forgotten

    def close_left_games(self, batch: int = 100) -> int:
        """End the players' games left without an action for ABANDONED_AFTER (close_left_game), `batch` a turn."""
        return sum(self.close_left_game(game_id)
                   for game_id in self._store.left_games(self._clock() - ABANDONED_AFTER, batch))

    def _valid(self, game_id: UUID) -> bool:
        verdict = self.verification(game_id)
        return bool(verdict["valid"] and verdict["complete"])

    def daily(self, day: date | None, viewer: Caller | None) -> dict[str, Any]:
        """The deals of `day` (today when None) as GET /daily shows them: commitments, the seeds once the day
        has closed, and the viewer's own games of them."""
        deals = self.days.deals(day)
        day = day or self.days.today()
        closed = self.days.closed(day)
        mine = {} if viewer is None else self._store.daily_games_of(viewer.player.id, day)
        return daily_view(day, closes_at(day), closed, deals, mine)
