"""The checkpoints published, kept: the one served is the largest ever published, by any instance, so that it never
goes back when the witnesses an instance lists change, or two instances list different ones. The newest checkpoint
every witness that ever cosigned has cosigned (the newest of all, for a log without witnesses) is published to
begin with: what was served under the last witness lists, or less.

Revision ID: 0017
Revises: 0016
"""

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE log_published (
        size bigint PRIMARY KEY REFERENCES log_checkpoints (size),
        published_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TRIGGER log_published_append_only BEFORE UPDATE OR DELETE ON log_published
        FOR EACH ROW EXECUTE FUNCTION refuse_public_log_change();
    INSERT INTO log_published (size)
    SELECT coalesce((SELECT min(newest) FROM (SELECT max(size) AS newest FROM log_cosignatures GROUP BY witness) w),
                    (SELECT max(size) FROM log_checkpoints))
    WHERE EXISTS (SELECT FROM log_checkpoints);
    """)


def downgrade() -> None:
    op.execute("DROP TABLE log_published")
