"""Creating games: from a public deal number, a sealed deal and the client's seed, today's daily deal, or a fresh
secret seed; winnable deals through the solver. No HTTP and no SQL: the ports (ports.py) are given to it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol
from uuid import UUID

from ..log import events as ev
from ..rules import InvalidInput, Rules, commitment, deal_number_seed, layout, opening, shuffled_deck, to_text
from ..solver.winnable import first_winnable
from .acting import ChangeSink, creation_entry, keep_recent, tell
from .daily import Days
from .documents import rendered
from .errors import IdempotencyConflict, IdenticalRequestFinished, SealedDealUsed, Unauthorized
from .idempotency import Idempotency, answer_after_race, kept_answer, kept_reply, work_of
from .outcomes import Answer, Answered, GameMade
from .players.tokens import PLAY, require, token_hash_of
from .ports import GameWrites, KeptResponses, SealedDeals, SolverTime
from .recent_games import Known, RecentGames
from .records import Caller, GameRecord, GameSecret
from .sources import Sources


@dataclass(frozen=True, slots=True)
class FreshDeal:
    """A fresh secret server seed, revealed when the game is over."""


@dataclass(frozen=True, slots=True)
class NumberedDeal:
    """A public deal anyone can replay: its seed follows from its number."""

    number: int


@dataclass(frozen=True, slots=True)
class FromSealedDeal:
    """A sealed deal's server seed (POST /deals), committed to before the server saw the client's seed."""

    deal_id: UUID
    client_seed: str = ""


@dataclass(frozen=True, slots=True)
class TodaysDeal:
    """Today's daily deal of the game's preset (daily.py): its owner's one attempt."""


DealSource = FreshDeal | NumberedDeal | FromSealedDeal | TodaysDeal


@dataclass(frozen=True, slots=True)
class NewGame:
    """What a game is created from. `winnable`: the first of the seeds' candidate deals the solver proves winnable
    (solver.winnable). `owner`: the player calling with their API token, whose game it is."""

    rules: Rules
    deal: DealSource = FreshDeal()
    winnable: bool = False
    owner: Caller | None = None


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

    def create_game(
        self, new: NewGame, idempotency: Idempotency | None = None, *, answer: Answer[GameMade] | None = None
    ) -> Answered[GameMade]:
        owner = new.owner
        scope = "games" if owner is None else f"player:{owner.player.id}:games"
        if owner is not None:
            require(owner, PLAY)
        if idempotency is not None and (first := kept_answer(self._store, scope, idempotency)) is not None:
            return first
        rules, source = new.rules, new.deal
        deal: dict[str, Any]
        day = None
        client_seed = ""
        sealed_deal_id = None
        match source:
            case TodaysDeal():
                if owner is None:
                    raise Unauthorized("the daily deal is played as a player: send your API token (POST /players)")
                if rules.preset_name is None:
                    raise InvalidInput("the daily deal is dealt for each preset: name a variant, not custom rules")
                today = self._days.deal(rules.preset_name)
                day, server_seed = today.day, today.server_seed
                deal = {"kind": "daily", "day": today.day.isoformat()}
            case FromSealedDeal(deal_id, client_seed):
                sealed = self._store.load_sealed_deal(deal_id)
                if sealed.game_id is not None:
                    raise SealedDealUsed(f"sealed deal {deal_id} has already made a game")
                server_seed, deal, sealed_deal_id = (
                    sealed.server_seed,
                    {"kind": "sealed", "sealed_deal_id": str(deal_id)},
                    deal_id,
                )
            case NumberedDeal(number):
                server_seed, deal = deal_number_seed(number), {"kind": "number", "deal_number": number}
            case FreshDeal():
                server_seed, deal = self._sources.new_server_seed(), {"kind": "random"}
        if new.winnable:
            try:
                chosen = self._solver_time(
                    lambda: first_winnable(rules, server_seed, client_seed), once_for=work_of(scope, idempotency)
                )
            except IdenticalRequestFinished:
                # The first request with this key has finished: its answer, or (if it kept none) this one's.
                if idempotency is not None and (first := kept_answer(self._store, scope, idempotency)) is not None:
                    return first
                chosen = self._solver_time(lambda: first_winnable(rules, server_seed, client_seed))
            state, deal = chosen.opening, {**deal, "winnable": chosen.record}
        else:
            state = opening(rules, layout(shuffled_deck(server_seed, client_seed), rules))
        commit = commitment(server_seed)
        game_id = self._sources.new_id()
        player = None if owner is None else owner.owner.named()
        events = ev.chain(commit, 1, [ev.game_created(game_id, rules, deal, commit, state, player)])
        now = self._sources.clock()
        record = rendered(
            GameRecord(
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
            ),
            state,
        )
        token = self._sources.new_game_token()
        secret = GameSecret(server_seed, client_seed, to_text(state), token_hash_of(token))
        made = GameMade(record, token)
        reply = answer(made) if answer is not None else None
        # A daily game enters the public log when its day closes (acting.py): nothing of it shows before.
        logged = None if day is not None else creation_entry(record)
        try:
            self._store.create_game(
                record, secret, events, kept_reply(scope, idempotency, reply, token), sealed_deal_id, logged
            )
        except IdempotencyConflict:
            return answer_after_race(self._store, scope, idempotency)
        keep_recent(self._recent, Known(record, secret, state), now)
        tell(self._changes, record, events)
        return Answered(reply, made, token)
