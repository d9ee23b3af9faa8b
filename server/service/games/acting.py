"""The use cases that act on a game: a command in (game/commands.py), the game's change out (game/deciding.py).

A command is handled top to bottom (`_land`): the game as this process last wrote it, else as stored; the change
the game decides on it; the change written in one statement guarded by the version it was decided on; and, when
another action landed in between, the change decided again on the game as that action left it, under the game's
lock, where it cannot be overtaken.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from datetime import datetime
from typing import Protocol
from uuid import UUID

from ...game.callers import Caller
from ...game.change import Change, Game, stored_game
from ...game.commands import Act, Command, Credential, Draw, End, GiveHint, Hint, OnGame, Resign, TakeBack, Undo
from ...game.contests import check_hint, check_open, private_until, still_private
from ...game.deciding import check_room_for_a_hint, check_version, decide, hinted_again
from ...game.errors import PositionMoved, VersionConflict
from ...game.records import GameKeys, GameRecord, GameSecret
from ...log import events as ev
from ...rules import RulesError, from_text
from ...solver import hints
from ..errors import Forbidden, GameNotFound, IdempotencyConflict, IdenticalRequestFinished
from ..outcomes import Answered
from ..players.stats import ABANDONED_AFTER
from ..players.tokens import PLAY, require, token_hash_of
from ..ports import GameReads, GameWrites, KeptResponses, SolverTime
from ..records import StoredResponse
from .idempotency import answer_after_race, first_reply, kept_reply, key_hash, work_of
from .positions import position_after_event
from .recent_games import RecentGames

HINT_ATTEMPTS = 3
"""Hints worked out (or an undo's log read) at most for one request, each after an action that landed while the
last was."""


class ActingStore(GameReads, GameWrites, KeptResponses, Protocol):
    """The ports the acting use cases use: games and their log, and the replies kept by their writes. Reads too go
    to the store written to: an action is decided on the game's latest version (ports.GameReads)."""


class ChangeSink(Protocol):
    """What is told of every change that lands: see live.Hub."""

    def changed(self, game_id: str, version: int, events_json: str) -> None: ...


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

    def handle(self, command: Act | Draw | Resign | Hint | Undo) -> Answered[Change]:
        """The command's change, landed; or, for a retry of a request with the same Idempotency-Key, its reply."""
        if isinstance(command, Hint):
            return self._hint(command)
        if isinstance(command, Undo):
            return self._undo(command)
        return self._land(command, command)

    def _undo(self, asked: Undo) -> Answered[Change]:
        """The latest action not taken back yet, taken back: decided on the game's whole log, read again should
        an action land between the read and the write."""
        return self._attempts(asked, lambda _: self._undo_once(asked))

    def _undo_once(self, asked: Undo) -> Answered[Change]:
        game, secret = self._store.load_for_action(asked.game_id)
        self._check_access(asked.caller, _keys(game, secret), asked.game_id)
        undone = self._store.latest_action(asked.game_id, game.version)
        # The position before the action is the one after the event before it: folded from the nearest snapshot.
        before = None if undone is None else position_after_event(self._store, asked.game_id, undone.seq - 1)[1]
        return self._land(asked, TakeBack(asked, game.version, undone, before))

    def _hint(self, asked: Hint) -> Answered[Change]:
        """The best action by what the player has seen (solver.hints), worked out, then appended as hint_given; or,
        where the game has not moved since its latest hint, that hint again."""
        return self._attempts(asked, lambda retries_wait: self._hint_once(asked, retries_wait))

    def _attempts(self, asked: OnGame, once: Callable[[bool], Answered[Change]]) -> Answered[Change]:
        """`once(retries_wait)`, up to HINT_ATTEMPTS times: again each time an action landed while it was worked
        out (PositionMoved), or an identical request it waited for finished; a retry of a request already answered
        gets that answer. `retries_wait` is false on the last attempt."""
        for attempt in range(1, HINT_ATTEMPTS + 1):
            if (first := self._first_answer(asked)) is not None:
                return first
            try:
                return once(attempt < HINT_ATTEMPTS)
            except (PositionMoved, IdenticalRequestFinished):
                if attempt == HINT_ATTEMPTS:
                    raise
        raise AssertionError("the last attempt answers or raises")

    def _hint_once(self, asked: Hint, retries_wait: bool) -> Answered[Change]:
        """One hint worked out and appended; with `retries_wait`, a retry of a request still at it waits for
        it instead (IdenticalRequestFinished)."""
        game, secret = self._store.load_for_action(asked.game_id)
        self._check_access(asked.caller, _keys(game, secret), asked.game_id)
        check_open(game.contest, self._clock())
        check_hint(game.contest)
        check_version(game, asked.versions)
        latest = self._store.load_events(asked.game_id, game.version - 1, 1)
        if latest and latest[0].kind == ev.HINT_GIVEN:
            again = hinted_again(stored_game(game, secret), latest[0])
            return Answered(again.reply, again)
        check_room_for_a_hint(game)
        state = from_text(secret.state_text)
        # Worked out before the write, outside any transaction: a search of a second or so must not hold
        # the game's lock. Should an action land meanwhile, the hint is worked out again for its position.
        given = self._solver_time(
            lambda: hints.hint(state).to_dict(),
            once_for=work_of(f"game:{asked.game_id}", asked.idempotency) if retries_wait else None,
        )
        return self._land(asked, GiveHint(asked, game.version, given))

    def _land(self, request: OnGame, command: Command) -> Answered[Change]:
        """The change `command` makes landed, or a retry of `request` answered as its first request was."""
        scope = f"game:{request.game_id}"
        if (first := self._first_answer(request)) is not None:
            return first
        kept = self._recent.take(request.game_id)
        try:
            change = self._decided_and_written(request, command, kept)
        except IdempotencyConflict:
            return answer_after_race(self._store, scope, request.idempotency)
        except Exception as error:
            if kept is not None:
                # A refused action (illegal, wrong version or token) leaves the game as this process
                # kept it, so the player's next action still needs no read. Should the game have moved
                # on elsewhere meanwhile, the entry is as stale as before: that costs one refused write.
                self._recent.keep(request.game_id, kept, unless_newer=True)
            # Refused because an identical request with the same key landed first (the card it plays is
            # gone, the version it states has passed): every request with the key gets that answer. The
            # refusal saw that action's effect, so its reply, kept in the same statement, is visible now.
            if request.idempotency is not None and isinstance(error, RulesError | VersionConflict):
                stored = self._store.find_response(scope, key_hash(scope, request.idempotency.key))
                if stored is not None:
                    return Answered(first_reply(stored, request.idempotency)[0], None)
            raise
        if not change.after.state.is_over:
            keep_recent(self._recent, change.after, self._clock())
        tell(self._changes, change)
        return Answered(change.reply, change)

    def _decided_and_written(self, request: OnGame, command: Command, kept: Game | None) -> Change:
        """The change decided and written: on the game as kept here, else as stored, else under its lock."""
        kept_for_retries = kept_reply_of(request)

        def decided(game: Game) -> Change:
            self._check_access(request.caller, _keys(game.record, game.secret), request.game_id)
            return decide(game, command, self._clock())

        if kept is not None:
            try:
                change = decided(kept)
            except (RulesError, VersionConflict):
                pass  # perhaps only the kept game refuses it: decide on the stored one
            else:
                if self._store.write(change, kept.record.version, kept_for_retries(change)):
                    return change
        record, secret = self._store.load_for_action(request.game_id)
        change = decided(stored_game(record, secret))
        if self._store.write(change, record.version, kept_for_retries(change)):
            return change
        # Another action landed between the read and the write: decide again on the game as it left it,
        # under the game's lock, so that a burst of actions without a stated version all land, one after
        # another, instead of failing on each other (one that stated its version is refused by `decide`).
        with self._store.locked_game(request.game_id) as locked:
            change = decided(stored_game(locked.game, locked.secret))
            locked.write(change, kept_for_retries(change))
        return change

    def close_left_game(self, game_id: UUID) -> bool:
        """End, as resigned, a player's game left without an action for ABANDONED_AFTER: revealed, and counted as a
        loss (abandoned). Whether it wrote (a game played on meanwhile, or ended, is left as it is)."""

        def left(game: GameRecord) -> bool:
            return (
                game.status == "playing"
                and game.owner is not None
                and game.contest is None
                and game.updated_at <= self._clock() - ABANDONED_AFTER
            )

        return self._end(left, End(game_id, abandoned=True))

    def close_contest_game(self, game_id: UUID) -> bool:
        """End a contest's game (a daily deal's, a competition's) whose contest has closed: resigned (a competition
        game: timed out) if still on, then its seeds revealed and its creation and end entered in the public log.
        Whether it wrote (a game closed already, by another process too, is left as it is)."""

        def closed(game: GameRecord) -> bool:
            contest = game.contest
            return contest is not None and "server_seed" not in game.deal and self._clock() >= contest.closes_at

        return self._end(closed, End(game_id, closing=True))

    def time_out(self, game_id: UUID) -> bool:
        """End, as timed out, a competition game still on whose clock has run out (its seeds wait for the close).
        Whether it wrote."""

        def ran_out(game: GameRecord) -> bool:
            clock = game.competition
            return clock is not None and game.status == "playing" and clock.ran_out(self._clock())

        return self._end(ran_out, End(game_id))

    def _end(self, due: Callable[[GameRecord], bool], command: End) -> bool:
        """The server's own end of a game `due` to end, under its lock."""
        with self._store.locked_game(command.game_id) as locked:
            if not due(locked.game):
                return False
            change = decide(stored_game(locked.game, locked.secret), command, self._clock())
            locked.write(change, None)
        self._recent.take(command.game_id)
        tell(self._changes, change)
        return True

    def _check_access(self, credential: Credential, keys: GameKeys, game_id: UUID) -> None:
        """Raises Forbidden unless the credential opens the game: its own player token, or an API token of its
        player's with the `play` scope. A contest game before its contest closes is its player's alone: to anyone
        else it does not exist (GameNotFound, as for a wrong id)."""
        private = still_private(keys.private_until, self._clock())
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

    def _first_answer(self, request: OnGame) -> Answered[Change] | None:
        """The reply kept for this key of a command on the game, if any."""
        if request.idempotency is None:
            return None
        scope = f"game:{request.game_id}"
        # The token first, whether or not the key was used: a stranger learns nothing of the key.
        keys, stored = self._store.find_token_and_response(
            request.game_id, scope, key_hash(scope, request.idempotency.key)
        )
        self._check_access(request.caller, keys, request.game_id)
        return None if stored is None else Answered(first_reply(stored, request.idempotency)[0], None)


def kept_reply_of(request: OnGame) -> Callable[[Change], StoredResponse | None]:
    """How the change's reply is kept for retries of `request` (not at all without an Idempotency-Key)."""
    scope = f"game:{request.game_id}"
    return lambda change: kept_reply(scope, request.idempotency, change.reply)


def _keys(game: GameRecord, secret: GameSecret) -> GameKeys:
    return GameKeys(secret.token_hash, game.owner.id if game.owner else None, private_until(game.contest))


def keep_recent(recent: RecentGames, game: Game, now: datetime) -> None:
    """Keep the game as this process last wrote it, so that its next action here needs no read; but not a contest
    game before its contest closes: answered from the kept copy, a wrong token on it was refused sooner than a
    wrong id, which has to be read for, and the difference told that the game exists."""
    if not still_private(private_until(game.record.contest), now):
        recent.keep(game.record.id, game)


def tell(changes: ChangeSink | None, change: Change) -> None:
    if changes is not None:
        changes.changed(str(change.game.id), change.game.version, change.events_json)
