"""Past one machine: two server instances on one database behind nginx (deploy/nginx.conf) serve the
same games consistently, whichever instance answers."""

import random
import subprocess
import threading
import urllib.request

import pytest

from tests.api.helpers import sse_messages
from tests.apps import free_port
from tests.databases import drop_database, migrated_database
from tests.ops.test_deploy import nginx_config_for
from tests.processes import call, start_gunicorn, stop, wait_until_ready


@pytest.fixture
def two_instances_behind_nginx(embedded_server_url, tmp_path):
    url = migrated_database(embedded_server_url)
    ports = [free_port(), free_port()]
    servers = [start_gunicorn(url, port, WEB_CONCURRENCY="1", PROXY_COUNT="1") for port in ports]
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
