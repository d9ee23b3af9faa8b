"""The environment's second backend: each episode a real game on a running server (gunicorn, PostgreSQL),
step for step the same as the in-process one, and verifiable afterwards."""

import http.client
import json
import random
import re
import socket
import urllib.request

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from server.api import examples
from server.gym.env import OsmosisEnv
from server.gym.remote import ServerError
from server.gym.spaces import DEAL, RESIGN
from tests.apps import gunicorn_on_a_new_database
from tests.browser.table import get
from tests.client.scripted import Answer, ScriptedServer


def test_remote_episodes_are_the_in_process_ones_and_verify(live_server):
    for number in (3, 4):
        here, there = OsmosisEnv("osmosis-draw-one"), OsmosisEnv("osmosis-draw-one", server=live_server)
        (seen_here, info_here), (seen_there, info_there) = here.reset(seed=number), there.reset(seed=number)
        rng, steps = random.Random(number), 0
        while True:
            assert all(np.array_equal(seen_here[key], seen_there[key]) for key in seen_here)
            assert info_here["legal_actions"] == info_there["legal_actions"]
            assert np.array_equal(info_here["action_mask"], info_there["action_mask"])
            action = rng.choice(info_here["legal_actions"]) if steps < 60 else RESIGN
            seen_here, reward_here, over_here, _, info_here = here.step(action)
            seen_there, reward_there, over_there, _, info_there = there.step(action)
            assert (reward_here, over_here) == (reward_there, over_there)
            steps += 1
            if over_here:
                break
        game_id = there.game_id
        assert get(f"{live_server}/games/{game_id}")["status"] == info_here["status"]
        assert get(f"{live_server}/games/{game_id}/verification")["valid"]


def test_an_action_the_server_does_not_list_is_refused_and_changes_nothing(live_server):
    env = OsmosisEnv("osmosis", server=live_server)
    seen, info = env.reset(seed=9)
    illegal = next(i for i in range(RESIGN) if not info["action_mask"][i])
    after, reward, terminated, _, info = env.step(illegal)
    assert info["refused"] and reward == 0.0 and not terminated
    assert all(np.array_equal(seen[key], after[key]) for key in seen)


def test_gymnasium_s_checker_passes_the_remote_backend(live_server):
    env = gym.make("server.gym:Bridesmaids-v0", server=live_server, render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=False)


def test_a_server_that_is_not_there_is_a_clear_error():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(ServerError, match="cannot reach"):
        OsmosisEnv(server=f"http://127.0.0.1:{port}", timeout=2).reset(seed=1)
    with pytest.raises(ValueError, match="base URL"):
        OsmosisEnv(server="ftp://example.org")


class LosesTheFirstAnswer(http.client.HTTPConnection):
    """A connection whose first answer to an action is lost on the way back, after the server acted."""

    lost = 0

    def getresponse(self):
        response = super().getresponse()
        if self._method_and_url[1].endswith("/actions") and LosesTheFirstAnswer.lost == 0:
            response.read()
            LosesTheFirstAnswer.lost += 1
            raise ConnectionResetError("the answer was lost")
        return response

    def putrequest(self, method, url, *args, **kwargs):
        self._method_and_url = (method, url)
        return super().putrequest(method, url, *args, **kwargs)


def test_an_action_whose_answer_was_lost_is_retried_once_and_done_once(live_server, monkeypatch):
    monkeypatch.setattr(http.client, "HTTPConnection", LosesTheFirstAnswer)
    env = OsmosisEnv("osmosis", server=live_server)
    env.reset(seed=11)
    _, _, _, _, info = env.step(DEAL)
    assert LosesTheFirstAnswer.lost == 1 and "refused" not in info
    assert get(f"{live_server}/games/{env.game_id}")["version"] == 2, "the retried deal was done twice"


def test_under_a_real_rate_limit_every_step_lands_as_in_process(embedded_server_url):
    """The server's rate limit applied to this loopback client (RATE_LIMIT_EXEMPT empty): the client waits out each
    429 and sends the step again; no step is a silent no-op, so the episode is the in-process one."""
    with gunicorn_on_a_new_database(embedded_server_url, RATE_LIMIT="25 per second", RATE_LIMIT_EXEMPT="") as (
        server,
        _,
    ):
        here, there = OsmosisEnv("osmosis-draw-one"), OsmosisEnv("osmosis-draw-one", server=server)
        (_, info_here), (_, info_there) = here.reset(seed=5), there.reset(seed=5)
        rng = random.Random(5)
        for _ in range(120):
            if info_here["status"] != "playing":
                break
            action = rng.choice(info_here["legal_actions"])
            seen_here, reward_here, over_here, _, info_here = here.step(action)
            seen_there, reward_there, over_there, _, info_there = there.step(action)
            assert "refused" not in info_there
            assert (reward_here, over_here, info_here["cards_home"]) == (
                reward_there,
                over_there,
                info_there["cards_home"],
            )
            assert all(np.array_equal(seen_here[key], seen_there[key]) for key in seen_here)
        remote = get(f"{server}/games/{there.game_id}")
        assert remote["status"] == info_here["status"] and remote["score"] == info_here["cards_home"]
        with urllib.request.urlopen(f"{server}/metrics", timeout=10) as response:
            refused = re.search(r"^osmosis_rate_limited_total ([0-9.]+)$", response.read().decode(), re.M)
    assert refused and float(refused[1]) > 0, "no step met the rate limit: its waiting was not tried"


def _game_answer():
    game = {**examples.created_game(), "player_token": "t" * 43}
    return Answer(201, json.dumps(game).encode())


def _first_legal(env):
    return int(np.flatnonzero(env._info()["action_mask"])[0])


def test_only_the_rules_refuse_a_step_and_then_it_changes_nothing():
    refusal = {"status": 409, "code": "illegal-action", "detail": "7S cannot go to F3", "rule": "osmosis"}
    with ScriptedServer(_game_answer(), Answer(409, json.dumps(refusal).encode())) as server:
        env = OsmosisEnv("osmosis", server=server.url)
        seen, _ = env.reset(seed=1)
        after, reward, terminated, _, info = env.step(_first_legal(env))
    assert info["refused"] == "7S cannot go to F3" and reward == 0.0 and not terminated
    assert all(np.array_equal(seen[key], after[key]) for key in seen)


@pytest.mark.parametrize(
    "answer",
    [
        Answer(500, json.dumps({"status": 500, "code": "internal-error", "detail": "boom"}).encode()),
        Answer(403, json.dumps({"status": 403, "code": "forbidden", "detail": "not yours"}).encode()),
        Answer(412, json.dumps({"status": 412, "code": "version-conflict", "detail": "moved on"}).encode()),
        Answer(200, b'{"game": {"id": "x"}}'),
        Answer(200, b'{"game": {"id": "x", "status": "playing", "state": 7, "legal_actions": []}}'),
        Answer(200, b'{"game": {"id": "x", "status": "playing", "state": {}, "legal_actions": [{"kind": "move"}]}}'),
        Answer(200, b'{"nothing": 1}'),
        Answer(200, b"[]"),
    ],
    ids=["500", "403", "412", "no-state", "state-not-a-view", "bad-action", "no-game", "not-an-object"],
)
def test_any_other_answer_raises_the_backend_s_own_error_never_a_key_or_type_error(answer):
    with ScriptedServer(_game_answer(), answer) as server:
        env = OsmosisEnv("osmosis", server=server.url, timeout=5)
        env.reset(seed=1)
        with pytest.raises(ServerError):
            env.step(_first_legal(env))


def test_a_server_that_trickles_its_answer_is_cut_off_by_the_step_s_deadline():
    with ScriptedServer(_game_answer(), Answer(200, b'{"game": {}}' + b" " * 100, trickle=0.3)) as server:
        env = OsmosisEnv("osmosis", server=server.url, timeout=1)
        env.reset(seed=1)
        with pytest.raises(ServerError, match="within 1 seconds"):
            env.step(_first_legal(env))
