"""The records as the tables hold them: a record's statement parameters and a row's record, the one write of an
action, and the store's errors for the constraints a write can break."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any, NoReturn
from uuid import UUID

import psycopg
from psycopg.rows import tuple_row

from ..game.change import Change
from ..game.contests import EntrantClock, private_until
from ..game.errors import VersionConflict
from ..game.records import GameRecord, GameSecret, Owner
from ..log import competition_entries
from ..service.errors import DailyDealPlayed, IdempotencyConflict
from ..service.records import StoredResponse
from ..transparency.merkle import leaf_hash
from . import sql


def write_game(
    conn: psycopg.Connection[Any], change: Change, expected_version: int, response: StoredResponse | None
) -> bool:
    """Write `change`, and the reply kept for its retries, if the game is still at `expected_version`; whether it
    was."""
    game, result, entries = change.game, change.result, change.public_entries
    params = {
        "id": game.id,
        **_moving_params(game),
        # A deal changes only when its seeds are revealed: until then the stored one stands, and the action
        # neither encodes it nor has PostgreSQL parse it again.
        "revealed_deal": jsonb_text(game.deal) if "server_seed" in game.deal else None,
        "lock_key": lock_key(game.id),
        "expected_version": expected_version,
        "state": change.state_text,
        "events": change.events_json,
    }
    if entries:
        params["log_subjects"] = [entry.subject for entry in entries]
        params["log_kinds"] = [entry.kind for entry in entries]
        params["log_entries"] = [entry.entry for entry in entries]
    if change.finish is not None:
        finish = change.finish
        finished = next(e for e in entries if e.kind == competition_entries.COMPETITION_GAME_FINISHED)
        params.update(
            finished_status=finish.status,
            finished_score=finish.score,
            finished_actions=finish.actions,
            finished_elapsed_ms=finish.elapsed_ms,
            finished_leaf=leaf_hash(finished.entry),
        )
    if result is not None:
        params.update({f"result_{name}": getattr(result, field) for name, field in _RESULT_COLUMNS.items()})
    if response is not None:
        params.update(
            scope=response.scope,
            key_hash=response.key_hash,
            fingerprint=response.fingerprint,
            response_status=response.status,
            body=response.body,
        )
    statement = sql.write_change(
        change.snapshot, bool(entries), result is not None, response is not None, change.finish is not None
    )
    row = conn.cursor(row_factory=tuple_row).execute(statement, params).fetchone()
    return bool(row and row[0])


_RESULT_COLUMNS = {
    "player": "player_id",
    "kind": "kind",
    "variant": "variant",
    "daily": "daily",
    "won": "won",
    "score": "score",
    "hints": "hints",
    "actions": "actions",
    "started": "started_at",
    "ended": "ended_at",
    "public_deal": "public_deal",
    "abandoned": "abandoned",
    "undos": "undos",
}
"""A player result's statement parameters (`result_` and the key) and its record's fields."""


def lock_key(game_id: UUID) -> int:
    """The game's advisory lock: the first 64 bits of its random id (a shared key only makes two games wait)."""
    return int.from_bytes(game_id.bytes[:8], "big", signed=True)


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def jsonb_text(value: Any) -> str:
    """JSON for a jsonb parameter, as text: PostgreSQL parses it all the same, and psycopg's Jsonb
    wrapper costs more to adapt than the encoding itself on every statement of the hot path."""
    return _JSON.encode(value)


def raise_translated(error: psycopg.errors.UniqueViolation) -> NoReturn:
    """The store's own error for a unique violation: the one place these are told apart."""
    constraint = error.diag.constraint_name
    if constraint == "game_events_pkey":
        raise VersionConflict("the game moved on while this action was written") from error
    if constraint == "idempotency_keys_pkey":
        raise IdempotencyConflict() from error
    if constraint == "games_one_daily_attempt":
        raise DailyDealPlayed("you have played this deal today already: one attempt a day") from error
    raise error


def game_params(game: GameRecord) -> dict[str, Any]:
    return {
        "id": game.id,
        "created_at": game.created_at,
        "rules": jsonb_text(game.rules),
        "variant": game.variant,
        "deal": jsonb_text(game.deal),
        "commitment": game.commitment,
        "player_id": game.owner.id if game.owner else None,
        "daily": game.daily,
        "private_until": private_until(game.contest),
        "competition": None if game.competition is None else jsonb_text(game.competition.stored()),
        **_moving_params(game),
    }


def creation_params(change: Change) -> dict[str, Any]:
    """The parameters of a creation's one statement (sql.create_game): the game's row, its secret, its first event as
    the change encoded it, and its public-log entries."""
    game, secret, entries = change.game, change.after.secret, change.public_entries
    return {
        **game_params(game),
        "server_seed": secret.server_seed,
        "client_seed": secret.client_seed,
        "state": secret.state_text,
        "token_hash": secret.token_hash,
        "events": change.events_json,
        "log_subjects": [entry.subject for entry in entries],
        "log_kinds": [entry.kind for entry in entries],
        "log_entries": [entry.entry for entry in entries],
    }


_MOVING = ("updated_at", "version", "status", "score", "head_hash", "hints", "document", "undos", "undoable")
"""What an action changes of a game's row (besides its deal, at the reveal)."""


def _moving_params(game: GameRecord) -> dict[str, Any]:
    return {name: getattr(game, name) for name in _MOVING}


def first_column(conn: psycopg.Connection[Any], statement: str, parameters: dict[str, Any]) -> list[Any]:
    """The first column of every row `statement` returns, in its order."""
    return [row[0] for row in conn.cursor(row_factory=tuple_row).execute(statement, parameters).fetchall()]


def record_params(record: Any) -> dict[str, Any]:
    """A record's fields as a statement's parameters, named as the record names them."""
    return {field.name: getattr(record, field.name) for field in fields(record)}


def keep_first(conn: psycopg.Connection[Any], response: StoredResponse | None) -> None:
    """The reply kept for retries, written first in its transaction: a retry in flight at the same time waits on
    its key until this write commits, then meets the key's conflict (and gets this reply) before it can meet any
    other conflict of the write (the name it signs up taken, the daily deal played) by this very write."""
    if response is not None:
        conn.execute(sql.INSERT_RESPONSE, response_params(response))


def response_params(response: StoredResponse) -> dict[str, Any]:
    return record_params(response)


def secret_of(row: dict[str, Any]) -> GameSecret:
    return GameSecret(bytes(row["server_seed"]), row["client_seed"], row["state"], row["token_hash"])


_GAME_COLUMNS = tuple(field.name for field in fields(GameRecord) if field.name not in ("owner", "competition"))
"""The games row's columns, named as the record's fields (its owner is read from the player joined to it)."""


def game_of(row: dict[str, Any]) -> GameRecord:
    owner = None if row["player_id"] is None else Owner(row["player_id"], row["player_name"], row["player_kind"])
    clock = None if row["competition"] is None else EntrantClock.from_stored(row["competition"])
    return GameRecord(**{name: row[name] for name in _GAME_COLUMNS}, owner=owner, competition=clock)
