"""Players' joining in the public log, and days whose boards rank only the players who joined before the day's deal
opened: an account made to scout a day's deal (the deal is the same for everyone) does not rank on that day's board,
and anyone can check it from the log (`osmosis audit --board`).

Every player made so far joins the log now (pending, in the order they signed up), before any deal opened from now
on; the deals opened before keep ranking everyone (`ranks_joined_before` false), those opened from now on say the rule
in their `daily_deal_opened` entry.

Revision ID: 0019
Revises: 0018
"""

from alembic import op

from server.log import public_entries

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    ALTER TABLE daily_deals ADD COLUMN ranks_joined_before boolean NOT NULL DEFAULT false;
    ALTER TABLE daily_deals ALTER COLUMN ranks_joined_before SET DEFAULT true;
    """)
    connection = op.get_bind().connection.dbapi_connection
    assert connection is not None
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, name, kind FROM players ORDER BY created_at, id")
        joined = [
            (player_id, public_entries.PLAYER_JOINED, public_entries.player_joined(player_id, name, kind))
            for player_id, name, kind in cursor.fetchall()
        ]
        cursor.executemany("INSERT INTO log_pending (subject, kind, entry) VALUES (%s, %s, %s)", joined)


def downgrade() -> None:
    op.execute("ALTER TABLE daily_deals DROP COLUMN ranks_joined_before")
