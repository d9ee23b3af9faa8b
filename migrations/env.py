"""Alembic environment: plain-SQL migrations run on the database named by the config or DATABASE_URL."""

import os

from alembic import context
from sqlalchemy import create_engine, pool

url = context.config.get_main_option("sqlalchemy.url") or os.environ["DATABASE_URL"]
if url.startswith("postgresql://"):
    url = "postgresql+psycopg://" + url.removeprefix("postgresql://")

engine = create_engine(url, poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(connection=connection, transactional_ddl=True)
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
