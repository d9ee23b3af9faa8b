"""The boards: a daily game's time from its first to its last action, the player's kind beside each result and
sum (humans and bots have boards of their own), and the win rate's lower bound, each indexed in its board's
order (every key ascending, so that a page starts after a row of keys) so that a page is an index range.

Revision ID: 0014
Revises: 0013
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

# The 95% Wilson score interval's lower bound (service/players/stats.py: wilson_interval), as SQL: the all-time
# boards rank by it.
LOWER_BOUND = """
    ((wins::float8 / games + 3.841458881296 / (2 * games))
     - 1.959964 * sqrt((wins::float8 / games) * (1 - wins::float8 / games) / games
                       + 3.841458881296 / (4.0 * games * games)))
    / (1 + 3.841458881296 / games)
"""


def upgrade() -> None:
    op.execute(f"""
    ALTER TABLE player_results
        ADD COLUMN kind text NOT NULL DEFAULT 'human' CHECK (kind IN ('human', 'bot')),
        ADD COLUMN first_action_at timestamptz,
        ADD COLUMN last_action_at timestamptz;
    UPDATE player_results r SET kind = p.kind FROM players p WHERE p.id = r.player_id;
    ALTER TABLE player_results ALTER COLUMN kind DROP DEFAULT;
    CREATE INDEX player_results_daily_board ON player_results
        (daily, variant, kind, (NOT won), (-score), hints, actions,
         (coalesce(last_action_at - first_action_at, interval '0')), game_id)
        WHERE daily IS NOT NULL;
    ALTER TABLE player_stats
        ADD COLUMN kind text NOT NULL DEFAULT 'human' CHECK (kind IN ('human', 'bot')),
        ADD COLUMN lower_bound float8 GENERATED ALWAYS AS ({LOWER_BOUND}) STORED;
    UPDATE player_stats s SET kind = p.kind FROM players p WHERE p.id = s.player_id;
    ALTER TABLE player_stats ALTER COLUMN kind DROP DEFAULT;
    CREATE INDEX player_stats_board ON player_stats (variant, kind, (-lower_bound), (-games), player_id);
    """)


def downgrade() -> None:
    op.execute("""
    DROP INDEX player_stats_board;
    ALTER TABLE player_stats DROP COLUMN lower_bound, DROP COLUMN kind;
    DROP INDEX player_results_daily_board;
    ALTER TABLE player_results DROP COLUMN last_action_at, DROP COLUMN first_action_at, DROP COLUMN kind;
    """)
