"""How many hints each game's player asked for, kept with the game and shown in its document.

Revision ID: 0008
Revises: 0007
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The documents are json kept byte for byte: the count is appended as their last field, where the
    # server writes it, instead of rewriting them through jsonb (which would reorder their keys).
    # The count comes from the log, so that a downgrade and an upgrade lose none.
    op.execute("""
    ALTER TABLE games ADD COLUMN hints integer NOT NULL DEFAULT 0 CHECK (hints >= 0);
    UPDATE games SET hints = given.count
    FROM (SELECT game_id, count(*) FROM game_events WHERE kind = 'hint_given' GROUP BY game_id) AS given
    WHERE given.game_id = games.id;
    UPDATE games SET document = (left(rtrim(document::text), -1) || ',"hints":' || hints || '}')::json;
    """)


def downgrade() -> None:
    op.execute("""
    UPDATE games SET document = (document::jsonb - 'hints')::json;
    ALTER TABLE games DROP COLUMN hints;
    """)
