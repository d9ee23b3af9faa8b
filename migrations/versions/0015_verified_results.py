"""A player's result counts once its game's verification is VALID: the result is recorded unverified by the
write that reveals the game, and each server process's upkeep verifies it and, if valid, adds it to the
player's sums, in one statement.

Revision ID: 0015
Revises: 0014
"""

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    ALTER TABLE player_results ADD COLUMN verified boolean;
    UPDATE player_results SET verified = true;
    CREATE INDEX player_results_unverified ON player_results (game_id) WHERE verified IS NULL;
    """)


def downgrade() -> None:
    op.execute("""
    DROP INDEX player_results_unverified;
    ALTER TABLE player_results DROP COLUMN verified;
    """)
