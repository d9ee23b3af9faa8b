"""The public transparency log: entries waiting to be sequenced, the leaves, the tiles and entry bundles,
the signed checkpoints and the witnesses' cosignatures (docs/transparency.md).

A creation, an end or a sealing records its entry in `log_pending` in its own transaction; the sequencer
moves entries from there into the tree, in the order of their ids, and deletes them in the same
transaction: an entry is never lost, nor integrated twice (`log_leaves.leaf_hash` is unique besides).
Full tiles and bundles, leaves and checkpoints are append-only, like the game log.

The games and sealed deals made before this migration are entered here, in the order they were made
(a game's end at the time it ended), so that the log covers every game the server ever dealt.

Revision ID: 0010
Revises: 0009
"""

from alembic import op

from server.log import public_entries

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("""
    CREATE TABLE log_pending (
        id bigserial PRIMARY KEY,
        subject uuid NOT NULL,
        kind text NOT NULL,
        entry bytea NOT NULL CHECK (length(entry) <= 65535)
    );
    CREATE TABLE log_leaves (
        index bigint PRIMARY KEY CHECK (index >= 0),
        subject uuid NOT NULL,
        kind text NOT NULL,
        leaf_hash bytea NOT NULL UNIQUE
    );
    CREATE INDEX log_leaves_by_subject ON log_leaves (subject, index);
    CREATE TABLE log_tiles (
        level smallint NOT NULL CHECK (level BETWEEN 0 AND 63),
        index bigint NOT NULL CHECK (index >= 0),
        width smallint NOT NULL CHECK (width BETWEEN 1 AND 256),
        hashes bytea NOT NULL CHECK (length(hashes) = 32 * width),
        PRIMARY KEY (level, index)
    );
    CREATE TABLE log_bundles (
        index bigint PRIMARY KEY CHECK (index >= 0),
        width smallint NOT NULL CHECK (width BETWEEN 1 AND 256),
        entries bytea NOT NULL
    );
    CREATE TABLE log_checkpoints (
        size bigint PRIMARY KEY CHECK (size >= 0),
        root bytea NOT NULL CHECK (length(root) = 32),
        note text NOT NULL,
        signed_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE log_cosignatures (
        size bigint NOT NULL REFERENCES log_checkpoints (size),
        witness text NOT NULL,
        line text NOT NULL,
        PRIMARY KEY (size, witness)
    );

    CREATE FUNCTION refuse_public_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP;
    END;
    $$;
    -- A tile or bundle grows until it is full, then never changes.
    CREATE FUNCTION refuse_tile_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF OLD.width = 256 OR NEW.width <= OLD.width THEN
            RAISE EXCEPTION '% rows only grow until full: update refused', TG_TABLE_NAME;
        END IF;
        RETURN NEW;
    END;
    $$;
    CREATE TRIGGER log_leaves_append_only BEFORE UPDATE OR DELETE ON log_leaves
        FOR EACH ROW EXECUTE FUNCTION refuse_public_log_change();
    CREATE TRIGGER log_checkpoints_append_only BEFORE UPDATE OR DELETE ON log_checkpoints
        FOR EACH ROW EXECUTE FUNCTION refuse_public_log_change();
    CREATE TRIGGER log_tiles_no_delete BEFORE DELETE ON log_tiles
        FOR EACH ROW EXECUTE FUNCTION refuse_public_log_change();
    CREATE TRIGGER log_bundles_no_delete BEFORE DELETE ON log_bundles
        FOR EACH ROW EXECUTE FUNCTION refuse_public_log_change();
    CREATE TRIGGER log_tiles_only_grow BEFORE UPDATE ON log_tiles
        FOR EACH ROW EXECUTE FUNCTION refuse_tile_rewrite();
    CREATE TRIGGER log_bundles_only_grow BEFORE UPDATE ON log_bundles
        FOR EACH ROW EXECUTE FUNCTION refuse_tile_rewrite();
    """)
    _enter_what_was_made_before()


def _enter_what_was_made_before() -> None:
    connection = op.get_bind().connection.dbapi_connection
    assert connection is not None
    made = []
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, created_at, commitment FROM sealed_deals")
        for deal_id, created_at, commitment in cursor.fetchall():
            made.append(
                (created_at, 0, deal_id, public_entries.DEAL_SEALED, public_entries.deal_sealed(deal_id, commitment))
            )
        cursor.execute("""
            SELECT g.id, g.created_at, g.updated_at, g.variant, g.rules, g.deal, g.commitment, g.status, g.version,
                   g.head_hash, g.score, s.server_seed, s.client_seed
            FROM games g JOIN game_secrets s ON s.game_id = g.id
        """)
        for (
            game_id,
            created_at,
            updated_at,
            variant,
            rules,
            deal,
            commitment,
            status,
            version,
            head_hash,
            score,
            server_seed,
            client_seed,
        ) in cursor.fetchall():
            made.append(
                (
                    created_at,
                    1,
                    game_id,
                    public_entries.GAME_CREATED,
                    public_entries.game_created(game_id, variant, rules, deal, commitment),
                )
            )
            if status != "playing":
                made.append(
                    (
                        updated_at,
                        2,
                        game_id,
                        public_entries.GAME_ENDED,
                        public_entries.game_ended(
                            game_id, status, version, head_hash, score, bytes(server_seed), client_seed
                        ),
                    )
                )
        made.sort(key=lambda entry: entry[:3])
        cursor.executemany(
            "INSERT INTO log_pending (subject, kind, entry) VALUES (%s, %s, %s)",
            [(subject, kind, entry) for _, _, subject, kind, entry in made],
        )


def downgrade() -> None:
    op.execute("""
    DROP TABLE log_cosignatures, log_checkpoints, log_bundles, log_tiles, log_leaves, log_pending;
    DROP FUNCTION refuse_tile_rewrite();
    DROP FUNCTION refuse_public_log_change();
    """)
