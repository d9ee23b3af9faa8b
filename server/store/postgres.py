"""The store on PostgreSQL: the records of the games, on a psycopg 3 pool, with driver errors translated.

An action is written by one statement that moves the games row from the version the action was computed
against and, only if it did, appends the events and updates the position: two racing actions can never
both land, and the projection cannot drift from the log. The event table's primary key (game_id, seq)
stays the guard of last resort, so the log never has a gap or a duplicate.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import dict_row, tuple_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ..game.change import Change
from ..game.errors import VersionConflict
from ..game.records import GameKeys, GameRecord, GameSecret, PublicEntry
from ..log import events as ev
from ..log.events import Event
from ..service.errors import GameNotFound, ReplicationUnconfirmed, SealedDealNotFound, SealedDealUsed, StoreUnavailable
from ..service.feed import FEED_START, FeedEntry, FeedPosition, FeedStart
from ..service.records import GamesPage, LockedGame, SealedDeal, StoredResponse, TimeTravel
from . import sql
from .commits import CommitWatcher
from .competitions import CompetitionTables
from .connections import dedicated_connection, live_connection
from .daily import DailyTables
from .players import PlayerTables
from .public_log import PublicLogTables, insert_pending
from .rows import (
    creation_params,
    game_of,
    keep_first,
    lock_key,
    raise_translated,
    record_params,
    secret_of,
    write_game,
)
from .standing import ServerStanding
from .statistics import StatisticsTables

log = logging.getLogger(__name__)


def _nobody() -> None:
    pass


class PostgresStore(PublicLogTables, PlayerTables, DailyTables, CompetitionTables, StatisticsTables, ServerStanding):
    def __init__(self, pool: ConnectionPool, head_revision: str, hold_limit: float | None = None) -> None:
        """`hold_limit`: the longest one use of a connection may last, its commit's wait for a synchronous standby
        included, before its work is cancelled (None: as long as it takes)."""
        self.pool = pool
        """The store's connections (their figures are the pool's gauges)."""
        self._head_revision = head_revision
        self._commits = CommitWatcher(hold_limit) if hold_limit else None
        self._replicated_size = -1
        """The largest checkpoint this process has confirmed is on the synchronous standby (see `_replicated`)."""
        self._publisher: psycopg.Connection[Any] | None = None
        self._publishing = threading.Lock()
        self.entries_logged: Callable[[], None] = _nobody
        """Called after every commit that added entries to the public log's pending list: the process's sequencer,
        which then integrates them within an interval instead of looking for work on a clock."""
        self.clocks_set: Callable[[], None] = _nobody
        """Called after every commit that gave the competitions' referee a new clock (a competition announced: its
        end; an entrant's game begun: its deadline), which it then rests until, instead of its idle wait."""

    def _committed(self, logged_entries: bool) -> None:
        """After a commit: tell the process if it gave the public log entries to integrate."""
        if logged_entries:
            self.entries_logged()

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        """A pooled connection in autocommit mode: a lone read is one round trip, with no BEGIN/COMMIT."""
        watch = None
        try:
            conn = live_connection(self.pool)
            watch = None if self._commits is None else self._commits.watch(conn)
            try:
                with conn:
                    conn.row_factory = dict_row
                    yield conn
            except psycopg.errors.ReadOnlySqlTransaction:
                # The node became a standby (a failover): its sessions never write again. Closed, the connection
                # is replaced by the pool, whose next one finds the primary (target_session_attrs=read-write).
                conn.close()
                raise
            finally:
                if watch is not None and self._commits is not None:
                    self._commits.forget(watch)
                self.pool.putconn(conn)
        except PoolTimeout as error:
            raise StoreUnavailable("no database connection became free in time") from error
        except psycopg.OperationalError as error:
            raise StoreUnavailable("the database is unreachable") from error
        except psycopg.errors.ReadOnlySqlTransaction as error:
            raise StoreUnavailable("the database is changing its primary: try again in a moment") from error
        if watch is not None and watch.cancelled:
            # Cancelled, and yet done: what was cancelled was the commit's wait for its standby.
            raise ReplicationUnconfirmed(
                "the database could not confirm in time that a standby has the write; "
                "try again in a moment (with the same Idempotency-Key)"
            )

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        with self._connection() as conn, conn.transaction():
            yield conn

    def _confirm_replicated(self) -> None:
        """Returns once everything committed before it is on the synchronous standby: the commit of a write of its
        own, which PostgreSQL acknowledges only once the standby has the WAL up to it (ReplicationUnconfirmed when
        that wait is cut short). What another session committed is visible on the primary before its standby has
        it: what leaves the server as settled (a kept reply, a checkpoint) is confirmed first."""
        with self._transaction() as conn:
            conn.execute(sql.WRITE_BARRIER)

    def create_game(self, change: Change, response: StoredResponse | None, sealed_deal_id: UUID | None = None) -> None:
        """The game's creation in one statement, as an action's write (sql.create_game); in a transaction with the
        reply kept for its retries, written first (see keep_first), or when it claims a sealed deal, which another
        creation may have claimed first (then nothing is written)."""
        claim = None if sealed_deal_id is None else "sealed_deal"
        statement, params = sql.create_game(bool(change.public_entries), claim), creation_params(change)
        try:
            if response is None and claim is None:
                with self._connection() as conn:
                    conn.execute(statement, params)
            else:
                with self._transaction() as conn:
                    keep_first(conn, response)
                    row = conn.execute(statement, {**params, "sealed_deal_id": sealed_deal_id}).fetchone()
                    if row is None or row["claimed"] != 1:
                        raise SealedDealUsed(f"sealed deal {sealed_deal_id} has already made a game")
        except psycopg.errors.UniqueViolation as error:
            raise_translated(error)
        self._committed(bool(change.public_entries))

    def create_sealed_deal(
        self, deal: SealedDeal, response: StoredResponse | None, public_entry: PublicEntry | None = None
    ) -> None:
        try:
            with self._transaction() as conn:
                keep_first(conn, response)
                conn.execute(sql.INSERT_SEALED_DEAL, record_params(deal))
                insert_pending(conn, public_entry)
        except psycopg.errors.UniqueViolation as error:
            raise_translated(error)
        self._committed(public_entry is not None)

    def load_sealed_deal(self, deal_id: UUID) -> SealedDeal:
        with self._connection() as conn:
            row = conn.execute(sql.SELECT_SEALED_DEAL, {"id": deal_id}).fetchone()
        if row is None:
            raise SealedDealNotFound(deal_id)
        return SealedDeal(row["id"], row["created_at"], bytes(row["server_seed"]), row["commitment"], row["game_id"])

    def load_game(self, game_id: UUID) -> GameRecord:
        with self._connection() as conn:
            row = conn.execute(sql.SELECT_GAME, {"id": game_id}).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return game_of(row)

    def load_document(self, game_id: UUID) -> tuple[int, str]:
        with self._connection() as conn:
            row = conn.cursor(row_factory=tuple_row).execute(sql.SELECT_DOCUMENT, {"id": game_id}).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return row[0], row[1]

    def load_audience(self, game_id: UUID) -> tuple[datetime | None, UUID | None]:
        with self._connection() as conn:
            row = conn.cursor(row_factory=tuple_row).execute(sql.SELECT_AUDIENCE, {"id": game_id}).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return row[0], row[1]

    def load_for_action(self, game_id: UUID) -> tuple[GameRecord, GameSecret]:
        with self._connection() as conn:
            row = conn.execute(sql.SELECT_GAME_FOR_ACTION, {"id": game_id}).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return game_of(row), secret_of(row)

    def write(self, change: Change, expected_version: int, kept: StoredResponse | None = None) -> bool:
        try:
            with self._connection() as conn:
                written = write_game(conn, change, expected_version, kept)
        except psycopg.errors.UniqueViolation as error:
            raise_translated(error)
        self._committed(written and bool(change.public_entries))
        return written

    @contextmanager
    def locked_game(self, game_id: UUID) -> Iterator[LockedGame]:
        # The game's lock first, then the read: under it no other write of the game runs, and the read sees
        # the last one (see sql.write_change for why not a row lock). The transaction ends with the block.
        logged = False
        try:
            with self._connection() as conn, conn.transaction():
                conn.execute(sql.LOCK_GAME, {"lock_key": lock_key(game_id)})
                row = conn.execute(sql.SELECT_GAME_FOR_ACTION, {"id": game_id}).fetchone()
                if row is None:
                    raise GameNotFound(game_id)
                game = game_of(row)

                def write(change: Change, kept: StoredResponse | None) -> None:
                    if not write_game(conn, change, game.version, kept):
                        raise VersionConflict(f"game {game_id} moved past version {game.version}")
                    nonlocal logged
                    logged = logged or bool(change.public_entries)

                yield LockedGame(game, secret_of(row), write)
        except psycopg.errors.UniqueViolation as error:
            raise_translated(error)
        self._committed(logged)

    def load_time_travel(self, game_id: UUID, seq: int) -> TimeTravel:
        with self._connection() as conn, conn.pipeline():
            row = conn.execute(sql.SELECT_GAME_FOR_ACTION, {"id": game_id})
            snapshot = conn.execute(sql.SELECT_LATEST_SNAPSHOT, {"game_id": game_id, "seq": seq})
            found = row.fetchone()
            if found is None:
                raise GameNotFound(game_id)
            latest = snapshot.fetchone()
            after = latest["seq"] - 1 if latest else 0  # the snapshot's own event too, for its hash
            # Up to the end of the step `seq` is in: an action appends at most two events after its own.
            rows = conn.execute(
                sql.SELECT_EVENTS, {"game_id": game_id, "after": after, "upto": seq + 2, "limit": None}
            ).fetchall()
        return TimeTravel(
            secret_of(found),
            found["rules"],
            found["deal"],
            (latest["seq"], latest["state"]) if latest else None,
            [Event(r["seq"], r["kind"], r["data"], r["hash"]) for r in rows],
        )

    def load_snapshots(self, game_id: UUID) -> dict[int, str]:
        with self._connection() as conn:
            rows = conn.cursor(row_factory=tuple_row).execute(sql.SELECT_SNAPSHOTS, {"game_id": game_id}).fetchall()
        return dict(rows)

    def list_games(self, page: GamesPage) -> list[GameRecord]:
        parameters: dict[str, Any] = {
            "limit": page.limit,
            "status": page.status,
            "variant": page.variant,
            "player_id": page.player_id,
            "acted_since": page.acted_since,
        }
        if page.before is not None:
            parameters["created_at"], parameters["id"] = page.before
        if page.audience is not None:
            parameters["now"], parameters["viewer"] = page.audience.now, page.audience.viewer
        given = (
            ("visible", page.audience),
            ("before", page.before),
            ("status", page.status),
            ("variant", page.variant),
            ("player", page.player_id),
            ("acted", page.acted_since),
        )
        conditions = tuple(name for name, value in given if value is not None)
        with self._connection() as conn:
            rows = conn.execute(sql.SELECT_GAMES_PAGE[conditions], parameters).fetchall()
        return [game_of(row) for row in rows]

    def latest_action(self, game_id: UUID, upto: int) -> Event | None:
        kinds = [*ev.TAKEN_BACK, ev.ACTION_UNDONE]
        with self._connection() as conn:
            row = conn.execute(sql.SELECT_LATEST_ACTION, {"game_id": game_id, "upto": upto, "kinds": kinds}).fetchone()
        return None if row is None else Event(row["seq"], row["kind"], row["data"], row["hash"])

    def load_events(self, game_id: UUID, after: int, limit: int | None, upto: int | None = None) -> list[Event]:
        last = upto if upto is not None else 2**31 - 1
        parameters = {"game_id": game_id, "after": after, "limit": limit, "upto": last}
        with self._connection() as conn:
            rows = conn.execute(sql.SELECT_EVENTS, parameters).fetchall()
            if not rows and conn.execute(sql.GAME_EXISTS, {"id": game_id}).fetchone() is None:
                raise GameNotFound(game_id)
        return [Event(row["seq"], row["kind"], row["data"], row["hash"]) for row in rows]

    def read_versions(self, game_ids: Collection[str]) -> dict[str, int]:
        with self._connection() as conn:
            rows = conn.cursor(row_factory=tuple_row).execute(sql.SELECT_VERSIONS, {"ids": list(game_ids)}).fetchall()
        return {str(game_id): version for game_id, version in rows}

    def read_feed(self, after: FeedPosition, limit: int) -> tuple[list[FeedEntry], bool]:
        with self._connection() as conn, conn.pipeline():
            rows = conn.execute(
                sql.READ_FEED, {"tx": str(after.tx), "game_id": after.game_id, "seq": after.seq, "limit": limit}
            )
            pending = conn.cursor(row_factory=tuple_row).execute(sql.FEED_PENDING)
            entries = [
                FeedEntry(
                    FeedPosition(int(row["tx"]), str(row["game_id"]), row["seq"]),
                    row["variant"],
                    {
                        "game_id": str(row["game_id"]),
                        "seq": row["seq"],
                        "kind": row["kind"],
                        "data": row["data"],
                        "hash": row["hash"],
                    },
                )
                for row in rows.fetchall()
            ]
            (waiting,) = pending.fetchone() or (False,)
        return entries, bool(waiting)

    def feed_head(self) -> FeedStart:
        with self._connection() as conn:
            row = conn.execute(sql.FEED_HEAD).fetchone()
        assert row is not None, "a snapshot always exists"
        position = FEED_START if row["tx"] is None else FeedPosition(int(row["tx"]), str(row["game_id"]), row["seq"])
        return FeedStart(position, int(row["xmax"]), frozenset(int(tx) for tx in row["running"]))

    def publish_changes(self, payloads: Sequence[str]) -> None:
        """Tell every process that listens for changes (listen_for_changes), on a connection kept for it."""
        with self._publishing:
            self._publish(payloads)

    def _publish(self, payloads: Sequence[str]) -> None:
        try:
            if self._publisher is None or self._publisher.closed:
                self._publisher = dedicated_connection(self.pool, "-c synchronous_commit=off")
            self._publisher.execute(sql.PUBLISH_CHANGES, {"channel": sql.CHANGES_CHANNEL, "payloads": list(payloads)})
        except psycopg.OperationalError as error:
            if self._publisher is not None:
                self._publisher.close()
            raise StoreUnavailable("the database is unreachable") from error

    def listen_for_changes(
        self, on_change: Callable[[str], None], on_listening: Callable[[], None], stopped: threading.Event
    ) -> None:
        """Pass the payload of every change published by any process to `on_change` until `stopped`.

        Listens on a connection of its own. After a failure it connects again, a second later; it calls
        `on_listening` each time it has begun to listen, so that the caller can catch up with what was
        published while it was not.
        """
        while not stopped.is_set():
            try:
                with dedicated_connection(self.pool) as conn:
                    conn.execute(f"LISTEN {sql.CHANGES_CHANNEL}")
                    on_listening()
                    while not stopped.is_set():
                        for notify in conn.notifies(timeout=1.0):
                            on_change(notify.payload)
            except psycopg.OperationalError:
                log.warning("lost the connection that listens for changes; connecting again", exc_info=True)
                stopped.wait(1.0)

    def load_analysis(self, game_id: UUID, solver: str, budget: int) -> str | None:
        with self._connection() as conn:
            row = (
                conn.cursor(row_factory=tuple_row)
                .execute(sql.SELECT_ANALYSIS, {"game_id": game_id, "solver": solver, "budget": budget})
                .fetchone()
            )
        return None if row is None else str(row[0])

    def save_analysis(self, game_id: UUID, solver: str, budget: int, analysis: str) -> None:
        with self._connection() as conn:
            conn.execute(
                sql.INSERT_ANALYSIS, {"game_id": game_id, "solver": solver, "budget": budget, "analysis": analysis}
            )

    def find_response(self, scope: str, key_hash: str) -> StoredResponse | None:
        with self._connection() as conn:
            row = conn.execute(sql.SELECT_RESPONSE, {"scope": scope, "key_hash": key_hash}).fetchone()
        if row is None:
            return None
        self._confirm_replicated()  # the first answer may be one whose commit was never confirmed
        return StoredResponse(**row)

    def forget_responses(self, kept_before: datetime, limit: int) -> int:
        with self._connection() as conn:
            return conn.execute(sql.FORGET_RESPONSES, {"before": kept_before, "limit": limit}).rowcount

    def find_token_and_response(
        self, game_id: UUID, scope: str, key_hash: str
    ) -> tuple[GameKeys, StoredResponse | None]:
        with self._connection() as conn:
            row = conn.execute(
                sql.SELECT_TOKEN_AND_RESPONSE, {"game_id": game_id, "scope": scope, "key_hash": key_hash}
            ).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        keys = GameKeys(row.pop("token_hash"), row.pop("owner_id"), row.pop("private_until"))
        if row["scope"] is None:
            return keys, None
        self._confirm_replicated()  # the first answer may be one whose commit was never confirmed
        return keys, StoredResponse(**row)
