"""Snapshots become append-only like the log they are taken from; a stored response keeps its exact text.

Time travel starts from the snapshots, so an edited one would change what a replay shows: like the events
they may only be inserted. An idempotent retry gets the first response byte for byte: the body is kept as
`json` (its text as sent, key order included) instead of `jsonb`, and the player token of a created game
apart from it, wrapped under the raw key as before.

Revision ID: 0005
Revises: 0004
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END;
    $$;
    CREATE TRIGGER game_snapshots_append_only
        BEFORE UPDATE OR DELETE ON game_snapshots
        FOR EACH ROW EXECUTE FUNCTION refuse_change();
    CREATE TRIGGER game_snapshots_no_truncate
        BEFORE TRUNCATE ON game_snapshots
        FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

    ALTER TABLE idempotency_keys ADD COLUMN player_token_wrapped text;
    UPDATE idempotency_keys
    SET player_token_wrapped = body ->> 'player_token_wrapped',
        body = body - 'player_token_wrapped' - 'player_token'
    WHERE body ? 'player_token_wrapped';
    ALTER TABLE idempotency_keys ALTER COLUMN body TYPE json USING body::json;
    """)


def downgrade() -> None:
    op.execute("""
    ALTER TABLE idempotency_keys ALTER COLUMN body TYPE jsonb USING body::jsonb;
    UPDATE idempotency_keys
    SET body = body || jsonb_build_object('player_token', null, 'player_token_wrapped', player_token_wrapped)
    WHERE player_token_wrapped IS NOT NULL;
    ALTER TABLE idempotency_keys DROP COLUMN player_token_wrapped;

    DROP TRIGGER game_snapshots_no_truncate ON game_snapshots;
    DROP TRIGGER game_snapshots_append_only ON game_snapshots;
    DROP FUNCTION refuse_change();
    """)
