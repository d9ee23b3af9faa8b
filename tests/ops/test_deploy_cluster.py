"""deploy/patroni/: the replicated database's files, checked by the tools that will read them (Patroni's own
validator, HAProxy's), and wired as docs/operations.md says."""

import os
import socket
import subprocess
from pathlib import Path

import yaml

from tests.apps import free_port
from tests.patroni_cluster import PatroniCluster

CLUSTER = Path(__file__).parents[2] / "deploy" / "patroni"


def test_the_node_configuration_passes_patroni_s_own_validation():
    etcd = PatroniCluster(size=0)
    try:
        etcd.start_etcd()
        host = socket.gethostname()
        checked = subprocess.run(
            ["patroni", "--validate-config", str(CLUSTER / "patroni.yml")],
            env={
                **os.environ,
                "PATRONI_NAME": "node1",
                "PATRONI_RESTAPI_CONNECT_ADDRESS": f"{host}:8008",
                "PATRONI_POSTGRESQL_CONNECT_ADDRESS": f"{host}:5432",
                "PATRONI_POSTGRESQL_LISTEN": f"0.0.0.0:{free_port()}",
                "PATRONI_RESTAPI_LISTEN": f"0.0.0.0:{free_port()}",
                "PATRONI_ETCD3_HOSTS": f"127.0.0.1:{etcd.etcd_port}",
                "PATRONI_RESTAPI_USERNAME": "patroni",
                "PATRONI_RESTAPI_PASSWORD": "a password",
            },
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        etcd.stop()
        etcd.remove()
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_commit_is_acknowledged_only_once_a_standby_has_it_and_etcd_going_away_demotes_no_one():
    dcs = yaml.safe_load((CLUSTER / "patroni.yml").read_text())["bootstrap"]["dcs"]

    assert dcs["synchronous_mode"] is True
    assert dcs["synchronous_mode_strict"] is True
    assert dcs["failsafe_mode"] is True
    assert dcs["loop_wait"] + 2 * dcs["retry_timeout"] <= dcs["ttl"], "Patroni's rule for its timings"


def test_haproxy_s_configuration_is_valid_and_routes_by_patroni_s_health_checks():
    checked = subprocess.run(
        ["haproxy", "-c", "-f", str(CLUSTER / "haproxy.cfg")], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stderr
    text = (CLUSTER / "haproxy.cfg").read_text()
    assert "option httpchk GET /primary" in text
    assert "option httpchk GET /replica" in text
    assert "on-marked-down shutdown-sessions" in text


def test_the_compose_file_runs_three_nodes_three_etcd_members_haproxy_and_two_servers_on_the_cluster():
    compose = yaml.safe_load((CLUSTER / "compose.yaml").read_text())
    services = compose["services"]

    assert {"etcd1", "etcd2", "etcd3", "node1", "node2", "node3", "haproxy", "server", "nginx"} <= set(services)
    server = services["server"]
    assert server["deploy"]["replicas"] == 2
    url = server["environment"]["DATABASE_URL"]
    assert "node1:5432,node2:5432,node3:5432" in url and "target_session_attrs=read-write" in url
    assert "LOG_SIGNING_KEY" in server["environment"], "every instance signs with the one key"
    for name in ("node1", "node2", "node3"):
        assert services[name]["environment"]["PATRONI_NAME"] == name
    for copied in ("patroni.yml", "create-database.sh", "haproxy.cfg"):
        assert (CLUSTER / copied).exists()
    for name in ("node1", "node2", "node3"):
        assert "backups:/var/lib/pgbackrest" in services[name]["volumes"], "every node reaches the repository"
    assert server["environment"]["LOG_TILES_DIR"].startswith(server["environment"]["OSMOSIS_DATA_DIR"])
    assert any(volume.endswith(":" + server["environment"]["OSMOSIS_DATA_DIR"]) for volume in server["volumes"])
    assert (CLUSTER / server["build"]["context"] / server["build"]["dockerfile"]).exists()


def test_every_node_archives_to_pgbackrest_and_restores_from_it():
    """The WAL archive and the replicas' source, on the repository the pgBackRest drill restores from
    (tests/ops/test_pgbackrest.py)."""
    node = yaml.safe_load((CLUSTER / "patroni.yml").read_text())
    parameters = node["bootstrap"]["dcs"]["postgresql"]["parameters"]
    assert parameters["archive_mode"] == "on"
    assert parameters["archive_command"] == 'pgbackrest --stanza=osmosis archive-push "%p"'
    assert node["postgresql"]["recovery_conf"]["restore_command"] == 'pgbackrest --stanza=osmosis archive-get %f "%p"'
    assert node["postgresql"]["create_replica_methods"][0] == "pgbackrest"
    dockerfile = (CLUSTER / "Dockerfile").read_text()
    for copied in ("pgbackrest/pgbackrest.conf", "pgbackrest/on-primary", "pgbackrest/crontab"):
        assert f"COPY {copied}" in dockerfile and (CLUSTER.parent / copied).exists()


def test_the_shipped_cluster_runs_its_backups_and_asks_for_credentials_and_servers_hold_least_privilege():
    """Issue 50: the node container ran Patroni alone (no cron: no scheduled backup ever), made no pgBackRest stanza,
    left Patroni's REST API (which switches the primary over) and etcd open, and the servers connected as postgres."""
    dockerfile = (CLUSTER / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["/usr/local/bin/node-entrypoint"]' in dockerfile and "\nUSER " not in dockerfile
    entrypoint = (CLUSTER / "node-entrypoint.sh").read_text()
    assert "\ncron\n" in entrypoint and "exec setpriv --reuid=postgres" in entrypoint and "patroni" in entrypoint
    assert os.access(CLUSTER / "node-entrypoint.sh", os.X_OK) and os.access(CLUSTER / "create-database.sh", os.X_OK)
    bootstrap = (CLUSTER / "create-database.sh").read_text()
    assert "--file /etc/patroni/roles.sql" in bootstrap and "pgbackrest --stanza=osmosis stanza-create" in bootstrap
    for copied in ("roles.sql", "node-entrypoint.sh"):
        assert f"patroni/{copied}" in dockerfile
    assert "COPY pgbackrest/backup-age /usr/local/bin/backup-age" in dockerfile
    assert os.access(CLUSTER.parent / "pgbackrest" / "backup-age", os.X_OK)
    assert "backup-age --stanza osmosis" in (CLUSTER.parent / "pgbackrest" / "crontab").read_text()

    services = yaml.safe_load((CLUSTER / "compose.yaml").read_text())["services"]
    for name in ("node1", "node2", "node3"):
        environment = services[name]["environment"]
        for credential in ("PATRONI_RESTAPI_USERNAME", "PATRONI_RESTAPI_PASSWORD", "PATRONI_ETCD3_USERNAME"):
            assert environment.get(credential), (name, credential)
        assert services[name]["depends_on"]["etcd-auth"]["condition"] == "service_completed_successfully"
    assert "etcdctl auth enable" in services["etcd-auth"]["command"][0]
    assert "osmosis_owner:" in services["migrate"]["environment"]["DATABASE_URL"]
    server = services["server"]
    for url in (server["environment"]["DATABASE_URL"], server["environment"]["READ_DATABASE_URL"]):
        assert url.startswith("postgresql://osmosis_app:"), "the servers connect as the role that only writes"
    assert server["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    roles = (CLUSTER / "roles.sql").read_text()
    assert "CREATE ROLE osmosis_app LOGIN PASSWORD :'app_password' IN ROLE pg_monitor;" in roles
    assert "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO osmosis_app" in roles
