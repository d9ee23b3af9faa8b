"""Logs retired: a log whose entries were lost for good (a restore behind it, its tiles gone too) is frozen with a
final checkpoint announcing its successor, and a new log, under a new key and origin, goes on in the same tables
(its first entry after the retired log's surviving tree says which log it succeeds). Append-only, as the log is.

Revision ID: 0020
Revises: 0019
"""

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE log_retirements (
        origin text PRIMARY KEY,
        verifier_key text NOT NULL UNIQUE,
        final_checkpoint text NOT NULL,
        successor_origin text NOT NULL,
        successor_key text NOT NULL,
        retired_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TRIGGER log_retirements_append_only BEFORE UPDATE OR DELETE ON log_retirements
        FOR EACH ROW EXECUTE FUNCTION refuse_public_log_change();
    """)


def downgrade() -> None:
    op.execute("DROP TABLE log_retirements")
