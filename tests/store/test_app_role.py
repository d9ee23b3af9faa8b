"""The servers' role as deploy/patroni/roles.sql makes it (and deploy/compose.yaml, which runs the same file): after
the migrations, run by the owner, it reads and writes the games and cannot alter the log, its cosignatures or the
schema's version."""

import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

from server.store import migrate
from tests.databases import BACKENDS

ROLES_SQL = Path(__file__).parents[2] / "deploy" / "patroni" / "roles.sql"


def as_user(url: str, user: str, database: str) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{user}:secret@{host}", path=f"/{database}"))


@pytest.fixture(params=BACKENDS)
def app_role_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """roles.sql's statements under names of this test's own, the migrations run by its owner; the app role's URL."""
    server_url = (
        request.getfixturevalue("embedded_server_url") if request.param == "embedded" else os.environ["DATABASE_URL"]
    )
    suffix = uuid.uuid4().hex[:10]
    owner, app, database = f"osmosis_owner_{suffix}", f"osmosis_app_{suffix}", f"osmosis_roles_{suffix}"
    script = ROLES_SQL.read_text()
    script = script.replace("osmosis_owner", owner).replace("osmosis_app", app)
    script = re.sub(r"\bDATABASE osmosis\b", f"DATABASE {database}", script)
    script = script.replace(":'owner_password'", "'secret'").replace(":'app_password'", "'secret'")
    statements = [s.strip() for s in re.sub(r"(?m)^(--.*|\\.*)$", "", script).split(";") if s.strip()]
    before, after = statements[:3], statements[3:]  # the roles and the database; then, in it, the schema's grants
    with psycopg.connect(server_url, autocommit=True) as admin:
        for statement in before:
            admin.execute(statement)
    with psycopg.connect(as_user(server_url, urlsplit(server_url).username or "postgres", database)) as conn:
        for statement in after:
            conn.execute(statement)
    migrate.upgrade(as_user(server_url, owner, database))
    try:
        yield as_user(server_url, app, database)
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(database)))
            for role in (app, owner):
                admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def test_the_app_role_writes_games_and_cannot_alter_the_log_its_cosignatures_or_the_schema_s_version(app_role_url):
    with psycopg.connect(app_role_url, autocommit=True) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (migrate.head_revision(),)
        conn.execute("INSERT INTO log_checkpoints (size, root, note) VALUES (1, %s, 'a note')", (bytes(32),))
        conn.execute("INSERT INTO log_cosignatures (size, witness, line) VALUES (1, 'w', 'a line')")

        for statement in (
            "UPDATE alembic_version SET version_num = '0001'",
            "DELETE FROM alembic_version",
            "INSERT INTO alembic_version VALUES ('9999')",
            "TRUNCATE alembic_version",
            "ALTER TABLE game_events DISABLE TRIGGER ALL",
            "ALTER TABLE log_cosignatures DISABLE TRIGGER ALL",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        for statement in ("UPDATE log_cosignatures SET line = 'another'", "DELETE FROM log_cosignatures"):
            with pytest.raises(psycopg.errors.RaiseException, match="log_cosignatures is append-only"):
                conn.execute(statement)
        assert conn.execute("SELECT line FROM log_cosignatures").fetchall() == [("a line",)]
