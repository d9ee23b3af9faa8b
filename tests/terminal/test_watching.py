"""Replaying any game by its id and following one live, at the terminal table, against gunicorn."""

import threading
import time

from server.terminal.app import Opening
from server.terminal.table import Faces, draw_table
from server.terminal.watching import FollowScreen, ReplayScreen
from server.terminal.words import event_text

from .pilot import call, new_game, press, run, screen, table, until, words


def played(server, variant, number, actions):
    """A game on the server with `actions` taken: each the first move listed, or a deal when none is."""
    game = new_game(server, {"variant": variant, "deal_number": number})
    for _ in range(actions):
        listed = game["legal_actions"]
        action = next((action for action in listed if action["kind"] == "move"), listed[0])
        status, answer = call(server, "POST", f"/games/{game['id']}/actions", {"action": action}, game["player_token"])
        assert status == 200
        game = {**answer["game"], "player_token": game["player_token"]}
    return game


def test_a_replay_steps_through_the_positions_the_server_serves(live_server, tmp_path):
    game = played(live_server, "osmosis-draw-one", 5, 6)
    call(live_server, "POST", f"/games/{game['id']}/resign", {}, game["player_token"])
    _, log = call(live_server, "GET", f"/games/{game['id']}/events?after=0")
    app = table(live_server, tmp_path, Opening(replay=game["id"]), plain=True)

    def table_at(seq):
        _, position = call(live_server, "GET", f"/games/{game['id']}/states/{seq}")
        return draw_table(position["state"], 0, [], Faces(ascii=True)).plain.splitlines()

    async def scenario(pilot):
        assert isinstance(app.screen, ReplayScreen)
        # One unit for replays everywhere: the log's events, as the browser's replay counts them.
        assert "Replay of Osmosis draw one, deal 5: event 1 of 9" in words(app) and "the game begins" in words(app)
        for event in log["events"][1:7]:
            await press(pilot, "right")
            assert f"event {event['seq']} of 9" in words(app)
            assert event_text(event) in words(app)
            assert all(line.rstrip() in screen(app) for line in table_at(event["seq"]) if line.strip())
        await press(pilot, "end")
        assert "event 9 of 9" in words(app) and "resigned; the seeds revealed" in words(app)
        assert "Resigned." in words(app)
        await press(pilot, "left", "left", "home")
        assert "event 1 of 9" in words(app)
        await press(pilot, "left")
        assert "event 1 of 9" in words(app)

    run(app, scenario)


def test_a_replay_of_a_game_that_is_not_there_says_so(live_server, tmp_path):
    missing = "00000000-0000-4000-8000-000000000000"
    status, problem = call(live_server, "GET", f"/games/{missing}")
    app = table(live_server, tmp_path, Opening(replay=missing))

    async def scenario(pilot):
        assert status == 404 and problem["detail"] in words(app)
        await press(pilot, "right")
        assert problem["detail"] in words(app)

    run(app, scenario)


def test_following_shows_each_move_as_it_is_made_in_the_log_s_order(live_server, tmp_path):
    game = played(live_server, "osmosis", 21, 1)
    app = table(live_server, tmp_path, Opening(follow=game["id"]))

    async def scenario(pilot):
        assert isinstance(app.screen, FollowScreen)
        await until(pilot, lambda text: "Waiting for the next move" in text)
        player = threading.Thread(target=_play_on, args=(live_server, game, 8))
        player.start()
        try:
            await until(pilot, lambda text: f"event {game['version'] + 8}:" in text)
        finally:
            player.join()
        _, now = call(live_server, "GET", f"/games/{game['id']}")
        expected = draw_table(now["state"], 0, [], Faces()).plain.splitlines()
        assert all(line.rstrip() in screen(app) for line in expected if line.strip())
        call(live_server, "POST", f"/games/{game['id']}/resign", {}, game["player_token"])
        await until(pilot, lambda text: "seeds revealed" in text or "Resigned." in text)
        await until(pilot, lambda text: "Resigned." in text)
        workers = [worker for worker in app.screen.workers if worker.group == "follow"]
        await until(pilot, lambda text: all(worker.is_finished for worker in workers))

    run(app, scenario)


def _play_on(server, game, actions):
    for _ in range(actions):
        _, now = call(server, "GET", f"/games/{game['id']}")
        listed = now["legal_actions"]
        action = next((action for action in listed if action["kind"] == "move"), listed[0])
        status, _ = call(server, "POST", f"/games/{game['id']}/actions", {"action": action}, game["player_token"])
        assert status == 200


def test_following_a_finished_game_shows_its_end_and_stops(live_server, tmp_path):
    game = played(live_server, "peek", 3, 2)
    call(live_server, "POST", f"/games/{game['id']}/resign", {}, game["player_token"])
    app = table(live_server, tmp_path, Opening(follow=game["id"]))

    async def scenario(pilot):
        await until(pilot, lambda text: "Resigned." in text)
        workers = [worker for worker in app.screen.workers if worker.group == "follow"]
        await until(pilot, lambda text: all(worker.is_finished for worker in workers))
        await press(pilot, "q")

    run(app, scenario)


def test_leaving_a_live_game_lets_go_of_its_stream_at_once(live_server, tmp_path):
    game = played(live_server, "osmosis", 22, 1)
    app = table(live_server, tmp_path, Opening(follow=game["id"]))
    followers, left = [], []

    async def scenario(pilot):
        await until(pilot, lambda text: "Waiting for the next move" in text)
        followers.extend(worker for worker in app.screen.workers if worker.group == "follow")
        left.append(time.monotonic())
        await pilot.press("q")

    run(app, scenario)
    # The reading thread is woken by the closed stream, not at the server's next keep-alive (15 s on), which
    # the table would wait for before it can close.
    assert time.monotonic() - left[0] < 3
    assert followers and all(worker.is_finished for worker in followers)
