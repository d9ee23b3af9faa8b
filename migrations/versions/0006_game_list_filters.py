"""The game list filtered by status or by variant stays an index scan, newest first.

Revision ID: 0006
Revises: 0005
"""

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE INDEX games_by_status_newest_first ON games (status, created_at DESC, id DESC);
    CREATE INDEX games_by_variant_newest_first ON games (variant, created_at DESC, id DESC);
    """)


def downgrade() -> None:
    op.execute("""
    DROP INDEX games_by_variant_newest_first;
    DROP INDEX games_by_status_newest_first;
    """)
