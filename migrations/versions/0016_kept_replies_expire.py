"""Kept replies expire: the upkeep forgets the replies kept for Idempotency-Keys once they are a day old (docs/api.md,
"Idempotency"). A BRIN index on their creation time finds the old ones: the rows come in that order, and it costs a
write next to nothing.

Revision ID: 0016
Revises: 0015
"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE INDEX idempotency_keys_created_at ON idempotency_keys USING brin (created_at)")


def downgrade() -> None:
    op.execute("DROP INDEX idempotency_keys_created_at")
