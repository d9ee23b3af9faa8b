"""Replication benchmark: what synchronous replication costs an action, and what a replica takes off the primary's
reads, side by side on one Patroni cluster.

Run: .venv/bin/python bench/replication.py [--clients 8] [--seconds 4] [--rounds 3]
Starts etcd and three PostgreSQL nodes under Patroni (tests/patroni_cluster.py, Debian's packages from
scripts/install-system-packages) and three gunicorns with deploy/gunicorn.conf.py on the one primary:
- `sync`: on a database whose commits wait for the synchronous standby, as deployed (deploy/patroni/);
- `local`: on a database of the same primary with `synchronous_commit = local`, a primary that does not wait for its
  standby: the one difference is the wait, so the ratio of the two is synchronous replication's cost;
- `replica`: on the `sync` database with READ_DATABASE_URL on the standbys (prefer-standby).
Phases alternate in rounds, so that a shared machine's drift falls on both sides alike. Prints throughput, p50 and
p99 of each, the CPU each node's PostgreSQL spent, and the ratios docs/performance.md records.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import psutil
import psycopg

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
sys.path.insert(0, str(PROJECT / "bench"))

from load import (  # noqa: E402
    Measurement,
    actions_work,
    free_port,
    long_game,
    reads_work,
    run_phase,
    start_gunicorn,
    stop_servers,
)

from server.store import migrate  # noqa: E402
from server.transparency.notes import generate_signer  # noqa: E402
from tests.patroni_cluster import Node, PatroniCluster  # noqa: E402


def _node_cpu(node: Node) -> float:
    """CPU seconds of the node's PostgreSQL, its postmaster and every process it runs."""
    pid = node.postmaster_pid()
    if pid is None:
        return 0.0
    try:
        postmaster = psutil.Process(pid)
        processes = [postmaster, *postmaster.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return total


def _prepare(cluster: PatroniCluster) -> tuple[str, str]:
    leader = cluster.leader()
    assert leader is not None
    with psycopg.connect(leader.url(), autocommit=True) as conn:
        for name in ("osmosis_sync", "osmosis_local"):
            conn.execute(f"CREATE DATABASE {name}")
        conn.execute("ALTER DATABASE osmosis_local SET synchronous_commit = local")
    for name in ("osmosis_sync", "osmosis_local"):
        migrate.upgrade(cluster.database_url(name))
    return cluster.database_url("osmosis_sync"), cluster.database_url("osmosis_local")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=4, help="length of one phase of one round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    cluster = PatroniCluster()
    servers = {}
    try:
        cluster.start()
        sync_url, local_url = _prepare(cluster)
        key = generate_signer("bench.example/log").skey
        ports = {"sync": free_port(), "local": free_port(), "replica": free_port()}
        for name, url, extra in (
            ("sync", sync_url, {}),
            ("local", local_url, {}),
            ("replica", sync_url, {"READ_DATABASE_URL": cluster.database_url("osmosis_sync", "prefer-standby")}),
        ):
            servers[name] = start_gunicorn(
                "server.runtime.app:create_app()",
                url,
                ports[name],
                None,
                WEB_CONCURRENCY="2",
                LOG_SIGNING_KEY=key,
                **extra,
            )
        game_id = long_game(ports["sync"], 300)
        pages = [f"/games/{game_id}/events?after={after}&limit=100" for after in (0, 100, 200)]
        pages += [f"/games/{game_id}/states/{seq}" for seq in (50, 150, 250)]

        leader = cluster.leader()
        assert leader is not None
        # Every worker opens its pools and loads its code with its first requests: not part of any figure.
        for name in ("sync", "local"):
            run_phase(args.clients, 1.0, actions_work(ports[name]))
        for name in ("sync", "replica"):
            run_phase(args.clients, 1.0, reads_work(ports[name], pages))
        print(
            f"{args.clients} clients, {args.rounds} rounds of {args.seconds:g} s a phase, 2 gevent workers a gunicorn"
        )
        phases = [
            (Measurement("actions, commit waits for the standby (sync)"), actions_work(ports["sync"])),
            (Measurement("actions, local commit (local)"), actions_work(ports["local"])),
            (Measurement("history reads, primary only"), reads_work(ports["sync"], pages)),
            (Measurement("history reads, READ_DATABASE_URL on the standbys"), reads_work(ports["replica"], pages)),
        ]
        primary_cpu = {measurement.name: 0.0 for measurement, _ in phases}
        for _ in range(args.rounds):
            for measurement, make_work in phases:
                before = _node_cpu(leader)
                latencies = run_phase(args.clients, args.seconds, make_work)
                primary_cpu[measurement.name] += _node_cpu(leader) - before
                measurement.add(latencies, args.seconds, {})
        for measurement, _ in phases:
            count = len(measurement.latencies)
            print(
                f"{measurement.name:<52} {measurement.rate:>7,.0f}/s   p50 {measurement.p50 * 1000:7.2f} ms   "
                f"p99 {measurement.p99 * 1000:7.2f} ms   n={count}"
            )
            per_request = 1000 * primary_cpu[measurement.name] / count if count else 0.0
            print(f"{'':<52} the primary's PostgreSQL, CPU ms a request: {per_request:.3f}")
        sync, local, primary_reads, replica_reads = (measurement for measurement, _ in phases)
        print()
        print(f"sync / local actions a second: {sync.rate / local.rate:.2f}")
        print(f"sync / local action p50: {sync.p50 / local.p50:.2f}")
        print(f"replica / primary history reads a second: {replica_reads.rate / primary_reads.rate:.2f}")
        primary_share = primary_cpu[replica_reads.name] / max(len(replica_reads.latencies), 1)
        primary_alone = primary_cpu[primary_reads.name] / max(len(primary_reads.latencies), 1)
        # A phase too short for the kernel's CPU clock (10 ms ticks) measures none: there is no ratio to give.
        ratio = f"{primary_share / primary_alone:.2f}" if primary_alone else "n/a (no CPU measured: run it longer)"
        print(f"primary's CPU a history read, with / without replicas: {ratio}")
    finally:
        stop_servers(servers)
        cluster.stop()
        cluster.remove()


if __name__ == "__main__":
    main()
