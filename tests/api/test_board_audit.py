"""`osmosis audit --board DAY`: a day's boards recomputed by a stranger from the public log and the games'
exports, and every lie of a served board named."""

import json
import secrets
from datetime import UTC, datetime, time, timedelta
from urllib.parse import parse_qs, urlparse

import pytest

from server.cli.main import main
from server.config import Settings
from server.monitor.audit import MonitorState, audit
from server.runtime.app import create_app
from server.service.sources import Sources
from server.transparency.notes import parse_verifier
from tests.api.helpers import LOG_SIGNER, play_first_legal
from tests.memory_store import MemoryStore

DAY = datetime(2026, 11, 20, 9, tzinfo=UTC)


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


class Server:
    """A server on a store of its own, whose day is over and whose boards may be rewritten."""

    def __init__(self):
        self.clock = Clock(DAY)
        self.app = create_app(
            Settings(rate_limit="", log_signing_key=LOG_SIGNER.skey, log_interval_seconds=0.0),
            MemoryStore(),
            sources=Sources(clock=self.clock),
        )
        self.client = self.app.test_client()
        self.lie = None

    def play_the_day(self):
        """Three humans and a bot, who joined the day before, and a human who joins once the day's deal is open
        (a scout: the day's board does not rank them)."""
        self.clock.now = DAY - timedelta(days=1)
        tokens = [self.sign_up(kind) for kind in ("human", "human", "human", "bot")]
        self.clock.now = DAY
        self.client.get("/daily")  # the day's deals open
        self.late = self.sign_up("human")
        for n, token in enumerate([*tokens, self.late]):
            game = self.client.post(
                "/games", json={"variant": "osmosis-draw-one", "daily": True}, headers=token
            ).get_json()
            if n == 1:
                self.client.post(f"/games/{game['id']}/hint", headers=token)
            play_first_legal(
                self.client,
                self.client.get(f"/games/{game['id']}", headers=token).get_json(),
                token,
                resign_after=(40, 40, 3, 10, 40)[n],
            )
        self.clock.now = datetime.combine(DAY.date() + timedelta(days=1), time(0, 1), UTC)
        while self.app.extensions["osmosis.upkeep"].run_once():
            pass
        while self.app.extensions["osmosis.sequencer"].run_once() is not None:
            pass

    def sign_up(self, kind):
        made = self.client.post("/players", json={"name": f"a{secrets.token_hex(5)}", "kind": kind}).get_json()
        return {"Authorization": f"Bearer {made['token']}"}

    def fetch(self, path):
        response = self.client.get(path)
        if response.status_code != 200:
            raise OSError(f"{path} answered {response.status_code}")
        body = response.get_data()
        query = parse_qs(urlparse(path).query)
        if (
            self.lie
            and path.startswith("/boards/daily/")
            and query.get("kind") == ["human"]
            and query.get("variant") == ["osmosis-draw-one"]
        ):
            page = json.loads(body)
            self.lie(page["rows"])
            body = json.dumps(page).encode()
        return body


@pytest.fixture
def server():
    server = Server()
    server.play_the_day()
    yield server
    server.app.extensions["osmosis.hub"].stop()


def run(server):
    return audit(
        server.fetch, parse_verifier(LOG_SIGNER.verifier.vkey), [], MonitorState(), boards=[DAY.date().isoformat()]
    )


def test_the_boards_served_are_the_boards_the_log_and_the_exports_make(server):
    report = run(server)
    assert report.ok, report.problems
    assert report.board_rows_checked == 4


def swap_first_two(rows):
    rows[0], rows[1] = rows[1], rows[0]
    rows[0]["rank"], rows[1]["rank"] = 1, 2


def scout_ranked(server):
    """The served board ranks the late player's game, as if they had joined before the day's deal opened."""
    late = server.client.get("/players/me", headers=server.late).get_json()["name"]
    game_id = next(game["id"] for game in server.client.get(f"/players/{late}/games").get_json()["games"])
    return lambda rows: rows.append(
        {**rows[0], "game_id": game_id, "player": {"name": late, "kind": "human"}, "rank": len(rows) + 1}
    )


def test_a_player_who_joined_after_the_day_s_deal_opened_is_not_ranked_and_a_board_that_ranks_them_is_caught(server):
    late = server.client.get("/players/me", headers=server.late).get_json()["name"]
    served = server.client.get(f"/boards/daily/{DAY.date().isoformat()}?variant=osmosis-draw-one").get_json()
    assert late not in [row["player"]["name"] for row in served["rows"]]

    server.lie = scout_ranked(server)
    report = run(server)
    assert not report.ok and any("joined before its deal opened" in problem for problem in report.problems)


@pytest.mark.parametrize(
    ("lie", "named"),
    [
        (lambda rows: rows.pop(), "leaves out game"),
        (swap_first_two, "not in the boards' order"),
        (lambda rows: rows[0].update(hints=rows[0]["hints"] + 1), "another hints"),
        (lambda rows: rows[0]["player"].update(name="mallory"), "another name"),
        (
            lambda rows: rows.append({**rows[0], "game_id": "00000000-0000-4000-8000-000000000000", "rank": 4}),
            "shows game 00000000",
        ),
    ],
)
def test_every_lie_of_a_served_board_is_named(server, lie, named):
    server.lie = lie
    report = run(server)
    assert not report.ok
    assert any(named in problem for problem in report.problems), report.problems


def test_a_board_day_that_is_not_a_day_is_refused_before_anything_runs(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(
            [
                "audit",
                "http://127.0.0.1:9",
                "--log-key",
                LOG_SIGNER.verifier.vkey,
                "--state",
                str(tmp_path / "state.json"),
                "--board",
                "2026-13-40",
            ]
        )
    assert exited.value.code == 2 and "not a day" in capsys.readouterr().err
