"""The use cases that write: create a game, act on it, ask for a hint (the reads are in queries.py). No HTTP
and no SQL here.

Every result is JSON-ready data, so that the very bytes of a first response can be stored for an
idempotent retry and the HTTP layer only has to send them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol
from uuid import UUID, uuid4

from . import events as ev
from .computing import computed
from .documents import rendered, sealed_deal_view, to_json
from .idempotency import Idempotency, key_hash, replayed_text, stored_response, with_player_token
from .queries import GameQueries
from .recent_games import Known, RecentGames
from .repository import (
    Change,
    GameRecord,
    GameSecret,
    IdempotencyConflict,
    SealedDeal,
    SealedDealUsed,
    Store,
    StoredResponse,
    VersionConflict,
)
from .rules import (
    Action,
    Deal,
    GameState,
    Move,
    Redeal,
    Resign,
    Rules,
    RulesError,
    apply,
    commitment,
    deal_number_seed,
    from_text,
    layout,
    opening,
    shuffled_deck,
    to_text,
)
from .rules.engine import can_redeal
from .solver import hints
from .solver.winnable import first_winnable

SNAPSHOT_EVERY = 32
"""A snapshot of the position is kept each time a game's version passes a multiple of this."""


class Unauthorized(Exception):
    """No player token was presented (the HTTP layer finds that out)."""


class Forbidden(Exception):
    """The player token does not belong to this game."""


class PositionMoved(VersionConflict):
    """An action landed while a hint for the position before it was worked out."""


HINT_ATTEMPTS = 3
"""Hints worked out at most for one request, each after an action that landed while the last was."""


class ChangeSink(Protocol):
    """What is told of every change that lands: see live.Hub."""

    def changed(self, game_id: str, variant: str | None, version: int, events: Sequence[dict[str, Any]]) -> None: ...


Stepped = tuple[GameState, list[ev.NewEvent], dict[str, Any]]
"""What a step makes of a position: the position after it, the events it appends, and what else its
response says besides the game and the events."""

Versions = frozenset[int] | None
"""The versions of a game an action may be taken on, as the request states them; None: whichever it is at."""


@dataclass(frozen=True, slots=True)
class Result:
    """The answer to a request that changed something: sent as `text`, and as that text again to a retry."""

    status: int
    body: dict[str, Any]
    text: str
    replayed: bool = False


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _new_server_seed() -> bytes:
    return secrets.token_bytes(32)


def _new_token() -> str:
    return secrets.token_urlsafe(32)


class GameService(GameQueries):
    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime] = _utc_now,
        new_server_seed: Callable[[], bytes] = _new_server_seed,
        new_token: Callable[[], str] = _new_token,
        new_id: Callable[[], UUID] = uuid4,
        recent_games: int = 1024,
    ) -> None:
        """`recent_games`: how many games this process keeps as it last wrote them (0: none), so that
        their next action needs no read (see RecentGames)."""
        super().__init__(store)
        self.store = store
        self.changes: ChangeSink | None = None
        """Told of every game created and every action that lands here (the live hub)."""
        self._recent = RecentGames(recent_games)
        self._clock = clock
        self._new_server_seed = new_server_seed
        self._new_token = new_token
        self._new_id = new_id

    # --- writes -----------------------------------------------------------------------------------

    def create_sealed_deal(self, idempotency: Idempotency | None) -> Result:
        """A fresh secret server seed, of which only the commitment is shown until its game is over."""
        scope = "deals"
        if idempotency is not None and (stored := self._replay(scope, idempotency)) is not None:
            return stored
        server_seed = self._new_server_seed()
        deal = SealedDeal(self._new_id(), self._clock(), server_seed, commitment(server_seed), None)
        body = sealed_deal_view(deal)
        text = to_json(body)
        try:
            self._store.create_sealed_deal(deal, stored_response(scope, idempotency, 201, text))
        except IdempotencyConflict:
            return self._replay_after_race(scope, idempotency)
        return Result(201, body, text)

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
    ) -> Result:
        """A game from a public deal number, a sealed deal and the client's seed, or a fresh secret seed;
        `winnable`: the first of the seeds' candidate deals the solver proves winnable (solver.winnable)."""
        scope = "games"
        if idempotency is not None and (stored := self._replay(scope, idempotency)) is not None:
            return stored
        deal: dict[str, Any]
        if sealed_deal_id is not None:
            sealed = self._store.load_sealed_deal(sealed_deal_id)
            if sealed.game_id is not None:
                raise SealedDealUsed(f"sealed deal {sealed_deal_id} has already made a game")
            server_seed, deal = sealed.server_seed, {"kind": "sealed", "sealed_deal_id": str(sealed_deal_id)}
        elif deal_number is not None:
            server_seed, deal = deal_number_seed(deal_number), {"kind": "number", "deal_number": deal_number}
        else:
            server_seed, deal = self._new_server_seed(), {"kind": "random"}
        if winnable:
            chosen = computed(lambda: first_winnable(rules, server_seed, client_seed))
            state, deal = chosen.opening, {**deal, "winnable": chosen.record}
        else:
            state = opening(rules, layout(shuffled_deck(server_seed, client_seed), rules))
        commit = commitment(server_seed)
        game_id = self._new_id()
        events = ev.chain(commit, 1, [ev.game_created(game_id, rules, deal, commit, state)])
        now = self._clock()
        record, game = rendered(GameRecord(
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
        ), state)
        token = self._new_token()
        secret = GameSecret(server_seed, client_seed, to_text(state), _token_hash(token))
        response = stored_response(scope, idempotency, 201, record.document, player_token=token)
        try:
            self._store.create_game(record, secret, events, response, sealed_deal_id)
        except IdempotencyConflict:
            return self._replay_after_race(scope, idempotency)
        self._recent.keep(record.id, Known(record, secret, state))
        self._tell(record, events)
        return Result(201, {**game, "player_token": token}, with_player_token(record.document, token))

    def act(self, game_id: UUID, token: str, action: Action, expected_versions: Versions,
            idempotency: Idempotency | None) -> Result:
        """Any action, as the game's legal actions name it, or a resignation."""
        return self._act(game_id, token, lambda state: action, expected_versions, idempotency)

    def move(self, game_id: UUID, token: str, move: Move, expected_versions: Versions,
             idempotency: Idempotency | None) -> Result:
        return self.act(game_id, token, move, expected_versions, idempotency)

    def draw(self, game_id: UUID, token: str, expected_versions: Versions,
             idempotency: Idempotency | None) -> Result:
        """Deal, or redeal when the stock is empty and a redeal is allowed."""

        def deal_or_redeal(state: GameState) -> Action:
            return Redeal() if not state.stock and can_redeal(state) else Deal()

        return self._act(game_id, token, deal_or_redeal, expected_versions, idempotency)

    def resign(self, game_id: UUID, token: str, expected_versions: Versions,
               idempotency: Idempotency | None) -> Result:
        return self.act(game_id, token, Resign(), expected_versions, idempotency)

    def hint(self, game_id: UUID, token: str, expected_versions: Versions,
             idempotency: Idempotency | None) -> Result:
        """The best action by what the player has seen (solver.hints), appended to the log as hint_given."""
        if (first := self._stored_action(game_id, token, idempotency)) is not None:
            return first
        for _ in range(HINT_ATTEMPTS - 1):
            try:
                return self._hint_once(game_id, token, expected_versions, idempotency)
            except PositionMoved:
                continue
        return self._hint_once(game_id, token, expected_versions, idempotency)

    def _hint_once(self, game_id: UUID, token: str, expected_versions: Versions,
                   idempotency: Idempotency | None) -> Result:
        game, secret = self._store.load_for_action(game_id)
        _check_token(token, secret.token_hash)
        _check_version(game, expected_versions)
        state = from_text(secret.state_text)
        # Worked out before the write, outside any transaction: a search of a second or so must not hold
        # the game's row. Should an action land meanwhile, the hint is worked out again for its position.
        given = computed(lambda: hints.hint(state).to_dict())

        def give(current: GameState) -> Stepped:
            if current != state:
                raise PositionMoved("the game moved on while its hint was worked out: ask again")
            return current, [ev.hint_given(given)], {"hint": given}

        return self._step(game_id, token, give, expected_versions, idempotency)

    def _act(self, game_id: UUID, token: str, choose: Callable[[GameState], Action], expected_versions: Versions,
             idempotency: Idempotency | None) -> Result:
        def take(state: GameState) -> Stepped:
            action = choose(state)
            after = apply(state, action)
            return after, ev.events_for(state, action, after), {}

        return self._step(game_id, token, take, expected_versions, idempotency)

    def _step(
        self,
        game_id: UUID,
        token: str,
        step: Callable[[GameState], Stepped],
        expected_versions: Versions,
        idempotency: Idempotency | None,
    ) -> Result:
        """Append what `step` makes of the game's position: its new position, its events, and what else the
        response says besides the game and the events."""
        scope = f"game:{game_id}"
        if (first := self._stored_action(game_id, token, idempotency)) is not None:
            return first
        recent = self._recent.take(game_id)
        decided: list[tuple[dict[str, Any], str, Known]] = []

        def decide(game: GameRecord, secret: GameSecret) -> Change:
            _check_token(token, secret.token_hash)
            _check_version(game, expected_versions)
            state = recent.state if recent is not None and secret is recent.secret else from_text(secret.state_text)
            after, new_events, extra = step(state)
            deal = game.deal
            if after.is_over:
                new_events.append(ev.seeds_revealed(secret.server_seed, secret.client_seed))
                deal = {**deal, "server_seed": secret.server_seed.hex(), "client_seed": secret.client_seed}
            appended = ev.chain(game.head_hash, game.version + 1, new_events)
            updated, shown = rendered(replace(
                game,
                updated_at=self._clock(),
                deal=deal,
                version=appended[-1].seq,
                status=after.status.value,
                score=after.cards_on_foundations,
                head_hash=appended[-1].hash,
                hints=game.hints + sum(event.kind == ev.HINT_GIVEN for event in new_events),
            ), after)
            events = [event.to_dict() for event in appended]
            extra_text = "".join(f",{to_json(key)}:{to_json(value)}" for key, value in extra.items())
            text = f'{{"game":{updated.document},"events":{to_json(events)}{extra_text}}}'
            state_text = to_text(after)
            decided.append(({"game": shown, "events": events, **extra}, text,
                            Known(updated, replace(secret, state_text=state_text), after)))
            return Change(updated, appended, state_text, stored_response(scope, idempotency, 200, text),
                          snapshot=game.version // SNAPSHOT_EVERY != updated.version // SNAPSHOT_EVERY)

        try:
            if recent is None or not self._landed_on(recent, decide):
                self._store.act(game_id, decide)
        except IdempotencyConflict:
            return self._replay_after_race(scope, idempotency)
        except Exception as error:
            if recent is not None:
                # A refused action (illegal, wrong version or token) leaves the game as this process
                # kept it, so the player's next action still needs no read. Should the game have moved
                # on elsewhere meanwhile, the entry is as stale as before: that costs one refused write.
                self._recent.keep(game_id, recent, unless_newer=True)
            # Refused because an identical request with the same key landed first (the card it plays is
            # gone, the version it states has passed): every request with the key gets that response.
            # The refusal saw that action's effect, so its response, stored in the same statement, is
            # visible now.
            if idempotency is not None and isinstance(error, RulesError | VersionConflict):
                stored = self._store.find_response(scope, key_hash(scope, idempotency.key))
                if stored is not None:
                    return _replayed(stored, idempotency)
            raise
        body, text, known = decided[-1]
        if not known.state.is_over:
            self._recent.keep(game_id, known)
        self._tell(known.game, body["events"])
        return Result(200, body, text)

    def _tell(self, game: GameRecord, events: Sequence[ev.Event] | Sequence[dict[str, Any]]) -> None:
        if self.changes is not None:
            told = [event.to_dict() if isinstance(event, ev.Event) else event for event in events]
            self.changes.changed(str(game.id), game.variant, game.version, told)

    def _landed_on(self, known: Known, decide: Callable[[GameRecord, GameSecret], Change]) -> bool:
        """Whether the action, decided on the game as this process last wrote it, landed.

        The write is refused if the game has moved on since (another process acted on it), and so is a
        decision that only that stale game would refuse: the caller then decides on the stored game.
        """
        try:
            change = decide(known.game, known.secret)
        except (RulesError, VersionConflict):
            return False
        return self._store.write_if_at(change, known.game.version)

    # --- idempotency ------------------------------------------------------------------------------

    def _stored_action(self, game_id: UUID, token: str, idempotency: Idempotency | None) -> Result | None:
        """The response stored for this key of an action on the game, if any."""
        if idempotency is None:
            return None
        scope = f"game:{game_id}"
        # The token first, whether or not the key was used: a stranger learns nothing of the key.
        token_hash, stored = self._store.find_token_and_response(game_id, scope, key_hash(scope, idempotency.key))
        _check_token(token, token_hash)
        return None if stored is None else _replayed(stored, idempotency)

    def _replay(self, scope: str, idempotency: Idempotency) -> Result | None:
        stored = self._store.find_response(scope, key_hash(scope, idempotency.key))
        return None if stored is None else _replayed(stored, idempotency)

    def _replay_after_race(self, scope: str, idempotency: Idempotency | None) -> Result:
        assert idempotency is not None
        replayed = self._replay(scope, idempotency)
        assert replayed is not None, "the request that won the race stored its response"
        return replayed


def _replayed(stored: StoredResponse, idempotency: Idempotency) -> Result:
    text = replayed_text(stored, idempotency)
    return Result(stored.status, json.loads(text), text, replayed=True)


def _check_version(game: GameRecord, expected_versions: Versions) -> None:
    if expected_versions is not None and game.version not in expected_versions:
        stated = " or ".join(str(version) for version in sorted(expected_versions))
        raise VersionConflict(f"the game is at version {game.version}, not {stated}")


def _check_token(token: str, token_hash: str) -> None:
    if not hmac.compare_digest(_token_hash(token), token_hash):
        raise Forbidden("this player token does not belong to this game")


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
