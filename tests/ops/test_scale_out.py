"""Past one machine: two server instances on one database behind nginx (deploy/nginx.conf) serve the
same games consistently, whichever instance answers."""

import http.client
import json
import random
import subprocess
import threading
import urllib.request

import pytest
import yaml

from tests.api.helpers import sse_messages
from tests.apps import free_port
from tests.databases import drop_database, migrated_database
from tests.ops.test_deploy import DEPLOY, nginx_config_for
from tests.processes import call, start_gunicorn, stop, wait_until_ready
from tests.waiting import until


def nginx_in_front_of(ports, tmp_path):
    """deploy/nginx.conf's nginx before the servers on these ports, and its own port."""
    nginx_port = free_port()
    config = tmp_path / "nginx.conf"
    config.write_text(nginx_config_for([f"127.0.0.1:{port}" for port in ports], nginx_port))
    nginx = subprocess.Popen(
        [
            "/usr/sbin/nginx",
            "-c",
            config,
            "-p",
            tmp_path,
            "-e",
            tmp_path / "error.log",
            "-g",
            f"daemon off; pid {tmp_path / 'nginx.pid'};",
        ]
    )
    wait_until_ready(f"http://127.0.0.1:{nginx_port}", nginx)
    return nginx, nginx_port


@pytest.fixture
def two_instances_behind_nginx(embedded_server_url, tmp_path):
    url = migrated_database(embedded_server_url)
    ports = [free_port(), free_port()]
    servers = [start_gunicorn(url, port, WEB_CONCURRENCY="1", PROXY_COUNT="1") for port in ports]
    nginx, nginx_port = nginx_in_front_of(ports, tmp_path)
    yield f"http://127.0.0.1:{nginx_port}", [f"http://127.0.0.1:{port}" for port in ports]
    nginx.terminate()
    nginx.wait(timeout=10)
    for server in servers:
        stop(server)
    drop_database(embedded_server_url, url)


def test_games_played_through_nginx_are_the_same_on_every_instance(two_instances_behind_nginx):
    front, instances = two_instances_behind_nginx
    games = []

    def player(seed):
        rng = random.Random(seed)
        status, game, _ = call("POST", f"{front}/games", {"variant": "osmosis-draw-one"})
        assert status == 201
        token, versions = game["player_token"], [game["version"]]
        for _ in range(40):
            if game["status"] != "playing":
                break
            action = rng.choice(game["legal_actions"])
            path, body = ("moves", {"card": action["card"]}) if action["kind"] == "move" else ("draw", {})
            status, result, _ = call("POST", f"{front}/games/{game['id']}/{path}", body, token)
            assert status == 200, result
            game = result["game"]
            versions.append(game["version"])
        games.append((game, versions))

    threads = [threading.Thread(target=player, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(games) == 6
    for game, versions in games:
        assert versions == sorted(set(versions)), "a version went backwards or repeated"
        on_each = [call("GET", f"{base}/games/{game['id']}")[1] for base in instances]
        assert on_each[0] == on_each[1] == call("GET", f"{front}/games/{game['id']}")[1]
        assert on_each[0]["version"] == game["version"]
        assert call("GET", f"{instances[1]}/games/{game['id']}/verification")[1]["valid"]


def test_a_race_between_two_instances_has_exactly_one_winner(two_instances_behind_nginx):
    _, instances = two_instances_behind_nginx
    for _ in range(5):
        _, game, _ = call("POST", f"{instances[0]}/games", {})
        results = []

        def act(base, game=game, results=results):
            results.append(
                call("POST", f"{base}/games/{game['id']}/draw", {"expected_version": 1}, game["player_token"])[0]
            )

        threads = [threading.Thread(target=act, args=(base,)) for base in instances]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        assert sorted(results) == [200, 412]


def test_the_request_id_nginx_gives_is_the_one_the_server_answers_with(two_instances_behind_nginx):
    front, _ = two_instances_behind_nginx

    _, _, given = call("GET", f"{front}/variants")
    status, _, headers = call("GET", f"{front}/variants", headers={"X-Request-ID": "from-the-client"})

    assert len(given["X-Request-ID"]) == 32  # made by nginx ($request_id), passed on and echoed
    assert status == 200 and headers["X-Request-ID"] == "from-the-client"


def test_a_stream_through_nginx_gets_every_event_whichever_instance_lands_it(two_instances_behind_nginx):
    front, instances = two_instances_behind_nginx
    game = call("POST", f"{front}/games", {"variant": "osmosis-draw-one", "deal_number": 5})[1]
    stream = urllib.request.urlopen(f"{front}/games/{game['id']}/events/stream", timeout=30)
    messages = sse_messages(iter(stream.readline, b""))
    assert next(m for m in messages if "data" in m)["event"] == "game"
    assert next(m for m in messages if "data" in m)["id"] == "1"

    for instance in instances * 3:  # each instance lands some, directly
        assert call("POST", f"{instance}/games/{game['id']}/draw", token=game["player_token"])[0] == 200
    seqs = [int(next(m for m in messages if "data" in m)["id"]) for _ in range(6)]

    assert seqs == [2, 3, 4, 5, 6, 7]


WHO_A_CLIENT_IS = ("PROXY_COUNT", "RATE_LIMIT", "RATE_LIMIT_EXEMPT", "SIGN_UP_RATE_LIMIT", "IPV6_CLIENT_PREFIX")


def shipped_settings(compose_file, service="server"):
    """Who a client is, as a compose file ships its server: its env file, then its own environment over it."""
    compose = yaml.safe_load(compose_file.read_text())["services"][service]
    settings = {}
    for line in (compose_file.parent / compose["env_file"]).read_text().splitlines():
        name, equals, value = line.partition("=")
        if equals and not name.startswith("#"):
            settings[name] = value
    settings.update({name: str(value) for name, value in compose.get("environment", {}).items()})
    return {name: settings[name] for name in WHO_A_CLIENT_IS if name in settings}


class FromAddress:
    """A client calling from a loopback address of its own (all of 127.0.0.0/8 is this machine's): nginx names it
    in X-Forwarded-For as it would a client on another machine."""

    def __init__(self, port, address):
        self.port, self.address = port, address

    def call(self, method, path, body=None, token=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60, source_address=(self.address, 0))
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
        connection.request(method, path, None if body is None else json.dumps(body), headers)
        response = connection.getresponse()
        answer = response.status, json.loads(response.read() or b"null")
        connection.close()
        return answer


def test_behind_the_shipped_nginx_one_client_cannot_lock_another_out(embedded_server_url, tmp_path):
    settings = shipped_settings(DEPLOY / "compose.yaml")
    assert settings["PROXY_COUNT"] == "1" and settings["RATE_LIMIT_EXEMPT"] == ""
    url = migrated_database(embedded_server_url)
    port = free_port()
    server = start_gunicorn(url, port, **settings)
    nginx, nginx_port = nginx_in_front_of([port], tmp_path)
    greedy, other = FromAddress(nginx_port, "127.0.0.2"), FromAddress(nginx_port, "127.0.0.3")
    try:
        # A burst past the rate limit (30 a second as shipped): the greedy client is refused, the other is not.
        burst = [greedy.call("GET", "/variants")[0] for _ in range(45)]
        assert 429 in burst and burst[0] == 200
        assert other.call("GET", "/variants")[0] == 200
        until(lambda: greedy.call("GET", "/variants")[0] == 200, seconds=5)  # the next second's budget

        # Sign-ups, five a minute each: the sixth of one client is refused, the other's first is not.
        signed = [greedy.call("POST", "/players", {"name": f"greedy{n}", "kind": "human"})[0] for n in range(6)]
        assert signed[:5] == [201] * 5 and signed[5] == 429
        assert other.call("POST", "/players", {"name": "patient", "kind": "human"})[0] == 201

        # Hints, two solver jobs a client: four at once from one client, and the other's hint beside them.
        games = [other.call("POST", "/games", {"variant": "osmosis-ablage", "deal_number": n})[1] for n in range(5)]
        answers = {}

        def hint(client, game):
            answers[game["id"]] = client.call("POST", f"/games/{game['id']}/hint", None, game["player_token"])

        threads = [threading.Thread(target=hint, args=(greedy, game)) for game in games[:4]]
        threads.append(threading.Thread(target=hint, args=(other, games[4])))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
        stop(server)
        drop_database(embedded_server_url, url)

    greedy_statuses = sorted(answers[game["id"]][0] for game in games[:4])
    assert 200 in greedy_statuses and 429 in greedy_statuses, greedy_statuses
    assert all(answers[game["id"]][1]["code"] == "solver-busy" for game in games[:4] if answers[game["id"]][0] == 429)
    assert answers[games[4]["id"]][0] == 200, answers[games[4]["id"]]
