"""Undo as an event (action_undone): how many actions each game took back, and how many an undo could still take
back, kept with the game and shown in its document; and the players' results and sums that keep such games apart.

A game in which an action was taken back ranks on no board: `player_results.undos`, and the sums count it among the
player's games but not among the ranked ones, nor as a best win; `player_stats.undone` counts them.

Revision ID: 0022
Revises: 0021
"""

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

_ACTIONS = "'card_played', 'card_moved_to_cell', 'cards_dealt', 'waste_redealt'"


def upgrade() -> None:
    # No log holds an undo yet: every action of a game in play can be taken back. The documents are json kept byte
    # for byte: the two fields are appended where the server writes them, last (as 0008 appended `hints`).
    op.execute(f"""
    ALTER TABLE games
        ADD COLUMN undos integer NOT NULL DEFAULT 0 CHECK (undos >= 0),
        ADD COLUMN undoable integer NOT NULL DEFAULT 0 CHECK (undoable >= 0);
    UPDATE games SET undoable = acted.count
    FROM (SELECT game_id, count(*) FROM game_events WHERE kind IN ({_ACTIONS}) GROUP BY game_id) AS acted
    WHERE acted.game_id = games.id;
    UPDATE games SET document = (left(rtrim(document::text), -1) || ',"undos":' || undos || ',"can_undo":'
        || (undoable > 0 AND daily IS NULL AND status = 'playing')::text || '}}')::json;
    ALTER TABLE player_results ADD COLUMN undos integer NOT NULL DEFAULT 0 CHECK (undos >= 0);
    ALTER TABLE player_stats ADD COLUMN undone integer NOT NULL DEFAULT 0 CHECK (undone >= 0);
    """)


def downgrade() -> None:
    # The two fields cut from the end of each document's text, where upgrade() and the server put them: every other
    # byte stays as it was (through jsonb the keys would be reordered).
    op.execute(r"""
    ALTER TABLE player_stats DROP COLUMN undone;
    ALTER TABLE player_results DROP COLUMN undos;
    UPDATE games
    SET document = regexp_replace(rtrim(document::text), ',"undos":[0-9]+,"can_undo":(true|false)}$', '}')::json;
    ALTER TABLE games DROP COLUMN undoable, DROP COLUMN undos;
    """)
