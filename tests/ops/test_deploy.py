"""deploy/: every file checked the way it can be here (no Docker engine on these machines)."""

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.apps import free_port
from tests.databases import drop_database, empty_database, migrated_database
from tests.processes import start_gunicorn, stop

DEPLOY = Path(__file__).parents[2] / "deploy"


def nginx_config_for(upstreams, listen_port):
    """deploy/nginx.conf, pointed at the given upstream addresses and port, runnable unprivileged."""
    text = (DEPLOY / "nginx.conf").read_text()
    servers = "\n".join(f"        server {address};" for address in upstreams)
    text = text.replace("        server server:8000;", servers)
    text = text.replace("listen 80;", f"listen 127.0.0.1:{listen_port};")
    return text.replace("access_log /dev/stdout json;", "access_log off;")


def test_the_nginx_configuration_is_valid(tmp_path):
    config = tmp_path / "nginx.conf"
    config.write_text(nginx_config_for(["127.0.0.1:8000"], 18080))

    result = subprocess.run(
        ["/usr/sbin/nginx", "-t", "-c", config, "-p", tmp_path, "-e", tmp_path / "error.log"],
        capture_output=True,
        text=True,
    )

    assert result.returncode == 0, result.stderr
    assert "syntax is ok" in result.stderr


def test_the_systemd_unit_is_valid():
    result = subprocess.run(["systemd-analyze", "verify", DEPLOY / "osmosis.service"], capture_output=True, text=True)

    problems = [
        line for line in result.stderr.splitlines() if "osmosis.service" in line and "/opt/osmosis" not in line
    ]  # the unit names where the checkout lives on a server
    assert not problems, result.stderr
    unit = (DEPLOY / "osmosis.service").read_text()
    for setting in ("User=osmosis", "KillSignal=SIGTERM", "ExecStart=/opt/osmosis/deploy/entrypoint.sh"):
        assert setting in unit


def test_the_kubernetes_manifests_parse_and_probe_the_health_endpoints():
    documents = {doc["kind"]: doc for doc in yaml.safe_load_all((DEPLOY / "kubernetes" / "osmosis.yaml").read_text())}

    deployment = documents["Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["resources"]["requests"] and container["resources"]["limits"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert documents["Service"]["spec"]["selector"].items() <= labels.items()
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    hpa = documents["HorizontalPodAutoscaler"]
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "osmosis"}
    assert hpa["spec"]["minReplicas"] >= 2
    secret = yaml.safe_load((DEPLOY / "kubernetes" / "secret.example.yaml").read_text())
    secret_refs = {ref["secretRef"]["name"] for ref in container["envFrom"] if "secretRef" in ref}
    assert secret_refs == {secret["metadata"]["name"]}


def test_the_compose_file_wires_postgres_redis_servers_and_nginx():
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())

    services = compose["services"]
    assert set(services) == {"postgres", "redis", "migrate", "server", "nginx"}
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert services["server"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["server"]["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in services["nginx"]["volumes"]
    assert (DEPLOY / services["server"]["env_file"]).exists()


def test_every_shipped_deployment_with_a_proxy_in_front_counts_it():
    """Behind a proxy PROXY_COUNT does not count, every client is one client (issue 61)."""
    for compose_file in (DEPLOY / "compose.yaml", DEPLOY / "patroni" / "compose.yaml"):
        services = yaml.safe_load(compose_file.read_text())["services"]
        assert "nginx" in services and services["server"]["environment"]["PROXY_COUNT"] == "1", compose_file
    documents = {doc["kind"]: doc for doc in yaml.safe_load_all((DEPLOY / "kubernetes" / "osmosis.yaml").read_text())}
    assert documents["Service"]["spec"].get("type", "ClusterIP") == "ClusterIP"  # reached through an ingress
    assert documents["ConfigMap"]["data"]["PROXY_COUNT"] == "1"
    example = (DEPLOY / "osmosis.env.example").read_text()
    assert "PROXY_COUNT=0" in example.splitlines() and "behind nginx" in example  # BIND there lets clients in


def test_the_compose_file_runs_the_servers_as_the_app_role_with_passwords_from_env_alone():
    """As deploy/patroni does: the migrations as the owner, the servers as a role that cannot alter the log (issue 61);
    no password written in a file the project ships."""
    text = (DEPLOY / "compose.yaml").read_text()
    services = yaml.safe_load(text)["services"]

    assert services["server"]["environment"]["DATABASE_URL"].startswith("postgresql://osmosis_app:${APP_PASSWORD:?")
    assert services["migrate"]["environment"]["DATABASE_URL"].startswith(
        "postgresql://osmosis_owner:${OWNER_PASSWORD:?"
    )
    assert services["migrate"]["entrypoint"] == ["osmosis", "migrate"]
    passwords = re.findall(r"(\w*PASSWORD\w*): (\S+)", text)
    assert passwords and all(value.startswith("${") and ":?" in value for _, value in passwords), passwords
    assert "osmosis:osmosis@" not in text
    mounts = dict(volume.split(":")[:2] for volume in services["postgres"]["volumes"] if volume.startswith("./"))
    assert mounts == {
        "./create-roles.sh": "/docker-entrypoint-initdb.d/create-roles.sh",
        "./patroni/roles.sql": "/etc/osmosis/roles.sql",
    }
    script = (DEPLOY / "create-roles.sh").read_text()
    assert "--file /etc/osmosis/roles.sql" in script and os.access(DEPLOY / "create-roles.sh", os.X_OK)
    assert "OSMOSIS_OWNER_PASSWORD" in services["postgres"]["environment"]
    assert "OSMOSIS_APP_PASSWORD" in services["postgres"]["environment"]


def test_the_dockerfile_runs_as_a_user_through_the_entrypoint():
    lines = [line.strip() for line in (DEPLOY / "Dockerfile").read_text().splitlines()]

    user = next(line for line in lines if line.startswith("USER "))
    assert user != "USER root"
    assert 'ENTRYPOINT ["/app/deploy/entrypoint.sh"]' in lines
    assert any(line.startswith("HEALTHCHECK") for line in lines)
    for copied in re.findall(r"^COPY (\S+)", "\n".join(lines), re.MULTILINE):
        assert (DEPLOY.parent / copied).exists(), copied


def test_the_example_environment_names_only_documented_settings():
    readme = (DEPLOY.parent / "README.md").read_text()

    for line in (DEPLOY / "osmosis.env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            assert f"`{line.split('=')[0]}`" in readme, line


def get(url):
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read().decode()


def test_the_entrypoint_migrates_serves_metrics_from_all_workers_and_stops_gracefully_on_sigterm(
    embedded_server_url, tmp_path
):
    url = empty_database(embedded_server_url)  # the entrypoint migrates it
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "2",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "XDG_RUNTIME_DIR": str(tmp_path),
    }  # where a control socket would go
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    process = subprocess.Popen(
        [DEPLOY / "entrypoint.sh"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if get(f"http://127.0.0.1:{port}/readyz")[0] == 200:
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the entrypoint did not serve: {process.communicate(timeout=5)}")
                time.sleep(0.3)
        for _ in range(20):
            get(f"http://127.0.0.1:{port}/variants")
        _, metrics = get(f"http://127.0.0.1:{port}/metrics")
        control_sockets = list(tmp_path.rglob("gunicorn.ctl"))
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        drop_database(embedded_server_url, url)

    assert process.returncode == 0, stderr
    served = re.search(r'osmosis_http_requests_total\{method="GET",route="/variants",status="200"\} (\S+)', metrics)
    assert served and float(served.group(1)) == 20.0  # summed over both workers
    log_lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    assert any(line.get("route") == "/variants" and line.get("request_id") for line in log_lines)
    assert not [line for line in log_lines if line["logger"] == "gunicorn.access"], "each request logged twice"
    assert any("Shutting down" in line.get("message", "") for line in log_lines)
    assert not control_sockets, "gunicorn opened a control socket"


def test_gunicorn_writes_its_access_log_when_access_log_asks_for_it(embedded_server_url):
    url = migrated_database(embedded_server_url)
    port = free_port()
    process = start_gunicorn(url, port, ACCESS_LOG="-", LOG_LEVEL="info")
    try:
        get(f"http://127.0.0.1:{port}/variants")
    finally:
        stop(process)
        drop_database(embedded_server_url, url)

    process.log.seek(0)
    access = [
        json.loads(line)
        for line in process.log.read().splitlines()
        if line.startswith("{") and '"gunicorn.access"' in line
    ]
    assert any("GET /variants" in line["message"] and " 200 " in line["message"] for line in access), access


def test_every_shipped_deployment_keeps_the_log_s_state_in_one_persistent_place_all_instances_share():
    """The record of the checkpoints signed is one for the deployment (issue 50): on a volume every instance mounts,
    outside the database, so that a restore of the database cannot roll it back."""
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    server = compose["services"]["server"]
    tiles = server["environment"]["LOG_TILES_DIR"]
    mounts = {volume.split(":")[1]: volume.split(":")[0] for volume in server["volumes"]}
    shared = next(name for path, name in mounts.items() if tiles.startswith(path))
    assert shared in compose["volumes"], "the tiles directory is not on a named volume all replicas share"

    documents = list(yaml.safe_load_all((DEPLOY / "kubernetes" / "osmosis.yaml").read_text()))
    config = next(d for d in documents if d["kind"] == "ConfigMap")["data"]
    claim = next(d for d in documents if d["kind"] == "PersistentVolumeClaim")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    pod = next(d for d in documents if d["kind"] == "Deployment")["spec"]["template"]["spec"]
    volume = next(
        v for v in pod["volumes"] if v.get("persistentVolumeClaim", {}).get("claimName") == claim["metadata"]["name"]
    )
    mount = next(m for m in pod["containers"][0]["volumeMounts"] if m["name"] == volume["name"])
    assert config["LOG_TILES_DIR"].startswith(mount["mountPath"]) and config["OSMOSIS_DATA_DIR"] == mount["mountPath"]

    unit = (DEPLOY / "osmosis.service").read_text()
    assert "StateDirectory=osmosis" in unit and "LOG_TILES_DIR=/var/lib/osmosis/tiles" in unit
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "LOG_TILES_DIR=/var/lib/osmosis/tiles" in dockerfile
