"""The order of the feed of every game's events: each event names the transaction that wrote it.

A feed read as "the events after the last one seen" must not skip an event whose transaction commits
after a later one's: numbers handed out by a sequence commit out of order. So the feed is ordered by the
writing transaction's id, then by game and seq (one transaction writes the events of one game), and it is
read only below the oldest transaction still running (`pg_snapshot_xmin`): every transaction there has
ended, so no event can appear before the point a reader has reached (server/store/sql.py, READ_FEED).

The events logged before this migration all name its transaction: they come first, game by game.

Revision ID: 0009
Revises: 0008
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A stable default: the existing rows take the migration's own transaction id without being rewritten
    # (the log is append-only, and an UPDATE of it is refused).
    op.execute("""
    ALTER TABLE game_events ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
    CREATE INDEX game_events_feed_order ON game_events (tx, game_id, seq);
    """)


def downgrade() -> None:
    op.execute("""
    DROP INDEX game_events_feed_order;
    ALTER TABLE game_events DROP COLUMN tx;
    """)
