"""The use cases: create a game, act on it, read it, list games and events. No HTTP and no SQL here.

Every result is JSON-ready data, so that the very bytes of a first response can be stored for an
idempotent retry and the HTTP layer only has to send them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

from . import events as ev
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
    action_to_dict,
    apply,
    commitment,
    deal_number_seed,
    from_text,
    layout,
    legal_actions,
    opening,
    public_view,
    shuffled_deck,
    to_text,
)
from .rules.engine import can_redeal

SNAPSHOT_EVERY = 32
"""A snapshot of the position is kept each time a game's version passes a multiple of this."""


class Unauthorized(Exception):
    """No player token was presented (the HTTP layer finds that out)."""


class Forbidden(Exception):
    """The player token does not belong to this game."""


class IdempotencyKeyReused(Exception):
    """The Idempotency-Key was first used with another request."""


class EventNotFound(LookupError):
    """A seq the game's log does not have."""


class InvalidCursor(ValueError):
    """A pagination cursor that this server did not issue."""


@dataclass(frozen=True, slots=True)
class _Known:
    """A game as this process last wrote it, with its position already parsed."""

    game: GameRecord
    secret: GameSecret
    state: GameState


class _RecentGames:
    """The games this process changed last, most recent last, at most `capacity` of them.

    An action on one of them is decided on what is kept here and goes straight to its version-guarded
    write: no read, no parse of the position. A game's player usually keeps one connection, and so one
    process, for a whole game. An entry gone stale (another process acted on the game since) costs only
    a refused write, after which the action reads the game as usual. An entry is taken out while an
    action uses it, so two concurrent actions on one game never both rely on it.
    """

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._games: OrderedDict[UUID, _Known] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, game_id: UUID) -> _Known | None:
        with self._lock:
            return self._games.pop(game_id, None)

    def keep(self, game_id: UUID, known: _Known, *, unless_newer: bool = False) -> None:
        """Keep `known` as the game's latest; with `unless_newer` (an entry given back by an action that
        wrote nothing), only if no other action has kept the game since."""
        if not self._capacity:
            return
        with self._lock:
            if unless_newer and game_id in self._games:
                return
            self._games[game_id] = known
            if len(self._games) > self._capacity:
                self._games.popitem(last=False)


@dataclass(frozen=True, slots=True)
class Idempotency:
    key: str
    fingerprint: str
    """A digest of the request (method, path, body), to tell a retry from another request."""


@dataclass(frozen=True, slots=True)
class Result:
    status: int
    body: dict[str, Any]
    replayed: bool = False
    text: str | None = None
    """The body as JSON, when it was written already (an action's holds the stored game document)."""


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
        their next action needs no read (see _RecentGames)."""
        self._store = store
        self._recent = _RecentGames(recent_games)
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

    def get_game(self, game_id: UUID) -> tuple[int, str]:
        """The game's version, and the game as JSON text, as stored when it last changed."""
        return self._store.load_document(game_id)

    def list_games(self, limit: int, cursor: str | None) -> tuple[list[dict[str, Any]], str | None]:
        """Newest first; the second value is the cursor of the next page, None on the last page."""
        before = _decode_cursor(cursor) if cursor else None
        records = self._store.list_games(limit + 1, before)
        page = records[:limit]
        next_cursor = _encode_cursor(page[-1]) if len(records) > limit else None
        return [game_view(record) for record in page], next_cursor

    def list_events(
        self, game_id: UUID, after: int, limit: int, wait: float = 0
    ) -> tuple[list[dict[str, Any]], int | None]:
        """Events with seq > `after`; the second value is the `after` of the next page, if any.

        With `wait`, a long poll: when there is no such event yet, wait up to `wait` seconds for one.
        """
        if wait > 0:
            self._store.wait_for_events(game_id, after, wait)
        events = self._store.load_events(game_id, after, limit + 1)
        page = events[:limit]
        return [event.to_dict() for event in page], page[-1].seq if len(events) > limit else None

    def state_at(self, game_id: UUID, seq: int) -> dict[str, Any]:
        """The public view and legal actions right after event `seq`, as the live game showed them.

        Folds the events since the latest snapshot at or before `seq`, so the cost stays small however
        long the game.
        """
        travel = self._store.load_time_travel(game_id, seq) if seq >= 1 else None
        if travel is None or not travel.events or travel.events[-1].seq != seq:
            raise EventNotFound(f"game {game_id} has no event {seq}")
        if travel.snapshot is not None:
            snapshot_seq, snapshot_text = travel.snapshot
            state = ev.fold(from_text(snapshot_text), [event for event in travel.events if event.seq > snapshot_seq])
        else:
            rules = Rules.from_mapping(travel.rules)
            secret = travel.secret
            state = ev.fold(opening(rules, layout(shuffled_deck(secret.server_seed, secret.client_seed), rules)),
                            travel.events)
        return {"game_id": str(game_id), "seq": seq, "event_hash": travel.events[-1].hash, **_projection(state)}

    def replay(self, game_id: UUID) -> dict[str, Any]:
        """The game's `osmosis-replay/1` export (the seeds in it only once the game is over)."""
        game = self._store.load_game(game_id)
        return export(game_view(game), self._store.load_events(game_id, 0, None, upto=game.version))

    def verification(self, game_id: UUID) -> dict[str, Any]:
        """Re-check a game from its stored log with the server's own seeds, and its projection against it."""
        game, secret = self._store.load_for_action(game_id)
        events = self._store.load_events(game_id, 0, None)
        verdict, final = verify_log(Rules.from_mapping(game.rules), game.commitment, events,
                                    seeds=(secret.server_seed, secret.client_seed))
        if verdict.valid and final is not None and (
            game.version != events[-1].seq
            or game.head_hash != events[-1].hash
            or game.status != final.status.value
            or game.score != final.cards_on_foundations
            or secret.state_text != to_text(final)
            or json.loads(game.document) != _document(game, final)
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
        try:
            self._store.create_sealed_deal(deal, _stored_response(scope, idempotency, 201, body))
        except IdempotencyConflict:
            return self._replay_after_race(scope, idempotency)
        return Result(201, body)

    def get_sealed_deal(self, deal_id: UUID) -> dict[str, Any]:
        return sealed_deal_view(self._store.load_sealed_deal(deal_id))

    def create_game(
        self,
        rules: Rules,
        deal_number: int | None = None,
        idempotency: Idempotency | None = None,
        sealed_deal_id: UUID | None = None,
        client_seed: str = "",
    ) -> Result:
        """A game from a public deal number, a sealed deal and the client's seed, or a fresh secret seed."""
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
        state = opening(rules, layout(shuffled_deck(server_seed, client_seed), rules))
        commit = commitment(server_seed)
        events = ev.chain(commit, 1, [ev.game_created(rules, deal, commit, state)])
        now = self._clock()
        record, game = _rendered(GameRecord(
            id=self._new_id(),
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
        body = {**game, "player_token": token}
        secret = GameSecret(server_seed, client_seed, to_text(state), _token_hash(token))
        try:
            self._store.create_game(record, secret, events, _stored_response(scope, idempotency, 201, body),
                                    sealed_deal_id)
        except IdempotencyConflict:
            return self._replay_after_race(scope, idempotency)
        self._recent.keep(record.id, _Known(record, secret, state))
        return Result(201, body)

    def move(self, game_id: UUID, token: str, move: Move, expected_version: int | None,
             idempotency: Idempotency | None) -> Result:
        return self._act(game_id, token, lambda state: move, expected_version, idempotency)

    def draw(self, game_id: UUID, token: str, expected_version: int | None,
             idempotency: Idempotency | None) -> Result:
        """Deal, or redeal when the stock is empty and a redeal is allowed."""

        def deal_or_redeal(state: GameState) -> Action:
            return Redeal() if not state.stock and can_redeal(state) else Deal()

        return self._act(game_id, token, deal_or_redeal, expected_version, idempotency)

    def resign(self, game_id: UUID, token: str, expected_version: int | None,
               idempotency: Idempotency | None) -> Result:
        return self._act(game_id, token, lambda state: Resign(), expected_version, idempotency)

    def _act(
        self,
        game_id: UUID,
        token: str,
        choose: Callable[[GameState], Action],
        expected_version: int | None,
        idempotency: Idempotency | None,
    ) -> Result:
        scope = f"game:{game_id}"
        if idempotency is not None and (stored := self._replay(scope, idempotency)) is not None:
            _check_token(token, self._store.load_for_action(game_id)[1])
            return stored

        recent = self._recent.take(game_id)
        decided: list[tuple[dict[str, Any], str, _Known]] = []

        def decide(game: GameRecord, secret: GameSecret) -> Change:
            _check_token(token, secret)
            if expected_version is not None and expected_version != game.version:
                raise VersionConflict(f"the game is at version {game.version}, not {expected_version}")
            state = recent.state if recent is not None and secret is recent.secret else from_text(secret.state_text)
            action = choose(state)
            after = apply(state, action)
            new_events = ev.events_for(state, action, after)
            deal = game.deal
            if after.is_over:
                new_events.append(ev.seeds_revealed(secret.server_seed, secret.client_seed))
                deal = {**deal, "server_seed": secret.server_seed.hex(), "client_seed": secret.client_seed}
            appended = ev.chain(game.head_hash, game.version + 1, new_events)
            updated, shown = _rendered(replace(
                game,
                updated_at=self._clock(),
                deal=deal,
                version=appended[-1].seq,
                status=after.status.value,
                score=after.cards_on_foundations,
                head_hash=appended[-1].hash,
            ), after)
            events = [event.to_dict() for event in appended]
            body = {"game": shown, "events": events}
            state_text = to_text(after)
            decided.append((body, f'{{"game":{updated.document},"events":{to_json(events)}}}',
                            _Known(updated, replace(secret, state_text=state_text), after)))
            return Change(updated, appended, state_text, _stored_response(scope, idempotency, 200, body),
                          snapshot=game.version // SNAPSHOT_EVERY != updated.version // SNAPSHOT_EVERY)

        try:
            if recent is None or not self._landed_on(recent, decide):
                self._store.act(game_id, decide)
        except IdempotencyConflict:
            return self._replay_after_race(scope, idempotency)
        except Exception:
            if recent is not None:
                # A refused action (illegal, wrong version or token) leaves the game as this process
                # kept it, so the player's next action still needs no read. Should the game have moved
                # on elsewhere meanwhile, the entry is as stale as before: that costs one refused write.
                self._recent.keep(game_id, recent, unless_newer=True)
            raise
        body, text, known = decided[-1]
        if not known.state.is_over:
            self._recent.keep(game_id, known)
        return Result(200, body, text=text)

    def _landed_on(self, known: _Known, decide: Callable[[GameRecord, GameSecret], Change]) -> bool:
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
        stored = self._store.find_response(scope, _key_hash(scope, idempotency.key))
        if stored is None:
            return None
        if not hmac.compare_digest(stored.fingerprint, idempotency.fingerprint):
            raise IdempotencyKeyReused(
                "this Idempotency-Key was first used with a different request; use a new key for a new request"
            )
        return Result(stored.status, _unwrap_token(stored.body, scope, idempotency.key), replayed=True)

    def _replay_after_race(self, scope: str, idempotency: Idempotency | None) -> Result:
        assert idempotency is not None
        replayed = self._replay(scope, idempotency)
        assert replayed is not None, "the request that won the race stored its response"
        return replayed


def game_view(record: GameRecord) -> dict[str, Any]:
    """A game as every response shows it: public view, legal actions, version, status, score, chain head."""
    view: dict[str, Any] = json.loads(record.document)
    return view


def _document(record: GameRecord, state: GameState) -> dict[str, Any]:
    return {
        "id": str(record.id),
        "status": record.status,
        "version": record.version,
        "variant": record.variant,
        # Sorted: read back from jsonb these come in jsonb's key order, and the document of every version
        # should list them alike.
        "rules": dict(sorted(record.rules.items())),
        "deal": dict(sorted(record.deal.items())),
        "commitment": record.commitment,
        "created_at": record.created_at.isoformat(),
        "updated_at": record.updated_at.isoformat(),
        "score": record.score,
        "head_hash": record.head_hash,
        **_projection(state),
    }


def _rendered(record: GameRecord, state: GameState) -> tuple[GameRecord, dict[str, Any]]:
    """The record with its document rendered from its fields and `state`; and the document as data."""
    document = _document(record, state)
    return replace(record, document=to_json(document)), document


_COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def to_json(data: Any) -> str:
    """JSON as the server writes it, in responses and in stored documents alike."""
    return _COMPACT_JSON.encode(data)


def sealed_deal_view(deal: SealedDeal) -> dict[str, Any]:
    return {
        "id": str(deal.id),
        "commitment": deal.commitment,
        "created_at": deal.created_at.isoformat(),
        "game_id": str(deal.game_id) if deal.game_id else None,
    }


def _projection(state: GameState) -> dict[str, Any]:
    return {"state": public_view(state), "legal_actions": [action_to_dict(a) for a in legal_actions(state)]}


def _check_token(token: str, secret: GameSecret) -> None:
    if not hmac.compare_digest(_token_hash(token), secret.token_hash):
        raise Forbidden("this player token does not belong to this game")


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _key_hash(scope: str, key: str) -> str:
    return hashlib.sha256(f"{scope}\x00{key}".encode()).hexdigest()


def _token_pad(scope: str, key: str, length: int) -> bytes:
    """A one-time pad from the raw Idempotency-Key, which the server keeps only as a hash."""
    pad = b""
    block = 0
    while len(pad) < length:
        pad += hmac.new(key.encode(), f"osmosis-token-wrap\x00{scope}\x00{block}".encode(), hashlib.sha256).digest()
        block += 1
    return pad[:length]


def _stored_response(scope: str, idempotency: Idempotency | None, status: int,
                     body: dict[str, Any]) -> StoredResponse | None:
    """The response as stored for retries: a player token is kept only wrapped under the raw key."""
    if idempotency is None:
        return None
    stored_body = body
    if "player_token" in body:
        token = body["player_token"].encode()
        wrapped = bytes(a ^ b for a, b in zip(token, _token_pad(scope, idempotency.key, len(token)), strict=True))
        stored_body = {**body, "player_token": None, "player_token_wrapped": wrapped.hex()}
    return StoredResponse(scope, _key_hash(scope, idempotency.key), idempotency.fingerprint, status, stored_body)


def _unwrap_token(body: dict[str, Any], scope: str, key: str) -> dict[str, Any]:
    if "player_token_wrapped" not in body:
        return body
    unwrapped = dict(body)
    wrapped = bytes.fromhex(unwrapped.pop("player_token_wrapped"))
    token = bytes(a ^ b for a, b in zip(wrapped, _token_pad(scope, key, len(wrapped)), strict=True))
    unwrapped["player_token"] = token.decode()
    return unwrapped


def _encode_cursor(record: GameRecord) -> str:
    return base64.urlsafe_b64encode(f"{record.created_at.isoformat()}|{record.id}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: str) -> tuple[datetime, UUID]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        created_at, game_id = text.split("|")
        return datetime.fromisoformat(created_at), UUID(game_id)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidCursor("cursor is not one this server issued: follow the Link rel=\"next\" header") from None
