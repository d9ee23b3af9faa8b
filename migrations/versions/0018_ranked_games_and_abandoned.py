"""Boards that cannot be topped by looking up a solution or by leaving losing games open.

- A game of a public deal number (anyone can solve it, and any finished game's analysis shows a winning line) still
  counts on its player's page, but not on the all-time boards: `player_results.public_deal`, and the boards rank by
  `player_stats.ranked_games` and `ranked_wins`, the games of deals nobody could look up (random, sealed, daily).
- A game its player leaves without an action for ABANDONED_AFTER (service/players/abandoned.py) is ended as resigned
  by the upkeep and counts as a loss: `player_results.abandoned`, `player_stats.abandoned`. The partial index finds
  them among the players' games in play by creation time, which never changes: an action's update stays HOT.
  `games_abandoned` keeps which games it ended so, a fact the log does not hold, for `osmosis rebuild-stats`.

Revision ID: 0018
Revises: 0017
"""

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

# The 95% Wilson score interval's lower bound of the ranked games (as 0014's, on ranked_wins and ranked_games).
LOWER_BOUND = """
    CASE WHEN ranked_games = 0 THEN NULL ELSE
    ((ranked_wins::float8 / ranked_games + 3.841458881296 / (2 * ranked_games))
     - 1.959964 * sqrt((ranked_wins::float8 / ranked_games) * (1 - ranked_wins::float8 / ranked_games) / ranked_games
                       + 3.841458881296 / (4.0 * ranked_games * ranked_games)))
    / (1 + 3.841458881296 / ranked_games) END
"""


def upgrade() -> None:
    op.execute(f"""
    ALTER TABLE player_results
        ADD COLUMN public_deal boolean NOT NULL DEFAULT false,
        ADD COLUMN abandoned boolean NOT NULL DEFAULT false;
    UPDATE player_results r SET public_deal = true FROM games g WHERE g.id = r.game_id AND g.deal->>'kind' = 'number';
    DROP INDEX player_stats_board;
    ALTER TABLE player_stats
        DROP COLUMN lower_bound,
        ADD COLUMN ranked_games integer NOT NULL DEFAULT 0 CHECK (ranked_games >= 0),
        ADD COLUMN ranked_wins integer NOT NULL DEFAULT 0 CHECK (ranked_wins BETWEEN 0 AND ranked_games),
        ADD COLUMN abandoned integer NOT NULL DEFAULT 0 CHECK (abandoned >= 0);
    UPDATE player_stats s SET ranked_games = sums.games, ranked_wins = sums.wins
    FROM (SELECT player_id, variant, count(*) AS games, count(*) FILTER (WHERE won) AS wins FROM player_results
          WHERE verified AND NOT public_deal GROUP BY player_id, variant) AS sums
    WHERE sums.player_id = s.player_id AND sums.variant = s.variant;
    ALTER TABLE player_stats ADD COLUMN lower_bound float8 GENERATED ALWAYS AS ({LOWER_BOUND}) STORED;
    CREATE INDEX player_stats_board ON player_stats (variant, kind, (-lower_bound), (-ranked_games), player_id)
        WHERE ranked_games > 0;
    CREATE INDEX games_of_players_in_play ON games (created_at)
        WHERE status = 'playing' AND player_id IS NOT NULL AND daily IS NULL;
    CREATE TABLE games_abandoned (
        game_id uuid PRIMARY KEY REFERENCES games (id),
        abandoned_at timestamptz NOT NULL DEFAULT now()
    );
    """)


def downgrade() -> None:
    op.execute("""
    DROP TABLE games_abandoned;
    DROP INDEX games_of_players_in_play;
    DROP INDEX player_stats_board;
    ALTER TABLE player_stats DROP COLUMN lower_bound, DROP COLUMN abandoned, DROP COLUMN ranked_wins,
        DROP COLUMN ranked_games;
    ALTER TABLE player_stats ADD COLUMN lower_bound float8 GENERATED ALWAYS AS (
        ((wins::float8 / games + 3.841458881296 / (2 * games))
         - 1.959964 * sqrt((wins::float8 / games) * (1 - wins::float8 / games) / games
                           + 3.841458881296 / (4.0 * games * games)))
        / (1 + 3.841458881296 / games)) STORED;
    CREATE INDEX player_stats_board ON player_stats (variant, kind, (-lower_bound), (-games), player_id);
    ALTER TABLE player_results DROP COLUMN abandoned, DROP COLUMN public_deal;
    """)
