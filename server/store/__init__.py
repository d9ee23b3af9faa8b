"""Storage on PostgreSQL: every SQL statement of the server is in this package (`sql`), run by `postgres`
on the connections of `connections`."""

from .connections import open_pool
from .postgres import PostgresStore

__all__ = ["PostgresStore", "open_pool"]
