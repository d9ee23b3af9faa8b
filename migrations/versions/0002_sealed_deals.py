"""Sealed deals: a server seed committed to before the client chooses its seed.

Revision ID: 0002
Revises: 0001
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    -- The server seed stays here, never in a response, until the game made from it is over.
    CREATE TABLE sealed_deals (
        id          uuid PRIMARY KEY,
        created_at  timestamptz NOT NULL,
        server_seed bytea NOT NULL CHECK (length(server_seed) = 32),
        commitment  text NOT NULL,
        game_id     uuid UNIQUE REFERENCES games (id)
    );
    """)


def downgrade() -> None:
    op.execute("DROP TABLE sealed_deals;")
