"""The solver's analysis of finished games: derived data, kept so that a second read is one query.

Revision ID: 0007
Revises: 0006
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Keyed by the solver's version and budget too: a later solver writes its own row, and deleting
    # every row only costs the next reads their search.
    op.execute("""
    CREATE TABLE game_analyses (
        game_id uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        solver text NOT NULL,
        budget integer NOT NULL,
        analysis jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (game_id, solver, budget)
    );
    """)


def downgrade() -> None:
    op.execute("DROP TABLE game_analyses;")
