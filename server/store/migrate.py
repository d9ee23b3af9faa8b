"""Apply the alembic migrations in migrations/ (plain SQL) to a database, and name the newest one.

alembic (and SQLAlchemy, which it drives) is imported only to migrate: a server's worker, which only compares the
database's revision with the newest, starts some 0.3 s sooner without it."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import psycopg

from ..config import shipped

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = shipped("migrations")


def alembic_config(database_url: str) -> Config:
    from alembic.config import Config

    config = Config(str(MIGRATIONS / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


class DatabaseUnreachable(RuntimeError):
    """The database could not be connected to (within the URL's connect_timeout, else ten seconds)."""


def upgrade(database_url: str) -> None:
    from alembic import command

    try:
        command.upgrade(alembic_config(database_url), "head")
    except Exception as error:
        cause = getattr(error, "orig", error)  # SQLAlchemy, which drives the connection, wraps psycopg's errors
        if not isinstance(cause, psycopg.OperationalError):
            raise
        reason = str(cause).strip().splitlines()[0]
        raise DatabaseUnreachable(f"the database cannot be reached to migrate it: {reason}") from None


def head_revision() -> str:
    """The newest migration's revision, as alembic finds it: the one that no script names as its down_revision
    (tests/store/test_migrations.py holds this to alembic's own answer)."""
    revisions: dict[str, str | None] = {}
    for script in (MIGRATIONS / "versions").glob("*.py"):
        names: dict[str, str | None] = {
            target.id: statement.value.value
            for statement in ast.parse(script.read_text()).body
            if isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str | None)
            for target in statement.targets
            if isinstance(target, ast.Name)
        }
        revision = names["revision"]
        assert revision is not None, f"{script.name} names no revision"
        revisions[revision] = names["down_revision"]
    heads = set(revisions) - set(revisions.values())
    assert len(heads) == 1, f"the migrations have {len(heads)} heads: {sorted(heads)}"
    return heads.pop()
