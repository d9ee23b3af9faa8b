"""The service's ports kept in memory: the use cases' unit tests run on it, with no database.

tests/store/ runs every port's contract against it and against PostgreSQL alike, so that it cannot drift from
server/store/postgres.py. Writes are atomic as there: each takes the game's lock, then the store's.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any
from uuid import UUID

from server.game.callers import ApiTokenRecord, Caller, PlayerRecord
from server.game.change import Change
from server.game.contests import private_until, still_private
from server.game.errors import VersionConflict
from server.game.records import GameKeys, GameRecord, GameSecret, PlayerResult, PublicEntry
from server.log import events as ev
from server.log.events import Event
from server.log.public_entries import DAILY_DEAL_OPENED, JOINED_BEFORE, PLAYER_JOINED
from server.service.errors import (
    DailyDealPlayed,
    GameNotFound,
    IdempotencyConflict,
    NameTaken,
    PlayerNotFound,
    SealedDealNotFound,
    SealedDealUsed,
    TooManyTokens,
)
from server.service.feed import FEED_START, FeedEntry, FeedPosition, FeedStart
from server.service.players.stats import wilson_interval
from server.service.ports import Integrate
from server.service.public_log.recovery import RecoveryError
from server.service.public_log.retirement import RetirementRefused
from server.service.records import (
    AllTimeRow,
    DailyBoardRow,
    DailyDeal,
    GamesPage,
    Joining,
    LockedGame,
    LogGrowth,
    PendingEntry,
    PlayerStats,
    Retirement,
    SealedDeal,
    SignedCheckpoint,
    StoredResponse,
    TimeTravel,
)
from server.transparency.tiles import partial_tiles


def _copied(value: Any) -> Any:
    """What a JSON column gives back: equal data, never the object written."""
    return json.loads(json.dumps(value))


@dataclass
class _StoredGame:
    record: GameRecord
    secret: GameSecret
    events: list[tuple[int, Event]] = field(default_factory=list)
    """Each event with the transaction that wrote it."""
    snapshots: dict[int, str] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)


class MemoryStore:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._games: dict[UUID, _StoredGame] = {}
        self._sealed: dict[UUID, SealedDeal] = {}
        self._responses: dict[tuple[str, str], StoredResponse] = {}
        self._responses_kept_at: dict[tuple[str, str], datetime] = {}
        self._analyses: dict[tuple[UUID, str, int], str] = {}
        self._last_tx = 0
        self._listeners: list[Callable[[str], None]] = []
        self._pending: list[PendingEntry] = []
        self._leaves: list[PublicEntry] = []
        self._tiles: dict[tuple[int, int], bytes] = {}
        self._bundles: dict[int, bytes] = {}
        self._checkpoints: list[SignedCheckpoint] = []
        self._cosignatures: dict[tuple[int, str], str] = {}
        self._published: list[int] = []
        self._retirements: list[Retirement] = []
        self._record_place: str | None = None
        self._abandoned: set[UUID] = set()
        self._ranks_joined_before: set[UUID] = set()
        self._sequencing = threading.Lock()
        self._last_pending = 0
        self._signed_at = float("-inf")
        self._player_keys: dict[str, PlayerRecord] = {}
        self._daily: dict[tuple[date, str], DailyDeal] = {}
        self._results: dict[UUID, PlayerResult] = {}
        self._tokens: dict[UUID, ApiTokenRecord] = {}

    # Games and their log

    def create_game(self, change: Change, response: StoredResponse | None, sealed_deal_id: UUID | None = None) -> None:
        game = change.game
        with self._lock:
            self._refuse_kept(response)
            if game.daily is not None and any(
                (s.record.owner, s.record.daily, s.record.variant) == (game.owner, game.daily, game.variant)
                for s in self._games.values()
            ):
                raise DailyDealPlayed("you have played this deal today already: one attempt a day")
            if sealed_deal_id is not None:
                sealed = self._sealed.get(sealed_deal_id)
                if sealed is None or sealed.game_id is not None:
                    raise SealedDealUsed(f"sealed deal {sealed_deal_id} has already made a game")
                self._sealed[sealed_deal_id] = replace(sealed, game_id=game.id)
            stored = _StoredGame(_copied_record(game), change.after.secret)
            self._games[game.id] = stored
            self._append(stored, change.events)
            self._keep(response)
            for entry in change.public_entries:
                self._record(entry)

    def load_game(self, game_id: UUID) -> GameRecord:
        return self._stored(game_id).record

    def load_document(self, game_id: UUID) -> tuple[int, str]:
        record = self._stored(game_id).record
        return record.version, record.document

    def load_audience(self, game_id: UUID) -> tuple[datetime | None, UUID | None]:
        record = self._stored(game_id).record
        return private_until(record.contest), record.owner.id if record.owner else None

    def load_for_action(self, game_id: UUID) -> tuple[GameRecord, GameSecret]:
        with self._lock:
            stored = self._stored(game_id)
            return stored.record, stored.secret

    def write(self, write: Change, expected_version: int, kept: StoredResponse | None = None) -> bool:
        stored = self._games.get(write.game.id)
        if stored is None:
            return False
        with stored.lock, self._lock:
            if stored.record.version != expected_version:
                return False
            self._refuse_kept(kept)
            stored.record = _copied_record(write.game)
            stored.secret = replace(stored.secret, state_text=write.state_text)
            self._append(stored, write.events)
            if write.snapshot:
                stored.snapshots[write.game.version] = write.state_text
            self._keep(kept)
            for entry in write.public_entries:
                self._record(entry)
            if write.result is not None:
                self._results[write.result.game_id] = write.result
                if write.result.abandoned:
                    self._abandoned.add(write.result.game_id)
            return True

    @contextmanager
    def locked_game(self, game_id: UUID) -> Iterator[LockedGame]:
        stored = self._stored(game_id)
        with stored.lock:
            game, secret = stored.record, stored.secret

            def write(change: Change, kept: StoredResponse | None) -> None:
                if not self.write(change, game.version, kept):
                    raise VersionConflict(f"game {game_id} moved past version {game.version}")

            yield LockedGame(game, secret, write)

    def latest_action(self, game_id: UUID, upto: int) -> Event | None:
        with self._lock:
            log = {event.seq: event for _, event in self._stored(game_id).events if event.seq <= upto}
        seq = upto
        while seq in log:
            event = log[seq]
            if event.kind in ev.TAKEN_BACK:
                return event
            seq = event.data["undone_seq"] - 1 if event.kind == ev.ACTION_UNDONE else seq - 1
        return None

    def load_time_travel(self, game_id: UUID, seq: int) -> TimeTravel:
        with self._lock:
            stored = self._stored(game_id)
            kept = [at for at in stored.snapshots if at <= seq]
            snapshot = (max(kept), stored.snapshots[max(kept)]) if kept else None
            after = snapshot[0] - 1 if snapshot else 0
            events = [event for _, event in stored.events if after < event.seq <= seq + 2]
            record = stored.record
            return TimeTravel(stored.secret, _copied(record.rules), _copied(record.deal), snapshot, events)

    def load_snapshots(self, game_id: UUID) -> dict[int, str]:
        stored = self._games.get(game_id)
        return {} if stored is None else dict(stored.snapshots)

    def list_games(self, page: GamesPage) -> list[GameRecord]:
        limit, before, status, variant = page.limit, page.before, page.status, page.variant
        audience, player_id = page.audience, page.player_id
        with self._lock:
            records = [stored.record for stored in self._games.values()]
        chosen = [
            record
            for record in records
            if (player_id is None or (record.owner is not None and record.owner.id == player_id))
            and (
                audience is None
                or not still_private(private_until(record.contest), audience.now)
                or (record.owner is not None and record.owner.id == audience.viewer)
            )
            and (before is None or (record.created_at, record.id) < before)
            and (status is None or record.status == status)
            and (variant is None or record.variant == variant)
            and (page.acted_since is None or (record.version > 1 and record.updated_at >= page.acted_since))
        ]
        chosen.sort(key=lambda record: (record.created_at, record.id), reverse=True)
        return chosen[:limit]

    def load_events(self, game_id: UUID, after: int, limit: int | None, upto: int | None = None) -> list[Event]:
        stored = self._stored(game_id)
        last = upto if upto is not None else 2**31 - 1
        with self._lock:
            events = [event for _, event in stored.events if after < event.seq <= last]
        return events if limit is None else events[:limit]

    def wal_position(self) -> str:
        """The moment asked: every write so far is before it (what a lagging copy in the tests compares)."""
        return str(time.monotonic_ns())

    def read_versions(self, game_ids: Collection[str]) -> dict[str, int]:
        with self._lock:
            return {
                str(game_id): stored.record.version
                for game_id, stored in self._games.items()
                if str(game_id) in game_ids
            }

    # Sealed deals

    def create_sealed_deal(
        self, deal: SealedDeal, response: StoredResponse | None, public_entry: PublicEntry | None = None
    ) -> None:
        with self._lock:
            self._refuse_kept(response)
            self._sealed[deal.id] = deal
            self._keep(response)
            self._record(public_entry)

    # The public log

    def has_pending_entries(self) -> bool:
        with self._lock:
            return bool(self._pending)

    def sequence(self, limit: int, spacing: float, integrate: Integrate) -> LogGrowth | None:
        if not self._sequencing.acquire(blocking=False):
            return None
        try:
            with self._lock:
                latest = self._checkpoints[-1] if self._checkpoints else None
                if latest is not None and time.monotonic() - self._signed_at < spacing:
                    return None
                size = latest.size if latest else 0
                pending = self._pending[:limit]
                partial = {a.level: self._tiles[(a.level, a.index)] for a in partial_tiles(size)}
                if size % 256:
                    partial[-1] = self._bundles[size // 256]
            growth = integrate(latest, pending, partial)
            if growth is None:
                return None
            with self._lock:
                self._tiles.update(growth.tiles)
                self._bundles.update(growth.bundles)
                self._leaves += [entry for _, entry in growth.leaves]
                self._checkpoints.append(growth.checkpoint)
                del self._pending[: len(pending)]
                self._signed_at = time.monotonic()
            return growth
        finally:
            self._sequencing.release()

    def published_checkpoint(self) -> SignedCheckpoint | None:
        with self._lock:
            if not self._published:
                return None
            size = max(self._published)
            return self._with_cosignatures(next(c for c in self._checkpoints if c.size == size))

    def latest_checkpoint(self, *, confirmed: bool = True) -> SignedCheckpoint | None:
        with self._lock:
            return self._with_cosignatures(self._checkpoints[-1]) if self._checkpoints else None

    def publish_checkpoint(self, witnesses: Sequence[str]) -> None:
        with self._lock:
            cosigned = [c.size for c in self._checkpoints if all((c.size, w) in self._cosignatures for w in witnesses)]
            size = max(cosigned, default=None)
            if size is None and not self._published and self._checkpoints:
                size = self._checkpoints[-1].size
            if size is not None and size > max(self._published, default=-1):
                self._published.append(size)

    def _with_cosignatures(self, checkpoint: SignedCheckpoint) -> SignedCheckpoint:
        lines = tuple(line for (size, _), line in sorted(self._cosignatures.items()) if size == checkpoint.size)
        return replace(checkpoint, cosignatures=lines)

    def cosigned_size(self, witness: str) -> int:
        return max((size for size, name in self._cosignatures if name == witness), default=0)

    def add_cosignature(self, size: int, witness: str, line: str) -> None:
        with self._lock:
            self._cosignatures.setdefault((size, witness), line)

    def read_tile(self, level: int, index: int) -> bytes:
        return self._tiles.get((level, index), b"")

    def read_bundle(self, index: int) -> bytes:
        return self._bundles.get(index, b"")

    def recover_log(self, size: int, growth: LogGrowth, cosignatures: Sequence[tuple[str, str]]) -> int:
        with self._sequencing, self._lock:
            if (self._checkpoints[-1].size if self._checkpoints else 0) != size:
                raise RecoveryError(f"the log grew from {size} meanwhile: run the recovery again")
            self._tiles.update(growth.tiles)
            self._bundles.update(growth.bundles)
            self._leaves += [entry for _, entry in growth.leaves]
            self._checkpoints.append(growth.checkpoint)
            for witness, line in cosignatures:
                self._cosignatures[(growth.checkpoint.size, witness)] = line
            self._published.append(growth.checkpoint.size)
            logged = {entry.entry for _, entry in growth.leaves}
            kept = [pending for pending in self._pending if pending.entry.entry not in logged]
            taken, self._pending = len(self._pending) - len(kept), kept
            return taken

    def retire_log(self, retirement: Retirement, entry: PublicEntry) -> None:
        with self._sequencing, self._lock:
            if any(kept.origin == retirement.origin for kept in self._retirements):
                raise RetirementRefused(f"the log {retirement.origin} was retired already")
            self._retirements.append(replace(retirement, retired_at=datetime.now(UTC)))
            self._record(entry)

    def claim_record_place(self, place: str, *, move: bool = False) -> str:
        with self._lock:
            if self._record_place is None or move:
                self._record_place = place
            return self._record_place

    def log_retirements(self) -> list[Retirement]:
        with self._lock:
            return list(self._retirements)

    def leaves_of(self, subjects: Collection[UUID]) -> list[tuple[int, str]]:
        return [(index, entry.kind) for index, entry in enumerate(self._leaves) if entry.subject in subjects]

    def _record(self, entry: PublicEntry | None) -> None:
        if entry is not None:
            self._last_pending += 1
            self._pending.append(PendingEntry(self._last_pending, entry))

    def load_sealed_deal(self, deal_id: UUID) -> SealedDeal:
        sealed = self._sealed.get(deal_id)
        if sealed is None:
            raise SealedDealNotFound(deal_id)
        return sealed

    # Kept responses

    def find_response(self, scope: str, key_hash: str) -> StoredResponse | None:
        return self._responses.get((scope, key_hash))

    def find_token_and_response(
        self, game_id: UUID, scope: str, key_hash: str
    ) -> tuple[GameKeys, StoredResponse | None]:
        with self._lock:
            stored = self._stored(game_id)
            owner = stored.record.owner
            keys = GameKeys(stored.secret.token_hash, owner.id if owner else None, private_until(stored.record.contest))
            return keys, self._responses.get((scope, key_hash))

    def forget_responses(self, kept_before: datetime, limit: int) -> int:
        with self._lock:
            old = [key for key, kept_at in self._responses_kept_at.items() if kept_at < kept_before][:limit]
            for key in old:
                del self._responses[key], self._responses_kept_at[key]
            return len(old)

    # The daily deals

    def open_daily_deal(self, deal: DailyDeal, entry: PublicEntry) -> DailyDeal:
        with self._lock:
            key = (deal.day, deal.variant)
            if key not in self._daily:
                self._daily[key] = deal
                self._record(entry)
                if json.loads(entry.entry).get("ranks") == JOINED_BEFORE:
                    self._ranks_joined_before.add(deal.id)
            return self._daily[key]

    def load_daily_deals(self, day: date) -> list[DailyDeal]:
        with self._lock:
            return sorted((deal for deal in self._daily.values() if deal.day == day), key=lambda deal: deal.variant)

    def daily_games_of(self, player_id: UUID, day: date) -> dict[str, UUID]:
        with self._lock:
            return {
                stored.record.variant or "": stored.record.id
                for stored in self._games.values()
                if stored.record.daily == day and stored.record.owner and stored.record.owner.id == player_id
            }

    def unrevealed_daily_games(self, closed_before: date, limit: int) -> list[UUID]:
        with self._lock:
            joined = {player.id: player.created_at for player in self._player_keys.values()}
            waiting = sorted(
                (record.daily, joined[record.owner.id], record.id)
                for record in (s.record for s in self._games.values())
                if record.daily is not None
                and record.owner is not None
                and record.daily < closed_before
                and "server_seed" not in record.deal
            )
        return [game_id for *_, game_id in waiting[:limit]]

    # Players' statistics: summed when read, from the results the writes recorded

    def load_player_stats(self, player_id: UUID) -> list[PlayerStats]:
        with self._lock:
            mine = sorted(
                (r for r in self._results.values() if r.player_id == player_id and r.verified), key=lambda r: r.game_id
            )
        stats = []
        for variant in sorted({result.variant for result in mine}):
            of = [result for result in mine if result.variant == variant]
            best = min(((r.actions, r.game_id) for r in of if r.won and r.hints == 0), default=None)
            ranked = [result for result in of if not result.public_deal]
            stats.append(
                PlayerStats(
                    variant,
                    len(of),
                    sum(r.won for r in of),
                    best[0] if best else None,
                    best[1] if best else None,
                    tuple(sorted(r.daily for r in of if r.daily is not None)),
                    len(ranked),
                    sum(r.won for r in ranked),
                    sum(r.abandoned for r in of),
                )
            )
        return stats

    def revealed_player_games(self, after: UUID, limit: int) -> list[UUID]:
        with self._lock:
            found = sorted(
                stored.record.id
                for stored in self._games.values()
                if stored.record.owner is not None
                and stored.record.variant is not None
                and "server_seed" in stored.record.deal
                and stored.record.id > after
            )
        return found[:limit]

    def daily_board(
        self, day: date, variant: str, kind: str, after: tuple[bool, int, int, int, int, UUID] | None, limit: int
    ) -> list[DailyBoardRow]:
        return [row for row in self._daily_rows(day, variant, kind) if after is None or row.key > after][:limit]

    def daily_board_rank(self, day: date, variant: str, kind: str, key: tuple[bool, int, int, int, int, UUID]) -> int:
        return sum(row.key <= key for row in self._daily_rows(day, variant, kind))

    def _daily_rows(self, day: date, variant: str, kind: str) -> list[DailyBoardRow]:
        """The memory store keeps no time of the events: every game took no time."""
        with self._lock:
            names = {player.id: player.name for player in self._player_keys.values()}
            rows = [
                DailyBoardRow(r.game_id, names[r.player_id], r.kind, r.won, r.score, r.hints, r.actions, 0.0)
                for r in self._results.values()
                if (r.daily, r.variant, r.kind, r.verified) == (day, variant, kind, True)
                and self._may_rank(r.player_id, day, variant)
            ]
        return sorted(rows, key=lambda row: row.key)

    def _may_rank(self, player_id: UUID, day: date, variant: str) -> bool:
        deal = self._daily.get((day, variant))
        if deal is None or deal.id not in self._ranks_joined_before:
            return True
        logged = {(entry.subject, entry.kind): index for index, entry in enumerate(self._leaves)}
        joined, opened = logged.get((player_id, PLAYER_JOINED)), logged.get((deal.id, DAILY_DEAL_OPENED))
        return joined is not None and opened is not None and joined < opened

    def all_time_board(
        self, variant: str, kind: str, min_games: int, after: tuple[float, int, UUID] | None, limit: int
    ) -> list[AllTimeRow]:
        rows = self._all_time_rows(variant, kind, min_games)
        return [row for row in rows if after is None or row.key > after][:limit]

    def all_time_board_rank(self, variant: str, kind: str, min_games: int, key: tuple[float, int, UUID]) -> int:
        return sum(row.key <= key for row in self._all_time_rows(variant, kind, min_games))

    def _all_time_rows(self, variant: str, kind: str, min_games: int) -> list[AllTimeRow]:
        with self._lock:
            players = [
                (player, self.load_player_stats(player.id))
                for player in self._player_keys.values()
                if player.kind == kind
            ]
        rows = [
            AllTimeRow(
                player.id,
                player.name,
                player.kind,
                sums.ranked_games,
                sums.ranked_wins,
                wilson_interval(sums.ranked_wins, sums.ranked_games)[0],
            )
            for player, stats in players
            for sums in stats
            if sums.variant == variant and sums.ranked_games >= max(min_games, 1)
        ]
        return sorted(rows, key=lambda row: row.key)

    def unverified_results(self, limit: int) -> list[UUID]:
        with self._lock:
            return sorted(game_id for game_id, result in self._results.items() if result.verified is None)[:limit]

    def mark_verified(self, game_id: UUID, valid: bool) -> None:
        with self._lock:
            result = self._results.get(game_id)
            if result is not None and result.verified is None:
                self._results[game_id] = replace(result, verified=valid)

    def replace_statistics(self, results: Sequence[PlayerResult]) -> None:
        with self._lock:
            self._results = {
                result.game_id: replace(result, abandoned=result.game_id in self._abandoned) for result in results
            }

    def left_games(self, idle_since: datetime, limit: int) -> list[UUID]:
        with self._lock:
            left = sorted(
                (r.created_at, r.id)
                for r in (s.record for s in self._games.values())
                if r.status == "playing" and r.owner is not None and r.contest is None and r.updated_at < idle_since
            )
        return [game_id for _, game_id in left[:limit]]

    # Players and their API tokens

    def create_player(self, joining: Joining, response: StoredResponse | None) -> None:
        player = joining.player
        with self._lock:
            self._refuse_kept(response)
            if joining.name_key in self._player_keys:
                raise NameTaken(f"the name {player.name!r} is taken")
            self._player_keys[joining.name_key] = player
            self._tokens[joining.token.id] = joining.token
            self._keep(response)
            self._record(joining.entry)

    def authenticate(self, token_hash: str, now: datetime) -> Caller | None:
        with self._lock:
            for token in self._tokens.values():
                if token.token_hash == token_hash and token.revoked_at is None:
                    if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
                        self._tokens[token.id] = replace(token, last_used_at=now)
                    player = next(p for p in self._player_keys.values() if p.id == token.player_id)
                    return Caller(player, token)
        return None

    def load_player(self, name_key: str) -> PlayerRecord:
        with self._lock:
            if name_key not in self._player_keys:
                raise PlayerNotFound(name_key)
            return self._player_keys[name_key]

    def list_tokens(self, player_id: UUID) -> list[ApiTokenRecord]:
        with self._lock:
            live = [t for t in self._tokens.values() if t.player_id == player_id and t.revoked_at is None]
        return sorted(live, key=lambda token: (token.created_at, token.id))

    def add_token(self, token: ApiTokenRecord, most: int, response: StoredResponse | None) -> None:
        with self._lock:
            self._refuse_kept(response)
            live = len(self.list_tokens(token.player_id))
            if live >= most:
                raise TooManyTokens(f"you have {live} live API tokens, the most a player may have: revoke one")
            self._tokens[token.id] = token
            self._keep(response)

    def revoke_token(self, player_id: UUID, token_id: UUID, now: datetime) -> bool:
        with self._lock:
            token = self._tokens.get(token_id)
            if token is None or token.player_id != player_id or token.revoked_at is not None:
                return False
            self._tokens[token_id] = replace(token, revoked_at=now)
            return True

    # Analyses

    def load_analysis(self, game_id: UUID, solver: str, budget: int) -> str | None:
        return self._analyses.get((game_id, solver, budget))

    def save_analysis(self, game_id: UUID, solver: str, budget: int, analysis: str) -> None:
        with self._lock:
            self._analyses.setdefault((game_id, solver, budget), analysis)

    # The feed: every write lands whole at once here, so no transaction is ever seen running.

    def read_feed(self, after: FeedPosition, limit: int) -> tuple[list[FeedEntry], bool]:
        with self._lock:
            entries = sorted((entry for entry in self._feed() if entry.position > after), key=_position)
        return entries[:limit], False

    def feed_head(self) -> FeedStart:
        with self._lock:
            entries = self._feed()
            return FeedStart(max(map(_position, entries)) if entries else FEED_START, self._last_tx + 1, frozenset())

    def _feed(self) -> list[FeedEntry]:
        return [
            FeedEntry(
                FeedPosition(tx, str(game_id), event.seq),
                stored.record.variant,
                {
                    "game_id": str(game_id),
                    "seq": event.seq,
                    "kind": event.kind,
                    "data": _copied(event.data),
                    "hash": event.hash,
                },
            )
            for game_id, stored in self._games.items()
            for tx, event in stored.events
        ]

    # Change notices

    def publish_changes(self, payloads: Sequence[str]) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            for payload in payloads:
                listener(payload)

    def listen_for_changes(
        self, on_change: Callable[[str], None], on_listening: Callable[[], None], stopped: threading.Event
    ) -> None:
        with self._lock:
            self._listeners.append(on_change)
        try:
            on_listening()
            stopped.wait()
        finally:
            with self._lock:
                self._listeners.remove(on_change)

    # Readiness

    def standing(self) -> dict[str, str]:
        return {"writes": "ok"}

    def readiness(self) -> str | None:
        return None

    def _stored(self, game_id: UUID) -> _StoredGame:
        stored = self._games.get(game_id)
        if stored is None:
            raise GameNotFound(game_id)
        return stored

    def _refuse_kept(self, response: StoredResponse | None) -> None:
        if response is not None and (response.scope, response.key_hash) in self._responses:
            raise IdempotencyConflict()

    def _keep(self, response: StoredResponse | None) -> None:
        if response is not None:
            self._responses[(response.scope, response.key_hash)] = response
            self._responses_kept_at[(response.scope, response.key_hash)] = datetime.now(UTC)

    def _append(self, stored: _StoredGame, events: Sequence[Event]) -> None:
        self._last_tx += 1
        stored.events.extend((self._last_tx, Event(e.seq, e.kind, _copied(e.data), e.hash)) for e in events)


def _position(entry: FeedEntry) -> FeedPosition:
    return entry.position


def _copied_record(game: GameRecord) -> GameRecord:
    return replace(game, rules=_copied(game.rules), deal=_copied(game.deal))


def backup_of(store: MemoryStore) -> MemoryStore:
    """The store as a backup taken now would bring it back (what the games hold now is shared: log tests only)."""
    copy = MemoryStore()
    for name, value in vars(store).items():
        if isinstance(value, dict | list | set):
            setattr(copy, name, type(value)(value))
    copy._last_pending = store._last_pending
    copy._record_place = store._record_place
    return copy
