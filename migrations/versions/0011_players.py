"""Players and their API tokens, and the games that are theirs.

A player's name is stored as chosen (NFKC) beside its key (case and look-alike characters folded), which is
unique: two sign-ups with one name cannot both win. A token is kept as its SHA-256 only. A game made with a
player's token names the player; the games made before, and those made without one, name none.

Revision ID: 0011
Revises: 0010
"""

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE players (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (name ~ '^[A-Za-z][A-Za-z0-9_-]{2,23}$'),
        name_key text NOT NULL CONSTRAINT players_name_key_unique UNIQUE,
        kind text NOT NULL CHECK (kind IN ('human', 'bot')),
        created_at timestamptz NOT NULL
    );
    CREATE TABLE player_tokens (
        id uuid PRIMARY KEY,
        player_id uuid NOT NULL REFERENCES players (id),
        token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        scopes text[] NOT NULL CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['play', 'account']),
        label text NOT NULL CHECK (length(label) BETWEEN 1 AND 64),
        created_at timestamptz NOT NULL,
        last_used_at timestamptz,
        revoked_at timestamptz
    );
    CREATE INDEX player_tokens_live ON player_tokens (player_id, created_at) WHERE revoked_at IS NULL;
    ALTER TABLE games ADD COLUMN player_id uuid REFERENCES players (id);
    CREATE INDEX games_of_player_newest_first ON games (player_id, created_at DESC, id DESC)
        WHERE player_id IS NOT NULL;
    """)


def downgrade() -> None:
    op.execute("""
    DROP INDEX games_of_player_newest_first;
    ALTER TABLE games DROP COLUMN player_id;
    DROP TABLE player_tokens, players;
    """)
