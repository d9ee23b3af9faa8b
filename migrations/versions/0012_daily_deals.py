"""The daily deal: one sealed deal per preset and UTC day, the same for every player, one attempt each.

A day's deals are opened (their commitments entered in the public log) at its start; a daily game names its
day, and a player has at most one game of a preset's deal a day (a unique index: two attempts at once cannot
both be made). The index of unrevealed daily games is what the close of a day works through.

Revision ID: 0012
Revises: 0011
"""

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE daily_deals (
        day date NOT NULL,
        variant text NOT NULL,
        id uuid NOT NULL UNIQUE,
        server_seed bytea NOT NULL CHECK (length(server_seed) = 32),
        commitment text NOT NULL CHECK (commitment ~ '^[0-9a-f]{64}$'),
        opened_at timestamptz NOT NULL,
        PRIMARY KEY (day, variant)
    );
    ALTER TABLE games ADD COLUMN daily date;
    ALTER TABLE games ADD CONSTRAINT daily_games_have_a_player CHECK (daily IS NULL OR player_id IS NOT NULL);
    CREATE UNIQUE INDEX games_one_daily_attempt ON games (player_id, daily, variant) WHERE daily IS NOT NULL;
    CREATE INDEX games_daily_unrevealed ON games (daily) WHERE daily IS NOT NULL AND NOT (deal ? 'server_seed');
    """)


def downgrade() -> None:
    op.execute("""
    DROP INDEX games_daily_unrevealed;
    DROP INDEX games_one_daily_attempt;
    ALTER TABLE games DROP CONSTRAINT daily_games_have_a_player;
    ALTER TABLE games DROP COLUMN daily;
    DROP TABLE daily_deals;
    """)
