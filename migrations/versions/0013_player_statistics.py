"""Players' statistics: a projection of their finished games, kept by the write that reveals each game's seeds,
and rebuilt from the games' logs by `osmosis rebuild-stats`.

`player_results` holds one row per finished game of a player under a preset (its result as its log shows it);
`player_stats` the sums per player and preset, from which the all-time boards are read.

Revision ID: 0013
Revises: 0012
"""

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE player_results (
        game_id uuid PRIMARY KEY REFERENCES games (id),
        player_id uuid NOT NULL REFERENCES players (id),
        variant text NOT NULL,
        daily date,
        won boolean NOT NULL,
        score integer NOT NULL CHECK (score BETWEEN 0 AND 52),
        hints integer NOT NULL CHECK (hints >= 0),
        actions integer NOT NULL CHECK (actions >= 0),
        started_at timestamptz NOT NULL,
        ended_at timestamptz NOT NULL
    );
    CREATE INDEX player_results_of_player ON player_results (player_id, variant, daily);
    CREATE TABLE player_stats (
        player_id uuid NOT NULL REFERENCES players (id),
        variant text NOT NULL,
        games integer NOT NULL CHECK (games > 0),
        wins integer NOT NULL CHECK (wins BETWEEN 0 AND games),
        best_actions integer,
        best_game uuid REFERENCES games (id),
        PRIMARY KEY (player_id, variant)
    );
    """)


def downgrade() -> None:
    op.execute("DROP TABLE player_stats, player_results;")
