"""Client threads playing under a fault, the checkpoints a server publishes meanwhile, and the checks of what they
were told against what the database kept."""

import base64
import random
import threading
import time
import urllib.error
import urllib.request

import psycopg

from server.transparency.merkle import verify_consistency
from server.transparency.notes import parse_checkpoint
from tests.processes import ClientThreads, call

CLIENTS = 4


class Load(ClientThreads):
    """Client threads playing random legal actions, each on its own games, recording every answer."""

    def __init__(self, base: str) -> None:
        super().__init__(CLIENTS)
        self.base = base
        self.landed: list[tuple[str, int, str]] = []  # (game id, seq, hash) of events in 2xx answers
        self.answers: list[tuple[float, float, int, str]] = []  # (when, seconds, status, code)
        self.errors: list[str] = []  # requests that got no HTTP answer at all

    def _record(self, started: float, status: int, body: dict) -> None:
        with self.lock:
            self.answers.append((started, time.monotonic() - started, status, body.get("code", "")))
            if status in (200, 201):
                game = body.get("game", body)
                for event in body.get("events", []):
                    self.landed.append((game["id"], event["seq"], event["hash"]))

    def _client(self, index: int) -> None:
        rng = random.Random(index)
        game, token = None, None
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                if game is None or game["status"] != "playing":
                    status, body, _ = call("POST", f"{self.base}/games", {"variant": "osmosis-draw-one"})
                    self._record(started, status, body)
                    if status == 201:
                        game, token = body, body["player_token"]
                        with self.lock:
                            self.landed.append((game["id"], 1, game["head_hash"]))
                    continue
                action = rng.choice(game["legal_actions"])
                if action["kind"] == "move":
                    request = ("moves", {"card": action["card"], "to": action["to"]})
                else:
                    request = ("draw", {})
                status, body, _ = call("POST", f"{self.base}/games/{game['id']}/{request[0]}", request[1], token)
                self._record(started, status, body)
                if status == 200:
                    game = body["game"]
                elif status != 503:
                    game = call("GET", f"{self.base}/games/{game['id']}")[1] or game
            except Exception as error:  # a client thread must not die: the test reads what it saw
                with self.lock:
                    self.errors.append(f"{type(error).__name__}: {error} (a request sent at {started:.1f})")
                time.sleep(0.05)

    def statuses_between(self, start: float, end: float) -> list[tuple[float, int, str]]:
        """Answers to requests sent after `start` and answered before `end`."""
        with self.lock:
            return [
                (seconds, status, code)
                for when, seconds, status, code in self.answers
                if start <= when and when + seconds < end
            ]


def assert_every_2xx_is_in_the_log(url: str, load: Load) -> None:
    with psycopg.connect(url) as conn:
        for game_id, seq, hash_ in load.landed:
            query = "SELECT hash FROM game_events WHERE game_id = %s AND seq = %s"
            row = conn.execute(query, (game_id, seq)).fetchone()
            assert row is not None and row[0] == hash_, f"event {seq} of {game_id} answered 2xx but is not in the log"


def assert_every_game_verifies(base: str, url: str) -> None:
    with psycopg.connect(url) as conn:
        games = [str(row[0]) for row in conn.execute("SELECT id FROM games")]
    for game_id in games:
        status, verdict, _ = call("GET", f"{base}/games/{game_id}/verification")
        assert status == 200 and verdict["valid"], (game_id, status, verdict)


class Checkpoints:
    """Every checkpoint the server publishes while a block runs, read every 100 ms."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.seen: dict[int, bytes] = {}
        self.forks: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch)

    def _watch(self) -> None:
        while not self._stop.is_set():
            try:
                status, text = text_of(f"{self.base}/log/checkpoint")
            except OSError:
                status, text = 0, ""
            if status == 200:
                checkpoint = parse_checkpoint(text.split("\n\n")[0] + "\n")
                known = self.seen.setdefault(checkpoint.size, checkpoint.root)
                if known != checkpoint.root:
                    self.forks.append(f"two roots at size {checkpoint.size}")
            self._stop.wait(0.1)

    def __enter__(self) -> "Checkpoints":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def assert_consistent(self) -> None:
        """Each checkpoint seen is proven a prefix of the newest, by the server's own consistency proof."""
        assert not self.forks, self.forks
        assert self.seen, "no checkpoint was published"
        newest = max(self.seen)
        for size, root in self.seen.items():
            if size in (0, newest):  # the empty tree is a prefix of every tree
                continue
            status, body, _ = call("GET", f"{self.base}/log/consistency?from={size}&to={newest}")
            assert status == 200, body
            proof = [base64.b64decode(h) for h in body["proof"]]
            verify_consistency(size, newest, root, self.seen[newest], proof)


def text_of(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, ""
