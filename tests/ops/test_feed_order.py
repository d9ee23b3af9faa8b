"""The feed of every game's events under gunicorn as deployed: every event exactly once, each game's in the
order of its seqs, whichever worker wrote it, across a PostgreSQL restart and across a reconnection."""

import http.client
import json
import random
import threading
import time

from server.service.feed import FeedPosition
from server.store import embedded
from tests.apps import free_port
from tests.databases import drop_database, migrated_database
from tests.processes import ClientThreads, call, start_gunicorn, stop
from tests.waiting import until


class Follower:
    """A client of GET /events/stream that reconnects with Last-Event-ID whenever its stream ends, as an
    EventSource does; `drop_after` messages in, it also hangs up once by itself."""

    def __init__(self, base: str, drop_after: int | None = None) -> None:
        self.host, self.port = base.removeprefix("http://").split(":")
        self.received: list[tuple[str, dict]] = []  # (id, event)
        self.connections = 0
        self.drop_after = drop_after
        self.stopped = threading.Event()
        self.listening = threading.Event()
        self.thread = threading.Thread(target=self._follow, daemon=True)
        self.thread.start()
        assert self.listening.wait(10), "the feed did not open"

    def _follow(self) -> None:
        while not self.stopped.is_set():
            try:
                self._read_one_stream()
            except OSError:
                time.sleep(0.2)

    def _read_one_stream(self) -> None:
        connection = http.client.HTTPConnection(self.host, int(self.port), timeout=30)
        headers = {"Last-Event-ID": self.received[-1][0]} if self.received else {}
        connection.request("GET", "/events/stream", headers=headers)
        response = connection.getresponse()
        assert response.status == 200, response.read()
        self.connections += 1
        self.listening.set()
        fields: dict[str, str] = {}
        while not self.stopped.is_set():
            line = response.fp.readline()
            if not line:
                break
            line = line.decode().rstrip("\n")
            if line:
                if not line.startswith(":"):
                    name, _, value = line.partition(": ")
                    fields[name] = value
                continue
            if "id" in fields:
                self.received.append((fields["id"], json.loads(fields["data"])))
                if self.drop_after is not None and len(self.received) == self.drop_after:
                    self.drop_after = None
                    break
            fields = {}
        connection.close()

    def seen(self, game_id: str) -> list[int]:
        return [event["seq"] for _, event in self.received if event["game_id"] == game_id]

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=35)


class Bots(ClientThreads):
    """Players acting on games of their own, each request on a new connection (so on any worker)."""

    def __init__(self, base: str, count: int, actions: int) -> None:
        super().__init__(count)
        self.base, self.actions = base, actions
        self.games: dict[str, int] = {}  # game id: its version as last answered

    def _client(self, index: int) -> None:
        rng = random.Random(index)
        game = None
        done = 0
        while done < self.actions and not self.stop.is_set():
            try:
                if game is None:
                    status, body, _ = call("POST", f"{self.base}/games", {"variant": "osmosis-draw-one"})
                    if status == 201:
                        game = body
                        with self.lock:
                            self.games[game["id"]] = game["version"]
                    continue
                if game["status"] != "playing":
                    game = None
                    continue
                action = rng.choice(game["legal_actions"])
                status, body, _ = call(
                    "POST", f"{self.base}/games/{game['id']}/actions", {"action": action}, token=game["player_token"]
                )
                if status == 200:
                    game = {**body["game"], "player_token": game["player_token"]}
                    done += 1
                    with self.lock:
                        self.games[game["id"]] = game["version"]
            except OSError:
                time.sleep(0.1)


def final_versions(base: str, games: dict[str, int]) -> dict[str, int]:
    versions = {}
    for game_id in games:
        deadline = time.monotonic() + 30
        while (answer := call("GET", f"{base}/games/{game_id}"))[0] == 503 and time.monotonic() < deadline:
            time.sleep(0.2)  # a worker whose pool is still reconnecting after the restart
        assert answer[0] == 200, answer
        versions[game_id] = answer[1]["version"]
    return versions


def wait_until_everything_arrived(followers: list[Follower], versions: dict[str, int], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    for follower in followers:
        while any(max(follower.seen(game_id), default=0) < version for game_id, version in versions.items()):
            if time.monotonic() > deadline:
                break
            time.sleep(0.2)


def assert_exactly_once_and_in_order(follower: Follower, base: str, versions: dict[str, int]) -> None:
    positions = [FeedPosition.parse(message_id) for message_id, _ in follower.received]
    assert positions == sorted(positions) and len(set(positions)) == len(positions), "ids out of order or repeated"
    for game_id, version in versions.items():
        assert follower.seen(game_id) == list(range(1, version + 1)), (game_id, follower.seen(game_id), version)
        logged = call("GET", f"{base}/games/{game_id}/events?limit=1000")[1]["events"]
        fed = [event for _, event in follower.received if event["game_id"] == game_id]
        assert [{"game_id": game_id, **event} for event in logged] == fed


def test_every_event_once_and_each_games_in_order_while_sixteen_bots_play_on_four_workers(embedded_server_url):
    url = migrated_database(embedded_server_url)
    port = free_port()
    process = start_gunicorn(url, port, WEB_CONCURRENCY="4")
    base = f"http://127.0.0.1:{port}"
    try:
        followers = [Follower(base), Follower(base), Follower(base, drop_after=150)]
        with Bots(base, count=16, actions=40) as bots:
            for thread in bots.threads:
                thread.join(timeout=120)
        versions = final_versions(base, bots.games)
        wait_until_everything_arrived(followers, versions)
        for follower in followers:
            follower.stop()
        assert len(versions) >= 16 and sum(versions.values()) > 600
        assert followers[2].connections >= 2  # it hung up once and went on from its Last-Event-ID
        for follower in followers:
            assert_exactly_once_and_in_order(follower, base, versions)
    finally:
        stop(process)
        drop_database(embedded_server_url, url)


def test_the_feed_loses_nothing_across_a_postgres_restart(own_postgres):
    data_dir, url = own_postgres
    port = free_port()
    process = start_gunicorn(url, port, WEB_CONCURRENCY="4", POOL_TIMEOUT_MS="1000", STATEMENT_TIMEOUT_MS="2000")
    base = f"http://127.0.0.1:{port}"
    try:
        followers = [Follower(base), Follower(base)]
        with Bots(base, count=8, actions=100_000) as bots:  # until stopped: they play through the restart

            def played() -> int:
                with bots.lock:
                    return sum(bots.games.values())

            until(lambda: played() > 150, seconds=60)  # games on the way when the database goes
            embedded.stop(data_dir)
            time.sleep(2)
            embedded.start(data_dir)
            restarted = played()
            until(lambda: played() > restarted + 250, seconds=60)  # and played on after it came back
        versions = final_versions(base, bots.games)
        wait_until_everything_arrived(followers, versions)
        for follower in followers:
            follower.stop()
        for follower in followers:
            assert_exactly_once_and_in_order(follower, base, versions)
    finally:
        stop(process)
