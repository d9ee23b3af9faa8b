"""Creating games: from a public deal number, a sealed deal and the client's seed, today's daily deal, or a fresh
secret seed; winnable deals through the solver. A `NewGame` command in (game/commands.py), the game's creation out
(game/deciding.py). No HTTP and no SQL: the ports (ports.py) are given to it."""

from __future__ import annotations

from typing import Any, Protocol

from ...game.change import Change
from ...game.commands import FreshDeal, FromSealedDeal, NewGame, NumberedDeal, TodaysDeal
from ...game.deciding import Dealt, created
from ...rules import InvalidInput, deal_number_seed, layout, opening, shuffled_deck
from ...solver.winnable import first_winnable
from ..daily import Days
from ..errors import IdempotencyConflict, IdenticalRequestFinished, SealedDealUsed, Unauthorized
from ..outcomes import Answered
from ..players.tokens import PLAY, require, token_hash_of
from ..ports import GameWrites, KeptResponses, SealedDeals, SolverTime
from ..sources import Sources
from .acting import ChangeSink, keep_recent, tell
from .idempotency import answer_after_race, kept_answer, kept_reply, work_of
from .recent_games import RecentGames


class CreatingStore(GameWrites, SealedDeals, KeptResponses, Protocol):
    """The ports creating a game uses: the game's write, the sealed deal it claims, the replies kept for retries."""


class Creating:
    def __init__(
        self,
        store: CreatingStore,
        days: Days,
        recent: RecentGames,
        changes: ChangeSink | None,
        solver_time: SolverTime,
        sources: Sources,
    ) -> None:
        """`recent`: the games this process keeps as it last wrote them (shared with Acting), `changes`: told of
        every game created here (the live hub)."""
        self._store = store
        self._days = days
        self._recent = recent
        self._changes = changes
        self._solver_time = solver_time
        self._sources = sources

    def handle(self, new: NewGame) -> Answered[Change]:
        """The game made, or, for a retry of a request with the same Idempotency-Key, its first answer."""
        owner, idempotency = new.owner, new.idempotency
        scope = creation_scope(new)
        if owner is not None:
            require(owner, PLAY)
        if idempotency is not None and (first := kept_answer(self._store, scope, idempotency)) is not None:
            return first
        seeds = self._seeds(new)
        if isinstance(seeds, Answered):
            return seeds
        token = self._sources.new_game_token()
        now = self._sources.clock()
        change = created(
            new.rules,
            seeds,
            None if owner is None else owner.owner,
            self._sources.new_id(),
            (token, token_hash_of(token)),
            now,
        )
        sealed_deal_id = new.deal.deal_id if isinstance(new.deal, FromSealedDeal) else None
        try:
            self._store.create_game(change, kept_reply(scope, idempotency, change.reply, token), sealed_deal_id)
        except IdempotencyConflict:
            return answer_after_race(self._store, scope, idempotency)
        keep_recent(self._recent, change.after, now)
        tell(self._changes, change)
        return Answered(change.reply, change, token)

    def _seeds(self, new: NewGame) -> Dealt | Answered[Change]:
        """The new game's seeds and opening; a retry's answer when the first request with its key, which worked out
        the same winnable deal, has finished meanwhile."""
        owner, source = new.owner, new.deal
        deal: dict[str, Any]
        day, client_seed = None, ""
        match source:
            case TodaysDeal():
                if owner is None:
                    raise Unauthorized("the daily deal is played as a player: send your API token (POST /players)")
                if new.rules.preset_name is None:
                    raise InvalidInput("the daily deal is dealt for each preset: name a variant, not custom rules")
                today = self._days.deal(new.rules.preset_name)
                day, server_seed = today.day, today.server_seed
                deal = {"kind": "daily", "day": today.day.isoformat()}
            case FromSealedDeal(deal_id, client_seed):
                sealed = self._store.load_sealed_deal(deal_id)
                if sealed.game_id is not None:
                    raise SealedDealUsed(f"sealed deal {deal_id} has already made a game")
                server_seed, deal = sealed.server_seed, {"kind": "sealed", "sealed_deal_id": str(deal_id)}
            case NumberedDeal(number):
                server_seed, deal = deal_number_seed(number), {"kind": "number", "deal_number": number}
            case FreshDeal():
                server_seed, deal = self._sources.new_server_seed(), {"kind": "random"}
        if not new.winnable:
            state = opening(new.rules, layout(shuffled_deck(server_seed, client_seed), new.rules))
            return Dealt(server_seed, client_seed, deal, state, day)
        scope = creation_scope(new)
        try:
            chosen = self._solver_time(
                lambda: first_winnable(new.rules, server_seed, client_seed), once_for=work_of(scope, new.idempotency)
            )
        except IdenticalRequestFinished:
            # The first request with this key has finished: its answer, or (if it kept none) this one's.
            if new.idempotency is not None and (first := kept_answer(self._store, scope, new.idempotency)):
                return first
            chosen = self._solver_time(lambda: first_winnable(new.rules, server_seed, client_seed))
        return Dealt(server_seed, client_seed, {**deal, "winnable": chosen.record}, chosen.opening, day)


def creation_scope(new: NewGame) -> str:
    """Where a creation's Idempotency-Key is kept: a player's creations apart from everyone else's."""
    return "games" if new.owner is None else f"player:{new.owner.player.id}:games"
