"""Competitions, and the contest every daily and competition game is played in.

A contest game is its player's alone until its contest closes: `games.private_until` says until when, for a daily
game (the next midnight UTC after its day, filled in here for those there are) and a competition game alike, so that
every read, list and feed asks one column. A competition entrant's game keeps its clock in `games.competition`.

A competition's entrants are its `competition_entries`, each with its game once started (one game an entrant: a
unique index, so that concurrent starts make one) and its finish as the game's end wrote it (in the same statement),
with the leaf hash of its competition_game_finished entry: the log's order of those entries breaks the last ties.
An API token may hold the new scope `organize` (announce competitions, amend their results).

Revision ID: 0024
Revises: 0023
"""

from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    ALTER TABLE games ADD COLUMN private_until timestamptz, ADD COLUMN competition jsonb;
    UPDATE games SET private_until = (daily + 1)::timestamp AT TIME ZONE 'UTC' WHERE daily IS NOT NULL;
    ALTER TABLE games ADD CONSTRAINT contest_games_are_private_until_their_close
        CHECK ((daily IS NULL AND competition IS NULL) = (private_until IS NULL));
    DROP INDEX games_of_players_in_play;
    CREATE INDEX games_of_players_in_play ON games (created_at)
        WHERE status = 'playing' AND player_id IS NOT NULL AND private_until IS NULL;

    CREATE TABLE competitions (
        id uuid PRIMARY KEY,
        organizer_id uuid NOT NULL REFERENCES players (id),
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        format text NOT NULL CHECK (format IN ('race', 'window')),
        variant text,
        rules jsonb NOT NULL,
        entrants text NOT NULL CHECK (entrants IN ('human', 'bot')),
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL CHECK (ends_at > starts_at),
        limit_ms integer NOT NULL CHECK (limit_ms BETWEEN 5000 AND 86400000),
        winnable boolean NOT NULL,
        max_entrants integer NOT NULL CHECK (max_entrants BETWEEN 1 AND 10000),
        hints text NOT NULL CHECK (hints IN ('off', 'counted')),
        review_s integer NOT NULL CHECK (review_s >= 0),
        server_seed bytea NOT NULL CHECK (length(server_seed) = 32),
        commitment text NOT NULL CHECK (commitment ~ '^[0-9a-f]{64}$'),
        deal jsonb NOT NULL,
        announced_at timestamptz NOT NULL,
        entrants_count integer NOT NULL DEFAULT 0 CHECK (entrants_count >= 0),
        closed_at timestamptz,
        standings_root text CHECK (standings_root ~ '^[0-9a-f]{64}$')
    );
    CREATE INDEX competitions_by_start ON competitions (starts_at DESC, id DESC);
    CREATE INDEX competitions_to_close ON competitions (ends_at) WHERE closed_at IS NULL;
    CREATE INDEX competitions_of_organizer ON competitions (organizer_id) WHERE closed_at IS NULL;

    CREATE TABLE competition_entries (
        competition_id uuid NOT NULL REFERENCES competitions (id),
        player_id uuid NOT NULL REFERENCES players (id),
        entered_at timestamptz NOT NULL,
        game_id uuid UNIQUE REFERENCES games (id),
        started_at timestamptz,
        deadline timestamptz,
        finished_status text CHECK (finished_status IN ('won', 'lost', 'resigned', 'timed_out')),
        finished_score integer,
        finished_actions integer,
        finished_elapsed_ms integer,
        finished_leaf bytea,
        struck text,
        PRIMARY KEY (competition_id, player_id)
    );
    CREATE INDEX competition_entries_of_player ON competition_entries (player_id);
    CREATE INDEX competition_entries_running_out ON competition_entries (deadline)
        WHERE game_id IS NOT NULL AND finished_status IS NULL;

    ALTER TABLE player_tokens DROP CONSTRAINT player_tokens_scopes_check;
    ALTER TABLE player_tokens ADD CONSTRAINT player_tokens_scopes_check
        CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['play', 'account', 'organize']);
    """)


def downgrade() -> None:
    op.execute("""
    DELETE FROM player_tokens WHERE scopes = ARRAY['organize'];
    UPDATE player_tokens SET scopes = array_remove(scopes, 'organize');
    ALTER TABLE player_tokens DROP CONSTRAINT player_tokens_scopes_check;
    ALTER TABLE player_tokens ADD CONSTRAINT player_tokens_scopes_check
        CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['play', 'account']);
    DROP TABLE competition_entries;
    DROP TABLE competitions;
    DROP INDEX games_of_players_in_play;
    CREATE INDEX games_of_players_in_play ON games (created_at)
        WHERE status = 'playing' AND player_id IS NOT NULL AND daily IS NULL;
    ALTER TABLE games DROP CONSTRAINT contest_games_are_private_until_their_close;
    ALTER TABLE games DROP COLUMN competition, DROP COLUMN private_until;
    """)
