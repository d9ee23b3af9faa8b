"""The game as every response shows it, stored as rendered JSON text in place of the bare public view.

A read of a game then sends the stored text as it is: no JSON to parse or write on the hottest path, and
exactly the bytes of the response that last changed the game.

Revision ID: 0004
Revises: 0003
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# Python's datetime.isoformat() of a UTC time, which the server writes: the fraction only when nonzero.
_ISO = """(to_char({0} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
          || CASE WHEN date_part('microseconds', {0})::integer % 1000000 = 0 THEN ''
                  ELSE to_char({0} AT TIME ZONE 'UTC', '.US') END
          || '+00:00')"""


def upgrade() -> None:
    op.execute(f"""
    -- json, not jsonb: the text is kept byte for byte, key order included.
    ALTER TABLE games ADD COLUMN document json;
    UPDATE games SET document = json_build_object(
        'id', id, 'status', status, 'version', version, 'variant', variant, 'rules', rules, 'deal', deal,
        'commitment', commitment, 'created_at', {_ISO.format("created_at")},
        'updated_at', {_ISO.format("updated_at")}, 'score', score, 'head_hash', head_hash,
        'state', view -> 'state', 'legal_actions', view -> 'legal_actions');
    ALTER TABLE games ALTER COLUMN document SET NOT NULL;
    ALTER TABLE games DROP COLUMN view;
    """)


def downgrade() -> None:
    op.execute("""
    ALTER TABLE games ADD COLUMN view jsonb;
    UPDATE games SET view = jsonb_build_object('state', document -> 'state',
                                               'legal_actions', document -> 'legal_actions');
    ALTER TABLE games ALTER COLUMN view SET NOT NULL;
    ALTER TABLE games DROP COLUMN document;
    """)
