"""What the servers' role may not write: the schema's version, and the log's cosignatures once written.

A server connects as an app role that reads and writes the tables and owns nothing (deploy/patroni/roles.sql,
deploy/compose.yaml): the owner's default privileges gave it INSERT, UPDATE and DELETE on every table the migrations
made, alembic_version too, so it could set the schema's version back and have the next start migrate over it. And
log_cosignatures had no append-only trigger beside the checkpoints they cosign: a cosignature changed or deleted
would unpublish a checkpoint (0017 reads the published size from them).

Revision ID: 0023
Revises: 0022
"""

from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

# Every role but the table's owner that was granted a write on alembic_version (PUBLIC included).
_WRITERS_OF_THE_VERSION = """
    SELECT DISTINCT
        CASE WHEN privilege.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(privilege.grantee)) END
    FROM pg_class table_, aclexplode(table_.relacl) privilege
    WHERE table_.oid = 'alembic_version'::regclass
      AND privilege.grantee <> table_.relowner
      AND privilege.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE')
"""
# Every role but the owner that reads alembic_version: the app roles, as the owner's default privileges made them.
_READERS_OF_THE_VERSION = _WRITERS_OF_THE_VERSION.replace("IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE')", "= 'SELECT'")


def upgrade() -> None:
    op.execute(f"""
    CREATE TRIGGER log_cosignatures_append_only BEFORE UPDATE OR DELETE ON log_cosignatures
        FOR EACH ROW EXECUTE FUNCTION refuse_public_log_change();
    DO $$
    DECLARE writer text;
    BEGIN
        FOR writer IN {_WRITERS_OF_THE_VERSION} LOOP
            EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON alembic_version FROM %s', writer);
        END LOOP;
    END $$;
    """)


def downgrade() -> None:
    op.execute(f"""
    DROP TRIGGER log_cosignatures_append_only ON log_cosignatures;
    DO $$
    DECLARE reader text;
    BEGIN
        FOR reader IN {_READERS_OF_THE_VERSION} LOOP
            EXECUTE format('GRANT INSERT, UPDATE, DELETE ON alembic_version TO %s', reader);
        END LOOP;
    END $$;
    """)
