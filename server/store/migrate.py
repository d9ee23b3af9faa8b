"""Apply the alembic migrations in migrations/ (plain SQL) to a database."""

from __future__ import annotations

import psycopg
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from ..config import shipped

MIGRATIONS = shipped("migrations")


def alembic_config(database_url: str) -> Config:
    config = Config(str(MIGRATIONS / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


class DatabaseUnreachable(RuntimeError):
    """The database could not be connected to (within the URL's connect_timeout, else ten seconds)."""


def upgrade(database_url: str) -> None:
    try:
        command.upgrade(alembic_config(database_url), "head")
    except Exception as error:
        cause = getattr(error, "orig", error)  # SQLAlchemy, which drives the connection, wraps psycopg's errors
        if not isinstance(cause, psycopg.OperationalError):
            raise
        reason = str(cause).strip().splitlines()[0]
        raise DatabaseUnreachable(f"the database cannot be reached to migrate it: {reason}") from None


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config("postgresql://unused")).get_current_head()
    assert head is not None
    return head
