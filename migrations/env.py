"""Alembic environment: plain-SQL migrations run on the database named by the config or DATABASE_URL.

The URL goes to libpq as it is (psycopg connects, SQLAlchemy only drives the connection): SQLAlchemy's own parser
refuses what libpq accepts, such as several hosts (`postgresql://u@h1:5432,h2:5432/osmosis?target_session_attrs=
read-write`), the way to a replicated cluster's primary; with a bound on connecting unless it names one."""

import os

import psycopg
from alembic import context
from sqlalchemy import create_engine, pool

from server.store.connections import with_connect_timeout

url = context.config.get_main_option("sqlalchemy.url") or os.environ["DATABASE_URL"]
url = with_connect_timeout(url.replace("postgresql+psycopg://", "postgresql://", 1))

engine = create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(url), poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(connection=connection, transactional_ddl=True)
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
