"""The use cases of players' accounts: signing up, who calls with an API token, and the tokens themselves.

There are no passwords: a player holds API tokens, each shown once when made and kept only as a hash, each
with its scopes, listed with its last use and revocable (as lichess's personal API tokens are).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID

from ...game.callers import ApiTokenRecord, Caller, PlayerRecord
from ...game.commands import Idempotency
from ...game.records import PublicEntry
from ...log import public_entries
from ...log.shapes import PLAYER_KINDS
from ...rules import InvalidInput
from ..errors import IdempotencyConflict, Unauthorized
from ..games.idempotency import answer_after_race, kept_answer, kept_reply
from ..outcomes import Answer, Answered
from ..ports import KeptResponses, Players
from ..records import Joining
from . import names, tokens
from .tokens import require, token_hash_of

KINDS = PLAYER_KINDS
MAX_LIVE_TOKENS = 20
"""A player's live API tokens at most: enough for every device and bot, and a bound on what one account keeps."""
MAX_LABEL_LENGTH = 64


class AccountStore(Players, KeptResponses, Protocol):
    """The ports the account use cases use: players and their tokens, and the replies kept for retries."""


@dataclass(frozen=True, slots=True)
class PlayerMade:
    player: PlayerRecord
    token: ApiTokenRecord
    secret: str
    """The token itself, shown this once: only its hash is kept."""


@dataclass(frozen=True, slots=True)
class TokenMade:
    token: ApiTokenRecord
    secret: str


class Accounts:
    def __init__(
        self,
        store: AccountStore,
        clock: Callable[[], datetime],
        new_id: Callable[[], UUID],
        new_token: Callable[[], str] = tokens.new_token,
    ) -> None:
        self._store = store
        self._clock = clock
        self._new_id = new_id
        self._new_token = new_token

    def sign_up(
        self, name: str, kind: str, idempotency: Idempotency | None, answer: Answer[PlayerMade] | None = None
    ) -> Answered[PlayerMade]:
        """A new player with a first token of every scope. Raises NameRefused, NameTaken."""
        scope = "players"
        if idempotency is not None and (first := kept_answer(self._store, scope, idempotency)) is not None:
            return first
        chosen = names.normalised(name)
        player = PlayerRecord(self._new_id(), chosen, _kind(kind), self._clock())
        made = self._token_for(player.id, "first token", tokens.SCOPES)
        outcome = PlayerMade(player, made.token, made.secret)
        reply = answer(outcome) if answer is not None else None
        joined = PublicEntry(
            player.id, public_entries.PLAYER_JOINED, public_entries.player_joined(player.id, player.name, player.kind)
        )
        try:
            self._store.create_player(
                Joining(player, names.name_key(chosen), made.token, joined),
                kept_reply(scope, idempotency, reply, made.secret),
            )
        except IdempotencyConflict:
            return answer_after_race(self._store, scope, idempotency)
        return Answered(reply, outcome, made.secret)

    def authenticate(self, bearer: str) -> Caller:
        """Who calls with this API token. Raises Unauthorized for a token that is malformed, unknown or revoked,
        alike, so that nothing tells one from another."""
        if not tokens.well_formed(bearer):
            raise Unauthorized("this API token is not one this server gave: check that it was copied whole")
        wanted = token_hash_of(bearer)
        caller = self._store.authenticate(wanted, self._clock())
        if caller is None or not hmac.compare_digest(caller.token.token_hash, wanted):
            raise Unauthorized("this API token is revoked or unknown")
        return caller

    def player(self, name: str) -> PlayerRecord:
        """Raises PlayerNotFound (also for a name this server would never give)."""
        return self._store.load_player(names.looked_up(name))

    def tokens(self, caller: Caller) -> list[ApiTokenRecord]:
        require(caller, tokens.ACCOUNT)
        return self._store.list_tokens(caller.player.id)

    def add_token(
        self,
        caller: Caller,
        label: str,
        scopes: Collection[str],
        idempotency: Idempotency | None,
        answer: Answer[TokenMade] | None = None,
    ) -> Answered[TokenMade]:
        require(caller, tokens.ACCOUNT)
        scope = f"player:{caller.player.id}:tokens"
        if idempotency is not None and (first := kept_answer(self._store, scope, idempotency)) is not None:
            return first
        made = self._token_for(caller.player.id, label, scopes)
        reply = answer(made) if answer is not None else None
        try:
            self._store.add_token(made.token, MAX_LIVE_TOKENS, kept_reply(scope, idempotency, reply, made.secret))
        except IdempotencyConflict:
            return answer_after_race(self._store, scope, idempotency)
        return Answered(reply, made, made.secret)

    def revoke_token(self, caller: Caller, token_id: UUID) -> bool:
        """Whether the token was live (revoking one already revoked changes nothing)."""
        require(caller, tokens.ACCOUNT)
        return self._store.revoke_token(caller.player.id, token_id, self._clock())

    def _token_for(self, player_id: UUID, label: str, scopes: Collection[str]) -> TokenMade:
        secret = self._new_token()
        record = ApiTokenRecord(
            self._new_id(), player_id, token_hash_of(secret), _scopes(scopes), _label(label), self._clock()
        )
        return TokenMade(record, secret)


def _kind(kind: str) -> str:
    if kind not in KINDS:
        raise InvalidInput(f"a player is one of {', '.join(KINDS)}, not {kind!r}")
    return kind


def _scopes(scopes: Collection[str]) -> tuple[str, ...]:
    unknown = sorted(set(scopes) - set(tokens.SCOPES))
    if unknown or not scopes:
        raise InvalidInput(f"a token's scopes are some of {', '.join(tokens.SCOPES)}")
    return tuple(scope for scope in tokens.SCOPES if scope in scopes)


def _label(label: str) -> str:
    text = label.strip()
    if not 1 <= len(text) <= MAX_LABEL_LENGTH or not text.isprintable():
        raise InvalidInput(f"a token's label is 1 to {MAX_LABEL_LENGTH} printable characters")
    return text
