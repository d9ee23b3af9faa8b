"""A real replicated PostgreSQL for the drills: one etcd and three PostgreSQL nodes run by Patroni, from Debian's
packages (scripts/install-system-packages), on free loopback ports in a folder of their own.

Patroni's timings are short here (a leader's lease of 8 s, a loop of 1 s) so that a failover fits in a drill; the
deployed configuration (deploy/patroni/) keeps Patroni's defaults. As root, PostgreSQL refuses to run: Patroni then
runs as Debian's postgres user, which owns the folder.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

from tests.apps import free_port

BIN_DIR = Path("/usr/lib/postgresql/15/bin")
HAPROXY_CONFIG = Path(__file__).parents[1] / "deploy" / "patroni" / "haproxy.cfg"
SCOPE = "osmosis-drill"
ROLES_SQL = Path(__file__).parents[1] / "deploy" / "patroni" / "roles.sql"
REST_API_PASSWORD = "drill-rest-api"
LEASE_SECONDS = 8


def missing_tools() -> list[str]:
    tools = ("patroni", "patronictl", "etcd", "etcdctl", "haproxy")
    return [tool for tool in tools if shutil.which(tool) is None] + (
        [] if (BIN_DIR / "postgres").exists() else [str(BIN_DIR / "postgres")]
    )


@dataclass
class Node:
    name: str
    folder: Path
    port: int
    rest_port: int
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def config(self) -> Path:
        return self.folder / "patroni.yml"

    @property
    def data_dir(self) -> Path:
        return self.folder / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data_dir / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None


class PatroniCluster:
    def __init__(self, size: int = 3) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="osmosis-cluster-", dir="/tmp"))
        self.etcd_port, self.etcd_peer_port = free_port(), free_port()
        self.etcd: subprocess.Popen | None = None
        self.nodes = [Node(f"node{i}", self.folder / f"node{i}", free_port(), free_port()) for i in range(size)]
        self._as_user = "postgres" if os.geteuid() == 0 else None
        self.haproxy: subprocess.Popen | None = None

    # -- starting and stopping

    def start(self) -> None:
        missing = missing_tools()
        if missing:
            pytest.fail(f"the cluster drills need {', '.join(missing)}: run scripts/install-system-packages as root")
        if self._as_user:
            shutil.chown(self.folder, self._as_user, self._as_user)
        self.start_etcd()
        for node in self.nodes:
            node.folder.mkdir()
            node.config.write_text(self._patroni_config(node))
            if self._as_user:
                shutil.chown(node.folder, self._as_user, self._as_user)
                shutil.chown(node.config, self._as_user, self._as_user)
            node.folder.chmod(0o700)
        for node in self.nodes:
            self.start_node(node)
        self.wait_until_healthy(seconds=120)

    def start_etcd(self) -> None:
        peer = f"http://127.0.0.1:{self.etcd_peer_port}"
        client = f"http://127.0.0.1:{self.etcd_port}"
        self.etcd = subprocess.Popen(
            [
                "etcd",
                "--name=etcd0",
                f"--data-dir={self.folder / 'etcd'}",
                f"--listen-client-urls={client}",
                f"--advertise-client-urls={client}",
                f"--listen-peer-urls={peer}",
                f"--initial-advertise-peer-urls={peer}",
                f"--initial-cluster=etcd0={peer}",
                "--log-level=error",
            ],
            stdout=subprocess.DEVNULL,
            stderr=open(self.folder / "etcd.log", "ab"),  # noqa: SIM115 -- it lives as long as the process
        )
        deadline = time.monotonic() + 30
        while not self._etcd_healthy():
            if self.etcd.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"etcd did not start: {(self.folder / 'etcd.log').read_text()[-2000:]}")
            time.sleep(0.2)

    def _etcd_healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.etcd_port}/health", timeout=2) as answer:
                return json.loads(answer.read()).get("health") == "true"
        except OSError:
            return False

    def stop_etcd(self) -> None:
        assert self.etcd is not None
        self.etcd.terminate()
        self.etcd.wait(timeout=30)

    def start_node(self, node: Node) -> None:
        log = open(node.folder / "patroni.log", "ab")  # noqa: SIM115 -- it lives as long as the process
        node.process = subprocess.Popen(
            ["patroni", str(node.config)],
            stdout=log,
            stderr=subprocess.STDOUT,
            user=self._as_user,
            group=self._as_user,
            extra_groups=[] if self._as_user else None,
            cwd=node.folder,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(node.folder), "LC_ALL": "C.UTF-8"},
        )

    def kill_node(self, node: Node) -> None:
        """The machine gone: Patroni and its PostgreSQL killed at once, so that nothing hands the lease over."""
        pid = node.postmaster_pid()
        assert node.process is not None
        node.process.kill()
        node.process.wait(timeout=30)
        if pid is not None:
            with _gone():
                os.kill(pid, signal.SIGKILL)
        self._wait_until_stopped(node)

    def kill_postmaster(self, node: Node) -> None:
        pid = node.postmaster_pid()
        assert pid is not None, f"{node.name} runs no PostgreSQL"
        os.kill(pid, signal.SIGKILL)

    def _wait_until_stopped(self, node: Node) -> None:
        deadline = time.monotonic() + 30
        while _accepts_connections(node):
            assert time.monotonic() < deadline, f"{node.name}'s PostgreSQL did not stop"
            time.sleep(0.1)

    def start_haproxy(self) -> tuple[int, int]:
        """HAProxy with deploy/patroni/haproxy.cfg, pointed at these nodes: its primary port and its replicas' port."""
        primary_port, replicas_port = free_port(), free_port()
        text = HAPROXY_CONFIG.read_text()
        text = text.replace("bind *:5000", f"bind 127.0.0.1:{primary_port}")
        text = text.replace("bind *:5001", f"bind 127.0.0.1:{replicas_port}")
        for number, node in enumerate(self.nodes, start=1):
            text = text.replace(
                f"server node{number} node{number}:5432 check port 8008",
                f"server {node.name} 127.0.0.1:{node.port} check port {node.rest_port}",
            )
        assert "node1:5432" not in text, "deploy/patroni/haproxy.cfg names more nodes than the cluster has"
        config = self.folder / "haproxy.cfg"
        config.write_text(text)
        self.haproxy = subprocess.Popen(
            ["haproxy", "-db", "-f", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=open(self.folder / "haproxy.log", "ab"),  # noqa: SIM115 -- it lives as long as the process
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(f"postgresql://postgres@127.0.0.1:{primary_port}/postgres", connect_timeout=2):
                    return primary_port, replicas_port
            except psycopg.OperationalError:
                if self.haproxy.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"HAProxy did not route to the primary: {(self.folder / 'haproxy.log').read_text()}")
                time.sleep(0.3)

    def stop(self) -> None:
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.kill()
            self.haproxy.wait(timeout=30)
        for node in self.nodes:
            if node.process is not None and node.process.poll() is None:
                node.process.terminate()
        for node in self.nodes:
            if node.process is not None:
                try:
                    node.process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    node.process.kill()
            pid = node.postmaster_pid()
            if pid is not None:
                with _gone():
                    os.kill(pid, signal.SIGKILL)
        if self.etcd is not None and self.etcd.poll() is None:
            self.etcd.kill()
            self.etcd.wait(timeout=30)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- what Patroni says

    def members(self) -> list[dict]:
        """The cluster as Patroni's REST API of any running node tells it (GET /cluster)."""
        for node in self.nodes:
            if node.process is None or node.process.poll() is not None:
                continue
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{node.rest_port}/cluster", timeout=2) as answer:
                    return list(json.loads(answer.read())["members"])
            except OSError:
                continue
        return []

    def node(self, name: str) -> Node:
        return next(node for node in self.nodes if node.name == name)

    def leader(self) -> Node | None:
        return next(
            (self.node(m["name"]) for m in self.members() if m["role"] == "leader" and m["state"] == "running"), None
        )

    def sync_standbys(self) -> list[Node]:
        return [self.node(m["name"]) for m in self.members() if m["role"] == "sync_standby"]

    def wait_until_healthy(self, seconds: float = 60, members: int | None = None) -> Node:
        """Until a leader runs read-write and every member (or `members` of them) streams, one synchronously."""
        wanted = len(self.nodes) if members is None else members
        deadline = time.monotonic() + seconds
        while True:
            listed = self.members()
            leader = self.leader()
            streaming = [m for m in listed if m["role"] != "leader" and m["state"] in ("streaming", "running")]
            if leader is not None and len(streaming) + 1 >= wanted and self.sync_standbys() and _is_primary(leader):
                return leader
            if time.monotonic() > deadline:
                pytest.fail(f"the cluster did not become healthy: {listed}\n{self.logs()}")
            time.sleep(0.3)

    def wait_for_new_leader(self, old: Node, seconds: float = 60) -> Node:
        deadline = time.monotonic() + seconds
        while True:
            leader = self.leader()
            if leader is not None and leader is not old and _is_primary(leader):
                return leader
            if time.monotonic() > deadline:
                pytest.fail(f"no new leader after {old.name}: {self.members()}\n{self.logs()}")
            time.sleep(0.2)

    def switchover(self, leader: Node, candidate: Node) -> None:
        self._patronictl(leader, "switchover", SCOPE, "--leader", leader.name, "--candidate", candidate.name, "--force")

    def maintenance(self, on: bool) -> None:
        """Patroni's maintenance mode (`patronictl pause`): it leaves PostgreSQL as it is. Out of it, Patroni resumes
        a replica's paused replay within its loop (PostgreSQL 14 and later)."""
        node = next(n for n in self.nodes if n.process is not None and n.process.poll() is None)
        self._patronictl(node, "pause" if on else "resume", "--wait")

    def _patronictl(self, node: Node, *args: str) -> None:
        subprocess.run(
            ["patronictl", "-c", str(node.config), *args],
            check=True,
            capture_output=True,
            timeout=60,
            user=self._as_user,
            group=self._as_user,
            extra_groups=[] if self._as_user else None,
        )

    def logs(self) -> str:
        parts = []
        for node in self.nodes:
            log = node.folder / "patroni.log"
            if log.exists():
                parts.append(f"--- {node.name}\n{log.read_text(errors='replace')[-1500:]}")
        return "\n".join(parts)

    # -- for the server

    def database_url(self, database: str, attrs: str = "read-write", user: str = "postgres") -> str:
        hosts = ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)
        return f"postgresql://{user}@{hosts}/{database}?target_session_attrs={attrs}&connect_timeout=2"

    def create_database_as_deployed(self) -> None:
        """The database and its roles as deploy/patroni's post_bootstrap makes them (roles.sql): the owner that
        migrates, the servers' role that only reads and writes (the drills connect as it)."""
        leader = self.leader()
        assert leader is not None
        subprocess.run(
            [
                "psql",
                leader.url(),
                "--set",
                "ON_ERROR_STOP=1",
                "--set",
                "owner_password=drill-owner",
                "--set",
                "app_password=drill-app",
                "--file",
                str(ROLES_SQL),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )

    # -- the configuration

    def _patroni_config(self, node: Node) -> str:
        settings = {
            "scope": SCOPE,
            "namespace": "/osmosis/",
            "name": node.name,
            "log": {"level": "WARNING"},
            "restapi": {
                "listen": f"127.0.0.1:{node.rest_port}",
                "connect_address": f"127.0.0.1:{node.rest_port}",
                # As deployed: the calls that change the cluster ask for credentials (patronictl reads them here).
                "authentication": {"username": "patroni", "password": REST_API_PASSWORD},
            },
            "etcd3": {"hosts": f"127.0.0.1:{self.etcd_port}"},
            "bootstrap": {
                "dcs": {
                    "ttl": LEASE_SECONDS,
                    "loop_wait": 1,
                    "retry_timeout": 3,
                    "maximum_lag_on_failover": 16 * 1024 * 1024,
                    "synchronous_mode": True,
                    "synchronous_mode_strict": True,
                    "failsafe_mode": True,
                    "postgresql": {
                        "use_pg_rewind": True,
                        "use_slots": True,
                        "parameters": {
                            "wal_level": "replica",
                            "hot_standby": "on",
                            "wal_log_hints": "on",
                            "max_wal_senders": 10,
                            "max_replication_slots": 10,
                            "max_connections": 100,
                            "wal_sender_timeout": "5s",
                            "wal_receiver_status_interval": "1s",
                            "hot_standby_feedback": "on",
                        },
                    },
                },
                "initdb": [{"encoding": "UTF8"}, {"locale": "C.UTF-8"}, "data-checksums"],
                "pg_hba": [
                    "local all all trust",
                    "host all all 127.0.0.1/32 trust",
                    "host replication all 127.0.0.1/32 trust",
                ],
            },
            "postgresql": {
                "listen": f"127.0.0.1:{node.port}",
                "connect_address": f"127.0.0.1:{node.port}",
                "data_dir": str(node.data_dir),
                "bin_dir": str(BIN_DIR),
                "pgpass": str(node.folder / "pgpass"),
                "authentication": {
                    "superuser": {"username": "postgres", "password": "postgres"},
                    "replication": {"username": "replicator", "password": "replicator"},
                    "rewind": {"username": "rewinder", "password": "rewinder"},
                },
                "parameters": {"unix_socket_directories": str(node.folder), "shared_buffers": "32MB"},
            },
        }
        return json.dumps(settings, indent=2)  # JSON is YAML


def _accepts_connections(node: Node) -> bool:
    try:
        with psycopg.connect(node.url(), connect_timeout=1):
            return True
    except psycopg.OperationalError:
        return False


def _is_primary(node: Node) -> bool:
    try:
        with psycopg.connect(node.url(), connect_timeout=2, autocommit=True) as conn:
            return conn.execute("SELECT NOT pg_is_in_recovery()").fetchone()[0]
    except psycopg.OperationalError:
        return False


class _gone:
    """A process that may have ended already."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, *_: object) -> bool:
        return kind is ProcessLookupError
