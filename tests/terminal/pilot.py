"""Driving the table with Textual's pilot against a real server, and reading the screen as a player does."""

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request

from server.client import Api
from server.terminal.app import TableApp
from server.terminal.saved import SavedGame, SavedGames
from server.terminal.seat import Opening

SIZE = (80, 24)


def table(server, tmp_path, opening=None, plain=False, api=None):
    return TableApp(api or Api(server), server, SavedGames(tmp_path / "games.json"), opening or Opening(), plain=plain)


def run(app, scenario, size=SIZE):
    """Runs `scenario(pilot)` in the app on a terminal of `size`; the app's own exceptions fail the test."""

    async def main():
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await scenario(pilot)

    # In a thread of its own: the browser tests' Playwright keeps an event loop running in this one.
    failures = []

    def in_thread():
        try:
            asyncio.run(main())
        except BaseException as error:
            failures.append(error)

    thread = threading.Thread(target=in_thread, name="pilot")
    thread.start()
    thread.join()
    if failures:
        raise failures[0]


def screen(app):
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def words(app):
    """The screen's text with its line breaks, runs of spaces and a panel's border as single spaces, for
    finding a sentence, however it is wrapped."""
    return " ".join(screen(app).translate(BORDER).split())


BORDER = str.maketrans("│╭╮╰╯─", "      ")


async def settle(pilot):
    """Once the app has done what the last key asked (a follower's reading of its stream is never done)."""
    await pilot.pause()
    waited = [worker for worker in pilot.app.workers if worker.group != "follow"]
    if waited:  # (an empty list would be taken for all of them)
        await pilot.app.workers.wait_for_complete(waited)
    await pilot.pause()


async def press(pilot, *keys):
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def until(pilot, predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not predicate(words(pilot.app)):
        if time.monotonic() > deadline:
            raise AssertionError(f"the screen never showed what was awaited:\n{screen(pilot.app)}")
        await pilot.pause(0.05)


def call(server, method, path, body=None, token=None):
    """The API's answer (status, body), asked directly, as another client would."""
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(
        server + path, None if body is None else json.dumps(body).encode(), headers, method=method
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def new_game(server, body):
    status, game = call(server, "POST", "/games", body)
    assert status == 201, game
    return game


def saved(tmp_path, server, game):
    SavedGames(tmp_path / "games.json").add(
        SavedGame(server, game["id"], game["player_token"], game["variant"], game["created_at"])
    )
