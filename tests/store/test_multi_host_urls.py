"""DATABASE_URL may name several hosts, as libpq reads them (`postgresql://u@h1:5432,h2:5432/osmosis?
target_session_attrs=read-write`): the way to a replicated cluster without a proxy. Every part of the server that
takes the URL takes that form: the migrations, the pool, `osmosis serve`."""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import psycopg
from psycopg.conninfo import conninfo_to_dict

from server.store import migrate, open_pool
from tests.apps import free_port
from tests.databases import drop_database, empty_database

OSMOSIS = Path(sys.executable).with_name("osmosis")


def with_a_dead_host_first(url: str) -> str:
    """The URL with a host that refuses every connection named before its own, and the primary asked for."""
    info = conninfo_to_dict(url)
    user = f"{info['user']}@" if info.get("user") else ""
    host = quote(info.get("host", "127.0.0.1"), safe="")  # the embedded server's is a socket's directory
    return (
        f"postgresql://{user}127.0.0.1:1,{host}:{info.get('port', 5432)}/{info['dbname']}"
        "?target_session_attrs=read-write&connect_timeout=5"
    )


def test_the_migrations_run_on_a_multi_host_url(embedded_server_url):
    url = empty_database(embedded_server_url)
    try:
        migrate.upgrade(with_a_dead_host_first(url))

        with psycopg.connect(url) as conn:
            applied = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    finally:
        drop_database(embedded_server_url, url)
    assert applied == (migrate.head_revision(),)


def test_the_pool_connects_through_a_multi_host_url(embedded_server_url):
    url = empty_database(embedded_server_url)
    pool = open_pool(with_a_dead_host_first(url), min_size=1, max_size=1, timeout=10, statement_timeout_ms=5000)
    try:
        with pool.connection() as conn:
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (False,)
    finally:
        pool.close()
        drop_database(embedded_server_url, url)


def test_osmosis_serve_starts_and_answers_on_a_multi_host_url(embedded_server_url, tmp_path):
    url = empty_database(embedded_server_url)
    port = free_port()
    env = {**os.environ, "DATABASE_URL": with_a_dead_host_first(url), "OSMOSIS_DATA_DIR": str(tmp_path)}
    process = subprocess.Popen(
        [OSMOSIS, "serve", "--port", str(port), "--workers", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        ready = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as answer:
                    ready = answer.status
                    break
            except OSError:
                time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=60)
        drop_database(embedded_server_url, url)
    assert ready == 200, output[-3000:]


def test_a_primary_is_never_behind_itself_as_a_replica(store):
    assert store.replay_behind(max_lag_bytes=0) is False


def test_a_server_with_no_synchronous_standby_to_wait_for_takes_writes(store):
    assert store.standing() == {"writes": "ok"}
