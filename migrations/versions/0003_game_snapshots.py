"""Snapshots of the full position every few events, so that time travel folds only the events since one.

Revision ID: 0003
Revises: 0002
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    -- Full positions, hidden cards included: as secret as game_secrets, and never in a response.
    CREATE TABLE game_snapshots (
        game_id uuid NOT NULL REFERENCES games (id),
        seq     integer NOT NULL CHECK (seq >= 1),
        state   text NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    """)


def downgrade() -> None:
    op.execute("DROP TABLE game_snapshots;")
