"""The use cases that act on a game: any action (a move among them), draw, resign, and a hint.

A write reads top to bottom (`_land`): the game as this process last wrote it, else as stored; the decision
made on it by the rules; the change written in one statement guarded by the version it was decided on;
and, when another action landed in between, the decision made again on the game as that action left it,
under the game's lock, where it cannot be overtaken.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

from ..log import events as ev
from ..log import public_entries
from ..rules import Action, Deal, GameState, Redeal, Resign, RulesError, apply, can_redeal, from_text, to_text
from ..solver import hints
from .daily import still_private
from .documents import rendered
from .errors import (
    DayClosed,
    Forbidden,
    GameNotFound,
    IdempotencyConflict,
    IdenticalRequestFinished,
    PositionMoved,
    VersionConflict,
)
from .idempotency import Idempotency, answer_after_race, first_reply, kept_reply, key_hash, work_of
from .outcomes import ActionTaken, Answer, Answered
from .players.stats import ABANDONED_AFTER, result_at_reveal
from .players.tokens import PLAY, require, token_hash_of
from .ports import GameReads, GameWrites, KeptResponses, SolverTime
from .recent_games import Known, RecentGames
from .records import Caller, GameKeys, GameRecord, GameSecret, GameWrite, PublicEntry

SNAPSHOT_EVERY = 32
"""A snapshot of the position is kept each time a game's version passes a multiple of this."""
HINT_ATTEMPTS = 3
"""Hints worked out at most for one request, each after an action that landed while the last was."""

Versions = frozenset[int] | None
"""The versions of a game an action may be taken on, as the request states them; None: whichever it is at."""
Credential = str | Caller
"""What opens a game to an action: the game's own player token, or its owner calling with an API token."""


class ActingStore(GameReads, GameWrites, KeptResponses, Protocol):
    """The ports the acting use cases use: games and their log, and the replies kept by their writes. Reads too go
    to the store written to: an action is decided on the game's latest version (ports.GameReads)."""


class ChangeSink(Protocol):
    """What is told of every change that lands: see live.Hub."""

    def changed(self, game_id: str, version: int, events: Sequence[dict[str, Any]]) -> None: ...


@dataclass(frozen=True, slots=True)
class Step:
    """What a step makes of a position: the position after it, the events it appends, and the hint it gives."""

    after: GameState
    events: list[ev.NewEvent]
    hint: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class _Decision:
    """An action decided on a game: what to write, what the client is answered, what this process keeps."""

    write: GameWrite
    answered: Answered[ActionTaken]
    known: Known


class Acting:
    """The use cases that act on a game, the players' and the server's own (closing a day, a game left)."""

    def __init__(
        self,
        store: ActingStore,
        recent: RecentGames,
        changes: ChangeSink | None,
        solver_time: SolverTime,
        clock: Callable[[], datetime],
    ) -> None:
        """`recent`: the games this process keeps as it last wrote them (shared with Creating); `changes`: told of
        every action that lands here (the live hub)."""
        self._store = store
        self._recent = recent
        self._changes = changes
        self._solver_time = solver_time
        self._clock = clock

    def act(
        self,
        game_id: UUID,
        token: Credential,
        action: Action,
        *,
        versions: Versions = None,
        idempotency: Idempotency | None = None,
        answer: Answer[ActionTaken] | None = None,
    ) -> Answered[ActionTaken]:
        """Any action, as the game's legal actions name it, or a resignation. `versions`: those the request allows
        it on; `answer`: how the client is answered (kept for retries with the same Idempotency-Key)."""
        return self._act(game_id, token, lambda state: action, versions, idempotency, answer)

    def draw(
        self,
        game_id: UUID,
        token: Credential,
        *,
        versions: Versions = None,
        idempotency: Idempotency | None = None,
        answer: Answer[ActionTaken] | None = None,
    ) -> Answered[ActionTaken]:
        """Deal, or redeal when the stock is empty and a redeal is allowed."""

        def deal_or_redeal(state: GameState) -> Action:
            return Redeal() if not state.stock and can_redeal(state) else Deal()

        return self._act(game_id, token, deal_or_redeal, versions, idempotency, answer)

    def resign(
        self,
        game_id: UUID,
        token: Credential,
        *,
        versions: Versions = None,
        idempotency: Idempotency | None = None,
        answer: Answer[ActionTaken] | None = None,
    ) -> Answered[ActionTaken]:
        return self.act(game_id, token, Resign(), versions=versions, idempotency=idempotency, answer=answer)

    def hint(
        self,
        game_id: UUID,
        token: Credential,
        *,
        versions: Versions = None,
        idempotency: Idempotency | None = None,
        answer: Answer[ActionTaken] | None = None,
    ) -> Answered[ActionTaken]:
        """The best action by what the player has seen (solver.hints), appended to the log as hint_given."""
        for _ in range(HINT_ATTEMPTS - 1):
            if (first := self._first_answer(game_id, token, idempotency)) is not None:
                return first
            try:
                return self._hint_once(game_id, token, versions, idempotency, answer, retries_wait=True)
            except (PositionMoved, IdenticalRequestFinished):
                continue
        if (first := self._first_answer(game_id, token, idempotency)) is not None:
            return first
        return self._hint_once(game_id, token, versions, idempotency, answer, retries_wait=False)

    def _hint_once(
        self,
        game_id: UUID,
        token: Credential,
        versions: Versions,
        idempotency: Idempotency | None,
        answer: Answer[ActionTaken] | None,
        retries_wait: bool,
    ) -> Answered[ActionTaken]:
        """One hint worked out and appended; with `retries_wait`, a retry of a request still at it waits for
        it instead (IdenticalRequestFinished)."""
        game, secret = self._store.load_for_action(game_id)
        self._check_access(token, _keys(game, secret), game_id)
        self._check_day_open(game)
        _check_version(game, versions)
        state = from_text(secret.state_text)
        # Worked out before the write, outside any transaction: a search of a second or so must not hold
        # the game's lock. Should an action land meanwhile, the hint is worked out again for its position.
        given = self._solver_time(
            lambda: hints.hint(state).to_dict(),
            once_for=work_of(f"game:{game_id}", idempotency) if retries_wait else None,
        )

        def give(current: GameState) -> Step:
            if current != state:
                raise PositionMoved("the game moved on while its hint was worked out: ask again")
            return Step(current, [ev.hint_given(given)], given)

        return self._step(game_id, token, give, versions, idempotency, answer)

    def _act(
        self,
        game_id: UUID,
        token: Credential,
        choose: Callable[[GameState], Action],
        versions: Versions,
        idempotency: Idempotency | None,
        answer: Answer[ActionTaken] | None,
    ) -> Answered[ActionTaken]:
        def take(state: GameState) -> Step:
            action = choose(state)
            after = apply(state, action)
            return Step(after, ev.events_for(state, action, after))

        return self._step(game_id, token, take, versions, idempotency, answer)

    def _step(
        self,
        game_id: UUID,
        token: Credential,
        step: Callable[[GameState], Step],
        versions: Versions,
        idempotency: Idempotency | None,
        answer: Answer[ActionTaken] | None,
    ) -> Answered[ActionTaken]:
        """Append what `step` makes of the game's position, or answer a retry as its request was answered."""
        scope = f"game:{game_id}"
        if (first := self._first_answer(game_id, token, idempotency)) is not None:
            return first
        kept = self._recent.take(game_id)

        def decide(game: GameRecord, secret: GameSecret) -> _Decision:
            self._check_access(token, _keys(game, secret), game_id)
            self._check_day_open(game)
            _check_version(game, versions)
            state = kept.state if kept is not None and secret is kept.secret else from_text(secret.state_text)
            return self._decision(scope, game, secret, step(state), idempotency, answer)

        try:
            decision = self._land(game_id, kept, decide)
        except IdempotencyConflict:
            return answer_after_race(self._store, scope, idempotency)
        except Exception as error:
            if kept is not None:
                # A refused action (illegal, wrong version or token) leaves the game as this process
                # kept it, so the player's next action still needs no read. Should the game have moved
                # on elsewhere meanwhile, the entry is as stale as before: that costs one refused write.
                self._recent.keep(game_id, kept, unless_newer=True)
            # Refused because an identical request with the same key landed first (the card it plays is
            # gone, the version it states has passed): every request with the key gets that answer. The
            # refusal saw that action's effect, so its reply, kept in the same statement, is visible now.
            if idempotency is not None and isinstance(error, RulesError | VersionConflict):
                stored = self._store.find_response(scope, key_hash(scope, idempotency.key))
                if stored is not None:
                    return Answered(first_reply(stored, idempotency)[0], None)
            raise
        if not decision.known.state.is_over:
            self._keep_recent(decision.known)
        self._tell(decision.known.game, decision.write.events)
        return decision.answered

    def _land(
        self, game_id: UUID, kept: Known | None, decide: Callable[[GameRecord, GameSecret], _Decision]
    ) -> _Decision:
        """The action decided and written: on the game as kept here, else as stored, else under its lock."""
        if kept is not None:
            try:
                decision = decide(kept.game, kept.secret)
            except (RulesError, VersionConflict):
                decision = None  # perhaps only the kept game refuses it: decide on the stored one
            if decision is not None and self._store.write(decision.write, kept.game.version):
                return decision
        game, secret = self._store.load_for_action(game_id)
        decision = decide(game, secret)
        if self._store.write(decision.write, game.version):
            return decision
        # Another action landed between the read and the write: decide again on the game as it left it,
        # under the game's lock, so that a burst of actions without a stated version all land, one after
        # another, instead of failing on each other (one that stated its version is refused by `decide`).
        with self._store.locked_game(game_id) as locked:
            decision = decide(locked.game, locked.secret)
            locked.write(decision.write)
        return decision

    def close_left_game(self, game_id: UUID) -> bool:
        """End, as resigned, a player's game left without an action for ABANDONED_AFTER: revealed, and counted as a
        loss (abandoned). Whether it wrote (a game played on meanwhile, or ended, is left as it is)."""

        def left(game: GameRecord) -> bool:
            return (
                game.status == "playing"
                and game.owner is not None
                and game.daily is None
                and game.updated_at <= self._clock() - ABANDONED_AFTER
            )

        return self._end(game_id, left, abandoned=True)

    def close_daily_game(self, game_id: UUID) -> bool:
        """End a daily game whose day has closed: resigned if still on, then its seeds revealed and its creation
        and end entered in the public log. Whether it wrote (a game closed already, by another process too,
        is left as it is)."""

        def closed(game: GameRecord) -> bool:
            return (
                game.daily is not None
                and "server_seed" not in game.deal
                and not still_private(game.daily, self._clock())
            )

        return self._end(game_id, closed, closing=True)

    def _end(
        self, game_id: UUID, due: Callable[[GameRecord], bool], closing: bool = False, abandoned: bool = False
    ) -> bool:
        """The server's own end of a game `due` to end, under its lock: resigned if still on, then revealed."""
        with self._store.locked_game(game_id) as locked:
            game, secret = locked.game, locked.secret
            if not due(game):
                return False
            state = from_text(secret.state_text)
            step = Step(state, [])
            if not state.is_over:
                after = apply(state, Resign())
                step = Step(after, ev.events_for(state, Resign(), after))
            decision = self._decision(f"game:{game_id}", game, secret, step, None, None, closing, abandoned)
            locked.write(decision.write)
        self._recent.take(game_id)
        self._tell(decision.known.game, decision.write.events)
        return True

    def _decision(
        self,
        scope: str,
        game: GameRecord,
        secret: GameSecret,
        step: Step,
        idempotency: Idempotency | None,
        answer: Answer[ActionTaken] | None,
        closing: bool = False,
        abandoned: bool = False,
    ) -> _Decision:
        after, new_events, deal = step.after, list(step.events), game.deal
        # A daily deal is every player's: its seeds are revealed when its day closes, not when one game ends.
        reveal = after.is_over and (game.daily is None or closing)
        if reveal:
            new_events.append(ev.seeds_revealed(secret.server_seed, secret.client_seed))
            deal = {**deal, "server_seed": secret.server_seed.hex(), "client_seed": secret.client_seed}
        appended = ev.chain(game.head_hash, game.version + 1, new_events)
        updated = rendered(
            replace(
                game,
                updated_at=self._clock(),
                deal=deal,
                version=appended[-1].seq,
                status=after.status.value,
                score=after.cards_on_foundations,
                head_hash=appended[-1].hash,
                hints=game.hints + sum(event.kind == ev.HINT_GIVEN for event in new_events),
            ),
            after,
        )
        outcome = ActionTaken(updated, tuple(appended), step.hint)
        reply = answer(outcome) if answer is not None else None
        state_text = to_text(after)
        entries: tuple[PublicEntry, ...] = ()
        if reveal:
            ended = PublicEntry(
                game.id,
                public_entries.GAME_ENDED,
                public_entries.game_ended(
                    game.id,
                    updated.status,
                    updated.version,
                    updated.head_hash,
                    updated.score,
                    secret.server_seed,
                    secret.client_seed,
                ),
            )
            entries = (ended,) if game.daily is None else (creation_entry(game), ended)
        write = GameWrite(
            updated,
            appended,
            state_text,
            kept_reply(scope, idempotency, reply),
            snapshot=game.version // SNAPSHOT_EVERY != updated.version // SNAPSHOT_EVERY,
            result=result_at_reveal(updated, abandoned) if reveal else None,
            public_entries=entries,
        )
        return _Decision(write, Answered(reply, outcome), Known(updated, replace(secret, state_text=state_text), after))

    def _check_access(self, credential: Credential, keys: GameKeys, game_id: UUID) -> None:
        """Raises Forbidden unless the credential opens the game: its own player token, or an API token of its
        player's with the `play` scope. A daily game before its day closes is its player's alone: to anyone
        else it does not exist (GameNotFound, as for a wrong id)."""
        private = still_private(keys.daily, self._clock())
        if isinstance(credential, Caller):
            if private and credential.player.id != keys.owner_id:
                raise GameNotFound(game_id)
            require(credential, PLAY)
            if credential.player.id != keys.owner_id:
                raise Forbidden("this game is not yours: your API token opens only the games you created with it")
        elif not hmac.compare_digest(token_hash_of(credential), keys.token_hash):
            if private:
                raise GameNotFound(game_id)
            raise Forbidden("this player token does not belong to this game")

    def _check_day_open(self, game: GameRecord) -> None:
        if game.daily is not None and not still_private(game.daily, self._clock()):
            raise DayClosed(f"the day of this daily game, {game.daily.isoformat()}, has closed: the game ended with it")

    def _keep_recent(self, known: Known) -> None:
        keep_recent(self._recent, known, self._clock())

    def _tell(self, game: GameRecord, events: Sequence[ev.Event]) -> None:
        tell(self._changes, game, events)

    def _first_answer(
        self, game_id: UUID, token: Credential, idempotency: Idempotency | None
    ) -> Answered[ActionTaken] | None:
        """The reply kept for this key of an action on the game, if any."""
        if idempotency is None:
            return None
        scope = f"game:{game_id}"
        # The token first, whether or not the key was used: a stranger learns nothing of the key.
        keys, stored = self._store.find_token_and_response(game_id, scope, key_hash(scope, idempotency.key))
        self._check_access(token, keys, game_id)
        return None if stored is None else Answered(first_reply(stored, idempotency)[0], None)


def _check_version(game: GameRecord, versions: Versions) -> None:
    if versions is not None and game.version not in versions:
        stated = " or ".join(str(version) for version in sorted(versions))
        raise VersionConflict(f"the game is at version {game.version}, not {stated}")


def _keys(game: GameRecord, secret: GameSecret) -> GameKeys:
    return GameKeys(secret.token_hash, game.owner.id if game.owner else None, game.daily)


def keep_recent(recent: RecentGames, known: Known, now: datetime) -> None:
    """Keep the game as this process last wrote it, so that its next action here needs no read; but not a daily
    game before its day closes: answered from the kept copy, a wrong token on it was refused sooner than a wrong
    id, which has to be read for, and the difference told that the game exists."""
    if known.game.daily is None or not still_private(known.game.daily, now):
        recent.keep(known.game.id, known)


def tell(changes: ChangeSink | None, game: GameRecord, events: Sequence[ev.Event]) -> None:
    if changes is not None:
        changes.changed(str(game.id), game.version, [event.to_dict() for event in events])


def creation_entry(game: GameRecord) -> PublicEntry:
    """The game's creation as the public log enters it (its deal without the seeds revealed since)."""
    return PublicEntry(
        game.id,
        public_entries.GAME_CREATED,
        public_entries.game_created(
            game.id, game.variant, game.rules, game.deal, game.commitment, game.owner.named() if game.owner else None
        ),
    )
