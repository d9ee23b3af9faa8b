"""Every SQL statement about games, their logs, sealed deals and the public log. Each names exactly one game, or
one sealed deal (docs/scaling.md). The players' are in player_sql.py."""

import functools
import itertools

_GAME_COLUMNS = """
    g.id, g.created_at, g.updated_at, g.rules, g.variant, g.deal, g.commitment, g.version, g.status, g.score,
    g.head_hash, g.hints, g.document::text AS document, g.player_id, p.name AS player_name, p.kind AS player_kind,
    g.daily, g.undos, g.undoable, g.competition
"""
_GAMES = "games g LEFT JOIN players p ON p.id = g.player_id"
"""A game's row with its owner's name and kind (a name never changes: players/names.py)."""


_WRITE_GAME = """
    game_lock AS (
        SELECT pg_advisory_xact_lock(%(lock_key)s)
    ), moved AS (
        UPDATE games
        SET updated_at = %(updated_at)s, deal = coalesce(%(revealed_deal)s::jsonb, deal), version = %(version)s,
            status = %(status)s, score = %(score)s, head_hash = %(head_hash)s, hints = %(hints)s,
            document = %(document)s, undos = %(undos)s, undoable = %(undoable)s
        WHERE id = %(id)s AND version = %(expected_version)s AND EXISTS (SELECT FROM game_lock)
        RETURNING id
    ), position AS (
        UPDATE game_secrets SET state = %(state)s WHERE game_id IN (SELECT id FROM moved)
    ), appended AS (
        INSERT INTO game_events (game_id, seq, kind, data, hash)
        SELECT moved.id, event.seq, event.kind, event.data, event.hash
        FROM moved, jsonb_to_recordset(%(events)s) AS event (seq integer, kind text, data jsonb, hash text)
    )"""

_WRITE_SNAPSHOT = """
    snapshot AS (
        INSERT INTO game_snapshots (game_id, seq, state) SELECT id, %(version)s, %(state)s FROM moved
    )"""

_WRITE_LOG_ENTRIES = """
    logged AS (
        INSERT INTO log_pending (subject, kind, entry)
        SELECT logged.subject, logged.kind, logged.entry
        FROM moved, unnest(%(log_subjects)b::uuid[], %(log_kinds)b::text[], %(log_entries)b::bytea[])
             WITH ORDINALITY AS logged (subject, kind, entry, n)
        ORDER BY logged.n
    )"""

_WRITE_FINISH = """
    finished AS (
        UPDATE competition_entries
        SET finished_status = %(finished_status)s, finished_score = %(finished_score)s,
            finished_actions = %(finished_actions)s, finished_elapsed_ms = %(finished_elapsed_ms)s,
            finished_leaf = %(finished_leaf)s
        WHERE game_id IN (SELECT id FROM moved)
    )"""

_WRITE_RESULT = """
    acted AS (
        -- When the game's actions were recorded: those already in its log, and any this write appends (recorded
        -- at now(), as every event of this transaction is).
        SELECT min(e.recorded_at) AS first_at, max(e.recorded_at) AS last_at,
               EXISTS (SELECT FROM jsonb_to_recordset(%(events)s) AS new (kind text)
                       WHERE new.kind IN ('card_played', 'card_moved_to_cell', 'cards_dealt', 'waste_redealt')) AS now
        FROM game_events e
        WHERE e.game_id = %(id)s
          AND e.kind IN ('card_played', 'card_moved_to_cell', 'cards_dealt', 'waste_redealt')
    ), result AS (
        INSERT INTO player_results (game_id, player_id, kind, variant, daily, won, score, hints, actions, started_at,
                                    ended_at, first_action_at, last_action_at, public_deal, abandoned, undos)
        SELECT moved.id, %(result_player)s, %(result_kind)s, %(result_variant)s, %(result_daily)s, %(result_won)s,
               %(result_score)s, %(result_hints)s, %(result_actions)s, %(result_started)s, %(result_ended)s,
               coalesce(acted.first_at, CASE WHEN acted.now THEN now() END),
               CASE WHEN acted.now THEN now() ELSE acted.last_at END, %(result_public_deal)s, %(result_abandoned)s,
               %(result_undos)s
        FROM moved, acted
    ), abandoned AS (
        INSERT INTO games_abandoned (game_id) SELECT id FROM moved WHERE %(result_abandoned)s
    )"""

_WRITE_RESPONSE = """
    response AS (
        INSERT INTO idempotency_keys (scope, key_hash, fingerprint, status, body)
        SELECT %(scope)s::text, %(key_hash)s::text, %(fingerprint)s::text, %(response_status)s::integer,
               %(body)s::json
        FROM moved
    )"""


_CREATE_GAME = """
    created AS (
        INSERT INTO games (id, created_at, updated_at, rules, variant, deal, commitment, version, status, score,
                           head_hash, hints, document, player_id, daily, undos, undoable, private_until, competition)
        VALUES (%(id)s, %(created_at)s, %(updated_at)s, %(rules)s, %(variant)s, %(deal)s, %(commitment)s,
                %(version)s, %(status)s, %(score)s, %(head_hash)s, %(hints)s, %(document)s, %(player_id)s, %(daily)s,
                %(undos)s, %(undoable)s, %(private_until)s, %(competition)s)
        RETURNING id
    ), secret AS (
        INSERT INTO game_secrets (game_id, server_seed, client_seed, state, token_hash)
        SELECT id, %(server_seed)s, %(client_seed)s, %(state)s, %(token_hash)s FROM created
    ), appended AS (
        INSERT INTO game_events (game_id, seq, kind, data, hash)
        SELECT created.id, event.seq, event.kind, event.data, event.hash
        FROM created, jsonb_to_recordset(%(events)s) AS event (seq integer, kind text, data jsonb, hash text)
    )"""

_CREATION_LOG_ENTRIES = _WRITE_LOG_ENTRIES.replace("FROM moved,", "FROM created,")

_CLAIM_SEALED_DEAL = """
    claimed AS (
        UPDATE sealed_deals SET game_id = %(id)s
        WHERE id = %(sealed_deal_id)s AND game_id IS NULL AND EXISTS (SELECT FROM created)
        RETURNING id
    )"""

_CLAIM_ENTRANTS_GAME = """
    still_open AS (
        -- Shared with other starts, exclusive of the close (competition_sql.LOCK_TO_CLOSE): a game is made only while
        -- its competition is not closed, and a close sees every game made before it.
        SELECT id FROM competitions WHERE id = %(competition_id)s AND closed_at IS NULL FOR SHARE
    ), claimed AS (
        UPDATE competition_entries SET game_id = %(id)s, started_at = %(started_at)s, deadline = %(deadline)s
        WHERE competition_id = %(competition_id)s AND player_id = %(player_id)s AND game_id IS NULL
          AND EXISTS (SELECT FROM created) AND EXISTS (SELECT FROM still_open)
        RETURNING competition_id
    )"""


@functools.cache
def create_game(log_entries: bool, claim: str | None) -> str:
    """A game's creation in one statement, its events as the change encoded them: the game, its secret, its first
    event, its public-log entries, and what it claims (`claim`: "sealed_deal", a sealed deal that makes one game;
    "entrant", a competition entrant's one game). Answers how many rows it claimed (1 when it claims nothing):
    with 0 the caller rolls the creation back."""
    parts = [_CREATE_GAME]
    parts += [_CREATION_LOG_ENTRIES] if log_entries else []
    parts += {"sealed_deal": [_CLAIM_SEALED_DEAL], "entrant": [_CLAIM_ENTRANTS_GAME], None: []}[claim]
    counted = "(SELECT count(*) FROM claimed)" if claim else "1"
    return f"WITH {', '.join(part.strip() for part in parts)}\n    SELECT {counted} AS claimed"


@functools.cache
def write_change(snapshot: bool, log_entries: bool, result: bool, response: bool, finish: bool = False) -> str:
    """The one write of a change, with only the parts it has.

    One statement, so one round trip and its own transaction: the games row moves only from the version the
    change was computed against, and everything else is written only if it did. A concurrent action that moved
    the row first leaves `moved` empty, and nothing is written.

    Every write of a game first takes the game's advisory lock (held to the end of its transaction, and taking
    no transaction id), so that a write's transaction id is assigned only after the game's previous write has
    ended: the ids of one game's transactions then rise with its seqs, which the feed's order (READ_FEED) relies
    on. A row lock would not do: a transaction takes its id before it waits for one.

    A statement of every part for every change would open and lock all eight tables and their indexes on each
    action, past PostgreSQL's sixteen fast-path locks a session, and have the planner weigh parts that write
    nothing: most actions write the game, its position and its events, and nothing else."""
    parts = [_WRITE_GAME]
    parts += [_WRITE_SNAPSHOT] if snapshot else []
    parts += [_WRITE_LOG_ENTRIES] if log_entries else []
    parts += [_WRITE_RESULT] if result else []
    parts += [_WRITE_RESPONSE] if response else []
    parts += [_WRITE_FINISH] if finish else []
    return f"WITH {', '.join(part.strip() for part in parts)}\n    SELECT count(*) AS moved FROM moved"


# Players' games in play (not contest games, which their contest's close ends) left without a write since `idle_since`:
# found by creation time (an index that an action's update never touches), since such a game is older still.
SELECT_LEFT_GAMES = """
    SELECT id FROM games
    WHERE status = 'playing' AND player_id IS NOT NULL AND private_until IS NULL AND created_at < %(idle_since)s
      AND updated_at < %(idle_since)s
    ORDER BY created_at
    LIMIT %(limit)s
"""

SELECT_LATEST_SNAPSHOT = """
    SELECT seq, state FROM game_snapshots
    WHERE game_id = %(game_id)s AND seq <= %(seq)s
    ORDER BY seq DESC
    LIMIT 1
"""

SELECT_SNAPSHOTS = "SELECT seq, state FROM game_snapshots WHERE game_id = %(game_id)s"

SELECT_GAME = f"SELECT {_GAME_COLUMNS} FROM {_GAMES} WHERE g.id = %(id)s"

SELECT_DOCUMENT = "SELECT version, document::text AS document FROM games WHERE id = %(id)s"

SELECT_AUDIENCE = "SELECT private_until, player_id FROM games WHERE id = %(id)s"

SELECT_GAME_FOR_ACTION = f"""
    SELECT {_GAME_COLUMNS}, s.server_seed, s.client_seed, s.state, s.token_hash
    FROM {_GAMES} JOIN game_secrets s ON s.game_id = g.id
    WHERE g.id = %(id)s
"""

LOCK_GAME = "SELECT pg_advisory_xact_lock(%(lock_key)s)"
"""The game's advisory lock, to the end of the transaction (see write_change)."""

_GAME_FILTERS = {
    # A contest game (a daily deal's, a competition's) is listed to anyone once its contest has closed, and to its
    # player before.
    "visible": "(g.private_until IS NULL OR g.private_until <= %(now)s OR g.player_id = %(viewer)s)",
    "before": "(g.created_at, g.id) < (%(created_at)s, %(id)s)",
    "status": "g.status = %(status)s",
    "variant": "g.variant = %(variant)s",
    "player": "g.player_id = %(player_id)s",
    # A game's row moves on with each change after its creation: version 1 is a table only dealt.
    "acted": "(g.version > 1 AND g.updated_at >= %(acted_since)s)",
}


def _games_page(conditions: tuple[str, ...]) -> str:
    where = " AND ".join(_GAME_FILTERS[name] for name in conditions)
    return f"""
    SELECT {_GAME_COLUMNS} FROM {_GAMES}
    {"WHERE " + where if where else ""}
    ORDER BY g.created_at DESC, g.id DESC
    LIMIT %(limit)s
"""


SELECT_GAMES_PAGE = {
    conditions: _games_page(conditions)
    for size in range(len(_GAME_FILTERS) + 1)
    for conditions in itertools.combinations(_GAME_FILTERS, size)
}
"""A page of games, newest first, by the filters it has (a subset of _GAME_FILTERS, in their order)."""

SELECT_LATEST_ACTION = """
    -- From `upto` back: the latest action or undo; from an undo, the latest before the action it took back; until an
    -- action. An index step for each undo met on the way, however long the log (ports.GameWrites.latest_action).
    WITH RECURSIVE walk (seq, kind, data, hash) AS (
        (SELECT seq, kind, data, hash FROM game_events
         WHERE game_id = %(game_id)s AND seq <= %(upto)s AND kind = ANY(%(kinds)s)
         ORDER BY seq DESC LIMIT 1)
        UNION ALL
        (SELECT before.seq, before.kind, before.data, before.hash
         FROM walk CROSS JOIN LATERAL (
             SELECT seq, kind, data, hash FROM game_events
             WHERE game_id = %(game_id)s AND seq < (walk.data ->> 'undone_seq')::integer AND kind = ANY(%(kinds)s)
             ORDER BY seq DESC LIMIT 1
         ) AS before
         WHERE walk.kind = 'action_undone')
    )
    SELECT seq, kind, data, hash FROM walk WHERE kind <> 'action_undone'
"""

SELECT_EVENTS = """
    SELECT seq, kind, data, hash FROM game_events
    WHERE game_id = %(game_id)s AND seq > %(after)s AND seq <= %(upto)s
    ORDER BY seq
    LIMIT %(limit)s
"""

INSERT_SEALED_DEAL = """
    INSERT INTO sealed_deals (id, created_at, server_seed, commitment)
    VALUES (%(id)s, %(created_at)s, %(server_seed)s, %(commitment)s)
"""

SELECT_SEALED_DEAL = "SELECT id, created_at, server_seed, commitment, game_id FROM sealed_deals WHERE id = %(id)s"


GAME_EXISTS = "SELECT 1 FROM games WHERE id = %(id)s"

INSERT_RESPONSE = """
    INSERT INTO idempotency_keys (scope, key_hash, fingerprint, status, body, player_token_wrapped)
    VALUES (%(scope)s, %(key_hash)s, %(fingerprint)s, %(status)s, %(body)s, %(player_token_wrapped)s)
"""

_RESPONSE_COLUMNS = "scope, key_hash, fingerprint, status, body::text AS body, player_token_wrapped"

SELECT_RESPONSE = f"""
    SELECT {_RESPONSE_COLUMNS} FROM idempotency_keys
    WHERE scope = %(scope)s AND key_hash = %(key_hash)s
"""

FORGET_RESPONSES = """
    DELETE FROM idempotency_keys WHERE (scope, key_hash) IN (
        SELECT scope, key_hash FROM idempotency_keys WHERE created_at < %(before)s LIMIT %(limit)s
    )
"""

# The token's hash and the stored response in one round trip, so that a retry's token is checked first
# whether or not its key was used: a stranger learns nothing of the key, not even from the time taken.
SELECT_TOKEN_AND_RESPONSE = f"""
    SELECT s.token_hash, g.player_id AS owner_id, g.private_until, k.* FROM game_secrets s
    JOIN games g ON g.id = s.game_id
    LEFT JOIN (SELECT {_RESPONSE_COLUMNS} FROM idempotency_keys
               WHERE scope = %(scope)s AND key_hash = %(key_hash)s) k ON true
    WHERE s.game_id = %(game_id)s
"""

SELECT_SCHEMA_REVISION = "SELECT version_num FROM alembic_version"

SELECT_VERSIONS = "SELECT id, version FROM games WHERE id = ANY(%(ids)s::uuid[])"

CHANGES_CHANNEL = "osmosis_changes"

# Every change of a batch in one statement and one short transaction of its own: outside the actions'
# transactions, whose commits a NOTIFY would serialise (it holds a database-wide lock from its commit's
# start to its end), and with synchronous_commit off on its connection, so that the lock is not held
# through a WAL flush.
# The payloads in binary: a text array escapes every quote of their JSON, which cost psycopg ~60 µs a payload (a batch
# of ten, 0.7 ms of the publishing process's CPU; 0.1 ms in binary).
PUBLISH_CHANGES = "SELECT pg_notify(%(channel)s, payload) FROM unnest(%(payloads)b::text[]) AS payload"

# The feed of every game's events, in the order their transactions' ids give (then game and seq: one
# transaction writes one game's events), read only below the oldest transaction still running: every
# transaction there has ended, so nothing can later appear before what a reader has read. Contest games (daily
# deals', competitions') are not in it: they are their players' own while played, and past by their close.
READ_FEED = """
    SELECT e.tx::text AS tx, e.game_id, e.seq, e.kind, e.data, e.hash, g.variant
    FROM game_events e JOIN games g ON g.id = e.game_id
    WHERE (e.tx, e.game_id, e.seq) > (%(tx)s::xid8, %(game_id)s::uuid, %(seq)s)
      AND e.tx < pg_snapshot_xmin(pg_current_snapshot())
      AND g.private_until IS NULL
    ORDER BY e.tx, e.game_id, e.seq
    LIMIT %(limit)s
"""

# Whether committed events wait beyond the feed's reach (a transaction begun before theirs still runs).
FEED_PENDING = "SELECT EXISTS (SELECT FROM game_events WHERE tx >= pg_snapshot_xmin(pg_current_snapshot()))"

# Where the feed stands now: its last event below the oldest transaction still running, and which
# transactions had committed by now (the snapshot's xmax and the ones it saw running), so that a reader
# starting here can tell the events committed before it from those after it beyond that last event.
FEED_HEAD = """
    SELECT pg_snapshot_xmax(snapshot)::text AS xmax,
           ARRAY(SELECT running::text FROM pg_snapshot_xip(snapshot) AS running) AS running,
           head.tx::text AS tx, head.game_id, head.seq
    FROM pg_current_snapshot() AS snapshot
    LEFT JOIN LATERAL (
        SELECT tx, game_id, seq FROM game_events
        WHERE tx < pg_snapshot_xmin(snapshot)
        ORDER BY tx DESC, game_id DESC, seq DESC
        LIMIT 1
    ) AS head ON true
"""

SELECT_ANALYSIS = """
    SELECT analysis::text FROM game_analyses
    WHERE game_id = %(game_id)s AND solver = %(solver)s AND budget = %(budget)s
"""

# Two requests may analyse the same game at once: both compute the same analysis, the first one stays.
INSERT_ANALYSIS = """
    INSERT INTO game_analyses (game_id, solver, budget, analysis)
    VALUES (%(game_id)s, %(solver)s, %(budget)s, %(analysis)s)
    ON CONFLICT (game_id, solver, budget) DO NOTHING
"""

INSERT_PENDING_ENTRY = "INSERT INTO log_pending (subject, kind, entry) VALUES (%(subject)s, %(kind)s, %(entry)s)"

# The public log's one sequencer lock: a transaction-level advisory lock, so that a sequencer that dies or loses
# its connection mid-batch releases it with its transaction, which writes nothing. Its key is outside the
# games' (lock_key: the first 64 bits of a random UUID) only by chance; a clash would only make one wait.
SEQUENCER_LOCK = "SELECT pg_try_advisory_xact_lock(%(key)s) AS locked"
SEQUENCER_LOCK_WAIT = "SELECT pg_advisory_xact_lock(%(key)s)"
SELECT_LOG_SIZE = "SELECT coalesce(max(size), 0) FROM log_checkpoints"
DELETE_PENDING_LOGGED = "DELETE FROM log_pending WHERE entry = ANY(%(entries)s::bytea[])"

# The latest checkpoint, and whether it is younger than the spacing between checkpoints (by the database's
# clock, which every instance shares).
SELECT_LATEST_CHECKPOINT = """
    SELECT size, root, note, now() - signed_at < make_interval(secs => %(spacing)s) AS recent
    FROM log_checkpoints ORDER BY size DESC LIMIT 1
"""

ANY_PENDING_ENTRY = "SELECT EXISTS (SELECT 1 FROM log_pending)"
SELECT_PENDING_ENTRIES = "SELECT id, subject, kind, entry FROM log_pending ORDER BY id LIMIT %(limit)s"

SELECT_TILES = """
    SELECT level, hashes FROM log_tiles
    WHERE (level, index) IN (SELECT * FROM unnest(%(levels)s::smallint[], %(indexes)s::bigint[]))
"""

SELECT_TILE = "SELECT hashes FROM log_tiles WHERE level = %(level)s AND index = %(index)s"

SELECT_BUNDLE = "SELECT entries FROM log_bundles WHERE index = %(index)s"

UPSERT_TILES = """
    INSERT INTO log_tiles (level, index, width, hashes)
    SELECT level, index, length(hashes) / 32, hashes
    FROM unnest(%(levels)s::smallint[], %(indexes)s::bigint[], %(hashes)s::bytea[]) AS t (level, index, hashes)
    ON CONFLICT (level, index) DO UPDATE SET width = EXCLUDED.width, hashes = EXCLUDED.hashes
"""

UPSERT_BUNDLES = """
    INSERT INTO log_bundles (index, width, entries)
    SELECT index, width, entries
    FROM unnest(%(indexes)s::bigint[], %(widths)s::smallint[], %(entries)s::bytea[]) AS b (index, width, entries)
    ON CONFLICT (index) DO UPDATE SET width = EXCLUDED.width, entries = EXCLUDED.entries
"""

INSERT_LEAVES = """
    INSERT INTO log_leaves (index, subject, kind, leaf_hash)
    SELECT * FROM unnest(%(indexes)s::bigint[], %(subjects)s::uuid[], %(kinds)s::text[], %(hashes)s::bytea[])
"""

INSERT_CHECKPOINT = "INSERT INTO log_checkpoints (size, root, note) VALUES (%(size)s, %(root)s, %(note)s)"

DELETE_PENDING_ENTRIES = "DELETE FROM log_pending WHERE id = ANY(%(ids)s::bigint[])"

_WITH_COSIGNATURES = """
    SELECT c.size, c.root, c.note,
           ARRAY(SELECT line FROM log_cosignatures s WHERE s.size = c.size ORDER BY witness) AS cosignatures
    FROM log_checkpoints c
"""

# The checkpoint published last: the largest ever published, whichever instance published it.
SELECT_PUBLISHED_CHECKPOINT = _WITH_COSIGNATURES + "WHERE c.size = (SELECT max(size) FROM log_published)"

SELECT_LATEST_SIGNED = _WITH_COSIGNATURES + "ORDER BY c.size DESC LIMIT 1"

# The newest checkpoint cosigned by every witness named (with none named: the newest), of those larger than the
# one published last: read from the newest down (the key's index), never the whole list of checkpoints.
SELECT_PUBLISHABLE = """
    SELECT c.size FROM log_checkpoints c
    WHERE c.size > (SELECT coalesce(max(size), -1) FROM log_published)
      AND (SELECT count(*) FROM log_cosignatures s WHERE s.size = c.size AND s.witness = ANY(%(witnesses)s::text[]))
          = cardinality(%(witnesses)s::text[])
    ORDER BY c.size DESC
    LIMIT 1
"""

# A checkpoint published, unless one as large was published before.
PUBLISH_CHECKPOINT = """
    INSERT INTO log_published (size)
    SELECT %(size)s WHERE %(size)s > (SELECT coalesce(max(size), -1) FROM log_published)
    ON CONFLICT (size) DO NOTHING
"""

# The first publication, before any witness has cosigned: the newest checkpoint, if none was ever published.
SELECT_FIRST_TO_PUBLISH = """
    SELECT max(size) AS size FROM log_checkpoints WHERE NOT EXISTS (SELECT FROM log_published)
"""

SELECT_COSIGNED_SIZE = "SELECT coalesce(max(size), 0) FROM log_cosignatures WHERE witness = %(witness)s"

INSERT_COSIGNATURE = """
    INSERT INTO log_cosignatures (size, witness, line) VALUES (%(size)s, %(witness)s, %(line)s)
    ON CONFLICT (size, witness) DO NOTHING
"""

INSERT_RETIREMENT = """
    INSERT INTO log_retirements (origin, verifier_key, final_checkpoint, successor_origin, successor_key)
    VALUES (%(origin)s, %(verifier_key)s, %(final_checkpoint)s, %(successor_origin)s, %(successor_key)s)
    ON CONFLICT DO NOTHING
"""
SELECT_RETIREMENTS = """
    SELECT origin, verifier_key, final_checkpoint, successor_origin, successor_key, retired_at
    FROM log_retirements ORDER BY retired_at, origin
"""

RECORD_PLACE_LOCK = "SELECT pg_advisory_xact_lock(%(key)s)"
LATEST_RECORD_PLACE = "SELECT place FROM log_record_places ORDER BY claim DESC LIMIT 1"
CLAIM_RECORD_PLACE = "INSERT INTO log_record_places (place) VALUES (%(place)s)"

SELECT_LEAVES_OF = "SELECT index, kind FROM log_leaves WHERE subject = ANY(%(subjects)s::uuid[]) ORDER BY index"

WRITE_BARRIER = "SELECT pg_logical_emit_message(true, 'osmosis-barrier', '')"
"""A write of the barrier's own: a transactional WAL record, so that its commit waits, as any write's does, until the
synchronous standby has everything up to it (PostgresStore._confirm_replicated). A transaction that only takes an id
writes a commit record PostgreSQL does not wait for: it confirms nothing."""

WAL_POSITION = "SELECT pg_current_wal_lsn()::text"
"""Where the primary's WAL is: every commit acknowledged so far is before it."""

REPLAYED = """
SELECT CASE WHEN pg_is_in_recovery() THEN coalesce(pg_last_wal_replay_lsn() >= %(position)s::pg_lsn, false)
ELSE true END
"""
"""Whether a standby has replayed the primary's WAL up to a position (a primary has all of its own)."""

REPLAY_BEHIND = """
SELECT CASE WHEN pg_is_in_recovery() THEN
    pg_is_wal_replay_paused()
    OR NOT EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming')
    OR coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()) > %(max_lag_bytes)s, true)
ELSE false END AS behind
"""
"""Whether a standby's answers may be older than the primary's by more than a moment (false on a primary)."""

SYNCHRONOUS_STANDBYS = """
SELECT current_setting('synchronous_standby_names') <> '' AS waits_for_standby,
       EXISTS (SELECT FROM pg_stat_replication WHERE sync_state IS NULL) AS hidden,
       EXISTS (SELECT FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum') AND state = 'streaming')
           AS streaming
"""
"""Whether commits wait for a synchronous standby, and whether one streams (its rows' details are hidden from a role
without pg_monitor)."""
