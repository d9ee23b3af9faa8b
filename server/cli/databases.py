"""The database a command works on: DATABASE_URL's; or the embedded one, the running server's while `osmosis serve`
runs, else started for the command alone."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..config import Settings


@contextlib.contextmanager
def database_url(settings: Settings) -> Iterator[str]:
    """Raises embedded.InUse when another command holds the embedded server without serving it."""
    from ..store import embedded  # the database's commands alone load psycopg: `osmosis deal` starts without it

    if settings.database_url is not None:
        yield settings.database_url
    elif (url := embedded.running_url(settings.data_dir)) is not None:
        yield url
    else:
        with embedded.running(settings.data_dir) as url:
            yield url
