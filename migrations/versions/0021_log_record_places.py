"""Where the public log's record of its checkpoints is kept: one place for the whole deployment. The first
sequencer to sign claims it with the place's id; an instance whose record is kept elsewhere (its own data
directory, another tiles directory) signs nothing, since its record could not see what the others handed out.
The operator's commands that start the record afresh (`osmosis log recover`, `osmosis log retire`, all servers
stopped) claim the place configured now. Append-only: the latest claim is the place.

Revision ID: 0021
Revises: 0020
"""

from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE log_record_places (
        claim bigserial PRIMARY KEY,
        place text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TRIGGER log_record_places_append_only BEFORE UPDATE OR DELETE ON log_record_places
        FOR EACH ROW EXECUTE FUNCTION refuse_public_log_change();
    """)


def downgrade() -> None:
    op.execute("DROP TABLE log_record_places")
