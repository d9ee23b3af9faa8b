"""Players and their API tokens on PostgreSQL (the Players port). PostgresStore has these methods."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

import psycopg
from psycopg.rows import tuple_row

from ..game.callers import ApiTokenRecord, Caller, PlayerRecord
from ..service.errors import NameTaken, PlayerNotFound, TooManyTokens
from ..service.records import Joining, StoredResponse
from . import player_sql
from .public_log import insert_pending
from .rows import keep_first, raise_translated, record_params


class _Connections(Protocol):
    def _connection(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...

    def _transaction(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...

    def _committed(self, logged_entries: bool) -> None: ...


class PlayerTables:
    def create_player(self: _Connections, joining: Joining, response: StoredResponse | None) -> None:
        player = joining.player
        try:
            with self._transaction() as conn:
                keep_first(conn, response)
                conn.execute(
                    player_sql.INSERT_PLAYER,
                    {**record_params(player), "name_key": joining.name_key},
                )
                conn.execute(player_sql.INSERT_TOKEN, _token_params(joining.token))
                insert_pending(conn, joining.entry)
        except psycopg.errors.UniqueViolation as error:
            if error.diag.constraint_name == "players_name_key_unique":
                raise NameTaken(
                    f"the name {player.name!r} is taken (names differing only by case or look-alike "
                    "characters are one name)"
                ) from error
            raise_translated(error)
        self._committed(joining.entry is not None)

    def authenticate(self: _Connections, token_hash: str, now: datetime) -> Caller | None:
        with self._connection() as conn:
            row = conn.execute(player_sql.AUTHENTICATE, {"token_hash": token_hash, "now": now}).fetchone()
        if row is None:
            return None
        player = PlayerRecord(row["player_id"], row["name"], row["kind"], row["player_created_at"])
        return Caller(player, _token_of(row))

    def load_player(self: _Connections, name_key: str) -> PlayerRecord:
        with self._connection() as conn:
            row = conn.execute(player_sql.SELECT_PLAYER, {"name_key": name_key}).fetchone()
        if row is None:
            raise PlayerNotFound(name_key)
        return PlayerRecord(row["id"], row["name"], row["kind"], row["created_at"])

    def list_tokens(self: _Connections, player_id: UUID) -> list[ApiTokenRecord]:
        with self._connection() as conn:
            rows = conn.execute(player_sql.SELECT_LIVE_TOKENS, {"player_id": player_id}).fetchall()
        return [_token_of(row) for row in rows]

    def add_token(self: _Connections, token: ApiTokenRecord, most: int, response: StoredResponse | None) -> None:
        try:
            with self._transaction() as conn:
                conn.execute(player_sql.LOCK_PLAYER, {"player_id": token.player_id})
                keep_first(conn, response)
                (live,) = conn.cursor(row_factory=tuple_row).execute(
                    player_sql.COUNT_LIVE_TOKENS, {"player_id": token.player_id}
                ).fetchone() or (0,)
                if live >= most:
                    raise TooManyTokens(f"you have {live} live API tokens, the most a player may have: revoke one")
                conn.execute(player_sql.INSERT_TOKEN, _token_params(token))
        except psycopg.errors.UniqueViolation as error:
            raise_translated(error)

    def revoke_token(self: _Connections, player_id: UUID, token_id: UUID, now: datetime) -> bool:
        with self._connection() as conn:
            revoked = conn.execute(player_sql.REVOKE_TOKEN, {"id": token_id, "player_id": player_id, "now": now})
        return revoked.rowcount == 1


def _token_params(token: ApiTokenRecord) -> dict[str, Any]:
    return {
        "id": token.id,
        "player_id": token.player_id,
        "token_hash": token.token_hash,
        "scopes": list(token.scopes),
        "label": token.label,
        "created_at": token.created_at,
    }


def _token_of(row: dict[str, Any]) -> ApiTokenRecord:
    return ApiTokenRecord(
        row["id"],
        row["player_id"],
        row["token_hash"],
        tuple(row["scopes"]),
        row["label"],
        row["created_at"],
        row["last_used_at"],
        row["revoked_at"],
    )
