"""The use cases: create a game, act on it, read it, list games and events. No HTTP and no SQL here.

Every result is JSON-ready data, so that the very bytes of a first response can be stored for an
idempotent retry and the HTTP layer only has to send them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol
from uuid import UUID, uuid4

from . import events as ev
from .computing import computed
from .cursors import decode_cursor, encode_cursor
from .documents import game_document, game_view, position_after, rendered, sealed_deal_view, to_json
from .idempotency import Idempotency, key_hash, replayed_text, stored_response, with_player_token
from .recent_games import Known, RecentGames
from .replay import Verdict, export, verify, verify_log
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
    PRESET_DESCRIPTIONS,
    PRESETS,
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
from .solver.winnable import first_winnable, game_opening

MAX_SEQ = 2**31 - 1
"""The largest seq a log can hold."""
SNAPSHOT_EVERY = 32
"""A snapshot of the position is kept each time a game's version passes a multiple of this."""


class Unauthorized(Exception):
    """No player token was presented (the HTTP layer finds that out)."""


class Forbidden(Exception):
    """The player token does not belong to this game."""


class EventNotFound(LookupError):
    """A seq the game's log does not have."""


class ChangeSink(Protocol):
    """What is told of every change that lands: see live.Hub."""

    def changed(self, game_id: str, variant: str | None, version: int, events: Sequence[dict[str, Any]]) -> None: ...


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


class GameService:
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
        self.store = store
        self._store = store
        self.changes: ChangeSink | None = None
        """Told of every game created and every action that lands here (the live hub)."""
        self._recent = RecentGames(recent_games)
        self._clock = clock
        self._new_server_seed = new_server_seed
        self._new_token = new_token
        self._new_id = new_id

    # --- reads ------------------------------------------------------------------------------------

    def readiness(self) -> str | None:
        """None when the database is reachable and migrated to head; otherwise why not."""
        return self._store.readiness()

    @staticmethod
    def variants() -> list[dict[str, Any]]:
        return [
            {"name": name, "description": PRESET_DESCRIPTIONS[name], "rules": rules.to_dict()}
            for name, rules in PRESETS.items()
        ]

    def versions(self, game_ids: Collection[UUID]) -> dict[str, int]:
        """The version of each of these games that exists, by id."""
        return self._store.read_versions([str(game_id) for game_id in game_ids])

    def get_game(self, game_id: UUID) -> tuple[int, str]:
        """The game's version, and the game as JSON text, as stored when it last changed."""
        return self._store.load_document(game_id)

    def list_games(self, limit: int, cursor: str | None, status: str | None = None,
                   variant: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
        """Newest first, of this status and variant if given; the second value is the cursor of the next
        page, None on the last page."""
        before = decode_cursor(cursor) if cursor else None
        records = self._store.list_games(limit + 1, before, status, variant)
        page = records[:limit]
        next_cursor = encode_cursor(page[-1]) if len(records) > limit else None
        return [game_view(record) for record in page], next_cursor

    def list_events(self, game_id: UUID, after: int, limit: int) -> tuple[list[dict[str, Any]], int | None]:
        """Events with seq > `after`; the second value is the `after` of the next page, if any."""
        events = self._store.load_events(game_id, after, limit + 1)
        page = events[:limit]
        return [event.to_dict() for event in page], page[-1].seq if len(events) > limit else None

    def state_at(self, game_id: UUID, seq: int) -> dict[str, Any]:
        """The public view and legal actions right after event `seq`, as the live game showed them; the
        events one action appends all show the position after that action (events.replayed).

        Folds the events since the latest snapshot at or before `seq`, so the cost stays small however
        long the game.
        """
        travel = self._store.load_time_travel(game_id, seq) if 1 <= seq <= MAX_SEQ else None
        event = next((event for event in travel.events if event.seq == seq), None) if travel else None
        if travel is None or event is None:
            raise EventNotFound(f"game {game_id} has no event {seq}")
        if travel.snapshot is not None:
            snapshot_seq, snapshot_text = travel.snapshot
            start = from_text(snapshot_text)
            events = [event for event in travel.events if event.seq > snapshot_seq]
        else:
            rules = Rules.from_mapping(travel.rules)
            secret = travel.secret
            start = game_opening(rules, secret.server_seed, secret.client_seed, travel.deal)
            events = travel.events
        state = ev.fold(start, events, upto=seq)
        return position_after(game_id, seq, event.hash, state)

    def replay(self, game_id: UUID) -> dict[str, Any]:
        """The game's `osmosis-replay/1` export (the seeds in it only once the game is over)."""
        game = self._store.load_game(game_id)
        return export(game_view(game), self._store.load_events(game_id, 0, None, upto=game.version))

    def verification(self, game_id: UUID) -> dict[str, Any]:
        """Re-check a game from its stored log with the server's own seeds, and its projection and snapshots
        against it."""
        game, secret = self._store.load_for_action(game_id)
        events = self._store.load_events(game_id, 0, None)
        verdict, final = verify_log(Rules.from_mapping(game.rules), game.commitment, events,
                                    seeds=(secret.server_seed, secret.client_seed), game_id=str(game.id),
                                    snapshots=self._store.load_snapshots(game_id))
        if verdict.valid and final is not None and (
            game.version != events[-1].seq
            or game.head_hash != events[-1].hash
            or game.status != final.status.value
            or game.score != final.cards_on_foundations
            or secret.state_text != to_text(final)
            or json.loads(game.document) != game_document(game, final)
        ):
            verdict = Verdict(False, True, len(events), None,
                              f"the stored game (version {game.version}) is not the fold of its {len(events)} events")
        return verdict.to_dict()

    @staticmethod
    def verify_replay(document: dict[str, Any]) -> dict[str, Any]:
        return verify(document).to_dict()

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

    def _act(
        self,
        game_id: UUID,
        token: str,
        choose: Callable[[GameState], Action],
        expected_versions: Versions,
        idempotency: Idempotency | None,
    ) -> Result:
        scope = f"game:{game_id}"
        if idempotency is not None:
            # The token first, whether or not the key was used: a stranger learns nothing of the key.
            token_hash, stored = self._store.find_token_and_response(game_id, scope, key_hash(scope, idempotency.key))
            _check_token(token, token_hash)
            if stored is not None:
                return _replayed(stored, idempotency)

        recent = self._recent.take(game_id)
        decided: list[tuple[dict[str, Any], str, Known]] = []

        def decide(game: GameRecord, secret: GameSecret) -> Change:
            _check_token(token, secret.token_hash)
            if expected_versions is not None and game.version not in expected_versions:
                stated = " or ".join(str(version) for version in sorted(expected_versions))
                raise VersionConflict(f"the game is at version {game.version}, not {stated}")
            state = recent.state if recent is not None and secret is recent.secret else from_text(secret.state_text)
            action = choose(state)
            after = apply(state, action)
            new_events = ev.events_for(state, action, after)
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
            ), after)
            events = [event.to_dict() for event in appended]
            text = f'{{"game":{updated.document},"events":{to_json(events)}}}'
            state_text = to_text(after)
            decided.append(({"game": shown, "events": events}, text,
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


def _check_token(token: str, token_hash: str) -> None:
    if not hmac.compare_digest(_token_hash(token), token_hash):
        raise Forbidden("this player token does not belong to this game")


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
