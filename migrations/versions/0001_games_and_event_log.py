"""Games, their secrets, the append-only hash-chained event log, and idempotency keys.

Every table is keyed by game id first so that the game tables can be distributed and co-located by
game id (docs/scaling.md).

Revision ID: 0001
Revises:
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE games (
        id          uuid PRIMARY KEY,
        created_at  timestamptz NOT NULL,
        updated_at  timestamptz NOT NULL,
        rules       jsonb NOT NULL,
        variant     text,
        deal        jsonb NOT NULL,
        commitment  text NOT NULL,
        version     integer NOT NULL CHECK (version >= 1),
        status      text NOT NULL CHECK (status IN ('playing', 'won', 'lost', 'resigned')),
        score       integer NOT NULL,
        head_hash   text NOT NULL,
        view        jsonb NOT NULL
    );
    CREATE INDEX games_newest_first ON games (created_at DESC, id DESC);

    -- Kept apart from every table a response reads: the seeds, the full position and the token's hash.
    CREATE TABLE game_secrets (
        game_id     uuid PRIMARY KEY REFERENCES games (id),
        server_seed bytea NOT NULL CHECK (length(server_seed) = 32),
        client_seed text NOT NULL,
        state       text NOT NULL,
        token_hash  text NOT NULL
    );

    CREATE TABLE game_events (
        game_id     uuid NOT NULL REFERENCES games (id),
        seq         integer NOT NULL CHECK (seq >= 1),
        kind        text NOT NULL,
        data        jsonb NOT NULL,
        hash        text NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (game_id, seq)
    );

    CREATE FUNCTION refuse_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'game_events is append-only: % refused', TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END;
    $$;
    CREATE TRIGGER game_events_append_only
        BEFORE UPDATE OR DELETE ON game_events
        FOR EACH ROW EXECUTE FUNCTION refuse_event_change();
    CREATE TRIGGER game_events_no_truncate
        BEFORE TRUNCATE ON game_events
        FOR EACH STATEMENT EXECUTE FUNCTION refuse_event_change();

    -- Keys are stored as hashes: a stored response to POST /games holds the player token wrapped under
    -- the raw key, which only the client knows.
    CREATE TABLE idempotency_keys (
        scope       text NOT NULL,
        key_hash    text NOT NULL,
        fingerprint text NOT NULL,
        status      integer NOT NULL,
        body        jsonb NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, key_hash)
    );
    """)


def downgrade() -> None:
    op.execute("""
    DROP TABLE idempotency_keys;
    DROP TABLE game_events;
    DROP FUNCTION refuse_event_change();
    DROP TABLE game_secrets;
    DROP TABLE games;
    """)
