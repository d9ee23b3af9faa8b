"""Storage on PostgreSQL: every SQL statement of the server is in this package (`sql`), run by `postgres` on
the connections of `connections`, with records turned to rows and back by `rows`; `migrate` runs the
migrations, `embedded` the PostgreSQL of a machine that has none."""

from .connections import open_pool
from .postgres import PostgresStore

__all__ = ["PostgresStore", "open_pool"]
