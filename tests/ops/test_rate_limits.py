"""The rate limit a client is told is the one it gets: counted once for all the workers of a server, with
the default counters (shared memory) and with Redis, under gunicorn as deployed."""

import os
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import redis

from tests.apps import free_port, gunicorn_on_a_new_database
from tests.databases import drop_database, migrated_database
from tests.processes import start_gunicorn, stop, wait_for_workers

PROJECT = Path(__file__).parents[2]
LIMIT = 50
BURST = 200


def burst(base: str) -> list[tuple[int, dict[str, str]]]:
    """BURST requests from 8 threads, each on a connection of its own (so the workers share them)."""
    answers: list[tuple[int, dict[str, str]]] = []
    lock = threading.Lock()

    def send(count: int) -> None:
        for _ in range(count):
            try:
                with urllib.request.urlopen(f"{base}/variants", timeout=10) as response:
                    answer = (response.status, dict(response.headers))
            except urllib.error.HTTPError as error:
                answer = (error.code, dict(error.headers))
            with lock:
                answers.append(answer)

    threads = [threading.Thread(target=send, args=(BURST // 8,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.parametrize("counters", ["default", "redis"])
def test_a_burst_on_four_workers_gets_exactly_the_limit_it_is_told(embedded_server_url, redis_url, counters):
    env = {"WEB_CONCURRENCY": "4", "RATE_LIMIT": f"{LIMIT} per minute", "RATE_LIMIT_EXEMPT": ""}
    if counters == "redis":
        redis.Redis.from_url(redis_url).flushdb()
        env["RATE_LIMIT_STORAGE_URI"] = redis_url
    url = migrated_database(embedded_server_url)
    port = free_port()
    process = start_gunicorn(url, port, **env)
    try:
        wait_for_workers(f"http://127.0.0.1:{port}", 4)
        answers = burst(f"http://127.0.0.1:{port}")
    finally:
        stop(process)
        drop_database(embedded_server_url, url)

    statuses = [status for status, _ in answers]
    workers = {headers["X-Request-ID"][:16] for _, headers in answers}  # a random half per process
    assert len(answers) == BURST and len(workers) >= 2, workers
    assert {headers["X-RateLimit-Limit"] for _, headers in answers} == {str(LIMIT)}
    assert statuses.count(200) == LIMIT and statuses.count(429) == BURST - LIMIT
    assert all(int(headers["Retry-After"]) >= 1 for status, headers in answers if status == 429)


# --- who the limits count: a bot beside its own server is not a stranger on the internet ---------------------


def _app(env):
    from server.config import Settings
    from server.runtime.app import create_app
    from tests.memory_store import MemoryStore

    settings = Settings.from_env(
        {"RATE_LIMIT_STORAGE_URI": "memory://", "OSMOSIS_DATA_DIR": os.environ["OSMOSIS_DATA_DIR"], **env}
    )
    return create_app(settings, MemoryStore()).test_client()


def _statuses(client, count, address, headers=None):
    return [
        client.get("/variants", headers=headers or {}, environ_base={"REMOTE_ADDR": address}).status_code
        for _ in range(count)
    ]


def test_by_default_this_machine_s_own_clients_are_not_limited_and_everyone_else_is():
    client = _app({"RATE_LIMIT": "5 per minute"})

    assert _statuses(client, 20, "127.0.0.1") == [200] * 20
    assert _statuses(client, 20, "::1") == [200] * 20
    assert _statuses(client, 20, "::ffff:127.0.0.1") == [200] * 20
    assert _statuses(client, 6, "203.0.113.7") == [200] * 5 + [429]


def test_a_request_through_a_proxy_not_counted_in_proxy_count_is_never_exempt():
    client = _app({"RATE_LIMIT": "5 per minute"})

    forwarded = _statuses(client, 6, "127.0.0.1", {"X-Forwarded-For": "198.51.100.4"})

    assert forwarded == [200] * 5 + [429]


def test_behind_a_counted_proxy_the_client_s_own_address_decides():
    client = _app({"RATE_LIMIT": "5 per minute", "PROXY_COUNT": "1"})

    assert _statuses(client, 8, "127.0.0.1", {"X-Forwarded-For": "127.0.0.1"}) == [200] * 8
    assert _statuses(client, 6, "127.0.0.1", {"X-Forwarded-For": "198.51.100.5"}) == [200] * 5 + [429]


def test_the_deployment_s_documented_settings_exempt_no_one():
    deployed = dict(
        line.split("=", 1)
        for line in (PROJECT / "deploy" / "osmosis.env.example").read_text().splitlines()
        if line and not line.startswith("#")
    )
    client = _app(
        {name: value for name, value in deployed.items() if name.startswith("RATE_LIMIT_EXEMPT")}
        | {"RATE_LIMIT": "5 per minute"}
    )

    assert deployed["RATE_LIMIT_EXEMPT"] == ""
    assert _statuses(client, 6, "127.0.0.1") == [200] * 5 + [429]


@pytest.mark.parametrize("value", ["nonsense", "10.0.0.0/33", "127.0.0.1,,x"])
def test_an_exempt_network_that_is_not_one_stops_the_server(value):
    from server.config import ConfigError, Settings

    with pytest.raises(ConfigError, match="RATE_LIMIT_EXEMPT"):
        Settings.from_env({"RATE_LIMIT_EXEMPT": value})


@pytest.mark.parametrize(("value", "said"), [("0", "at least 1"), ("129", "at most 128"), ("/64", "a whole number")])
def test_an_ipv6_client_prefix_out_of_range_stops_the_server(value, said):
    from server.config import ConfigError, Settings

    with pytest.raises(ConfigError, match=f"IPV6_CLIENT_PREFIX must be {said}"):
        Settings.from_env({"IPV6_CLIENT_PREFIX": value})


def test_a_bot_beside_a_server_with_the_default_settings_plays_at_full_speed(embedded_server_url):
    """What docs/clients.md promises a bot author against `make serve`: the rate limit, here far below what the bot
    sends, does not cut off a client on the same machine (RATE_LIMIT_EXEMPT left at its default)."""
    from server.client import Api

    with gunicorn_on_a_new_database(embedded_server_url, RATE_LIMIT="20 per minute") as (base, _):
        api = Api(base, patience=0)
        game = api.post("/games", {"variant": "osmosis-draw-one", "deal_number": 3})
        statuses = []
        for _ in range(150):
            statuses.append(api.send("GET", f"/games/{game['id']}").status)
            statuses.append(api.send("GET", "/variants").status)

    assert statuses.count(200) == 300


def test_sign_ups_are_limited_per_address_beside_the_rate_limit():
    client = _app({"RATE_LIMIT": "100 per minute", "SIGN_UP_RATE_LIMIT": "3 per hour"})

    def sign_up(address, n):
        return client.post(
            "/players", json={"name": f"s{address.replace('.', '')}x{n}"}, environ_base={"REMOTE_ADDR": address}
        ).status_code

    assert [sign_up("198.51.100.20", n) for n in range(4)] == [201, 201, 201, 429]
    assert sign_up("198.51.100.21", 0) == 201  # another address
    assert _statuses(client, 3, "198.51.100.20") == [200] * 3  # its other requests are not held up
    assert [sign_up("127.0.0.1", n) for n in range(5)] == [201] * 5  # this machine's own, exempt


def test_a_client_s_requests_count_against_one_limit_whatever_routes_they_go_to():
    """RATE_LIMIT is each client address's: requests spread over routes (reads, lists, a game, a player) do not get
    the limit once a route."""
    client = _app({"RATE_LIMIT": "5 per minute"})
    address = {"REMOTE_ADDR": "198.51.100.30"}
    paths = ["/variants", "/games", "/variants", "/daily", "/games", "/players/nobody"]

    statuses = [client.get(path, environ_base=address).status_code for path in paths]

    assert statuses[:5] == [200, 200, 200, 200, 200]
    assert statuses[5] == 429
    assert _statuses(client, 1, "198.51.100.31") == [200]  # another address has its own


def test_a_player_s_requests_count_against_one_limit_from_whatever_addresses_and_routes():
    """Many addresses do not multiply one player's allowance: requests with the player's API token count against
    RATE_LIMIT once, beside each address's own count."""
    client = _app({"RATE_LIMIT": "4 per minute"})
    made = client.post("/players", json={"name": "roamer"}, environ_base={"REMOTE_ADDR": "127.0.0.1"})
    token = {"Authorization": f"Bearer {made.get_json()['token']}"}
    requests = [
        ("/players/me", "198.51.100.40"),
        ("/players/me/tokens", "198.51.100.41"),
        ("/variants", "198.51.100.42"),
        ("/players/me", "198.51.100.43"),
        ("/players/me/tokens", "198.51.100.44"),
    ]

    statuses = [client.get(path, headers=token, environ_base={"REMOTE_ADDR": at}).status_code for path, at in requests]

    assert statuses == [200, 200, 200, 200, 429]


def test_with_its_counters_out_of_reach_the_server_counts_in_memory_and_answers_every_request():
    """Redis gone: no request gets a 5xx for it; each worker counts in its own memory meanwhile, actions on the
    short path and reads alike."""
    client = _app(
        {"RATE_LIMIT": "3 per minute", "RATE_LIMIT_EXEMPT": "", "RATE_LIMIT_STORAGE_URI": "redis://127.0.0.1:1/0"}
    )
    address = {"REMOTE_ADDR": "198.51.100.50"}
    game = client.post("/games", json={}, environ_base=address).get_json()
    token = {"Authorization": f"Bearer {game['player_token']}"}

    draws = [client.post(f"/games/{game['id']}/draw", headers=token, environ_base=address) for _ in range(3)]

    assert [draw.status_code for draw in draws] == [200, 200, 429]
    assert draws[2].get_json()["code"] == "rate-limited"
    assert client.get("/variants", environ_base=address).status_code == 429
    assert client.get("/variants", environ_base={"REMOTE_ADDR": "198.51.100.51"}).status_code == 200


# --- who a client is: an IPv6 client holds a whole /64, an IPv4 address is one however written ---------------------


def test_sixty_addresses_of_one_ipv6_64_share_one_budget_and_another_64_has_its_own():
    client = _app({"RATE_LIMIT": "20 per minute"})

    statuses = [_statuses(client, 1, f"2001:db8:7:7::{n:x}")[0] for n in range(1, 61)]

    assert statuses == [200] * 20 + [429] * 40
    assert _statuses(client, 1, "2001:db8:7:8::1") == [200]


def test_each_ipv6_address_is_a_client_of_its_own_when_the_prefix_says_so():
    client = _app({"RATE_LIMIT": "20 per minute", "IPV6_CLIENT_PREFIX": "128"})

    assert [_statuses(client, 1, f"2001:db8:7:9::{n:x}")[0] for n in range(1, 31)] == [200] * 30


def test_through_a_proxy_one_ipv4_address_written_three_ways_is_one_client():
    client = _app({"RATE_LIMIT": "6 per minute", "PROXY_COUNT": "1"})
    forms = ["198.51.100.40", "::ffff:198.51.100.40", "198.51.100.40:5678"]

    statuses = [
        client.get(
            "/variants", headers={"X-Forwarded-For": forms[n % 3]}, environ_base={"REMOTE_ADDR": "10.0.0.2"}
        ).status_code
        for n in range(9)
    ]

    assert statuses == [200] * 6 + [429] * 3


def test_sign_ups_from_one_ipv6_64_share_the_sign_up_limit():
    client = _app({"RATE_LIMIT": "100 per minute", "SIGN_UP_RATE_LIMIT": "2 per hour"})

    statuses = [
        client.post(
            "/players", json={"name": f"six{n}x{os.getpid()}"}, environ_base={"REMOTE_ADDR": f"2001:db8:5:5::{n}"}
        ).status_code
        for n in range(1, 4)
    ]

    assert statuses == [201, 201, 429]


def test_the_solver_s_turns_count_an_ipv6_client_by_its_64():
    from server.service.ports import requester

    client = _app({})
    seen = []

    @client.application.before_request  # after the boundary's own hook, which names the requester
    def note_the_requester():
        who = requester.get()
        seen.append(who() if callable(who) else who)

    client.get("/variants", environ_base={"REMOTE_ADDR": "2001:db8:3:4:5:6:7:8"})

    assert seen == ["2001:db8:3:4::/64"]


# --- a proxy the server was not told of ------------------------------------------------------------------------------


def test_a_server_told_of_no_proxy_says_so_when_requests_come_through_one(caplog):
    client = _app({"RATE_LIMIT": "100 per minute"})
    assert "proxies" not in client.get("/readyz").get_json()

    with caplog.at_level("WARNING", logger="server.api.proxies"):
        for _ in range(3):
            client.get(
                "/variants", headers={"X-Forwarded-For": "203.0.113.50"}, environ_base={"REMOTE_ADDR": "10.0.0.9"}
            )
    ready = client.get("/readyz")

    assert ready.status_code == 200 and "PROXY_COUNT is 0" in ready.get_json()["proxies"]
    assert [record.getMessage() for record in caplog.records].count(ready.get_json()["proxies"]) == 1  # once


def test_a_server_told_of_its_proxy_says_nothing_of_the_forwarded_addresses():
    client = _app({"RATE_LIMIT": "100 per minute", "PROXY_COUNT": "1"})

    client.get("/variants", headers={"X-Forwarded-For": "203.0.113.50"}, environ_base={"REMOTE_ADDR": "10.0.0.9"})

    assert "proxies" not in client.get("/readyz").get_json()
