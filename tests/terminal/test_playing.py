"""Playing at the terminal table with Textual's pilot, against gunicorn and PostgreSQL: each key does what
it says on the server, refusals come in the engine's own words, and the table is always the server's."""

import socket

from textual.widgets import Static

from server.client import Api
from server.rules import (
    action_to_dict,
    apply,
    legal_actions,
    numbered_opening,
    preset,
)
from server.terminal.playing import NOTHING_TO_UNDO, EndPanel, PlayScreen
from server.terminal.resuming import ResumeScreen
from server.terminal.saved import SavedGames
from server.terminal.seat import Opening
from server.terminal.table import Faces

from .pilot import call, new_game, press, run, saved, screen, settle, table, until, words


def game_of(app):
    assert isinstance(app.screen, PlayScreen) or isinstance(app.screen_stack[-2], PlayScreen)
    play = app.screen if isinstance(app.screen, PlayScreen) else app.screen_stack[-2]
    return play.game


def test_a_new_game_is_dealt_saved_and_each_lit_card_plays_by_its_number(live_server, tmp_path):
    app = table(live_server, tmp_path, Opening(new_game={"variant": "osmosis", "deal_number": 11}))

    async def scenario(pilot):
        game = game_of(app)
        token = SavedGames(tmp_path / "games.json").token_of(live_server, game["id"])
        assert token and token not in screen(app)
        assert "osmosis | deal 11 | base 2" in words(app)
        assert "1 9D from R1 to F1 2 2S from R2 to F2 d deal from the stock" in words(app)
        await press(pilot, "2")
        _, after = call(live_server, "GET", f"/games/{game['id']}")
        assert after["version"] == game["version"] + 1
        assert after["state"]["foundations"][1]["cards"] == ["2S"]
        assert (game_of(app)["version"], game_of(app)["state"]) == (after["version"], after["state"])
        assert "2/52 home" in words(app) and "2 2S" not in words(app)
        await press(pilot, "d")
        _, dealt = call(live_server, "GET", f"/games/{game['id']}")
        assert dealt["version"] == after["version"] + 1 and dealt["state"]["stock_count"] == 32
        assert " ".join(Faces().card(code).plain for code in dealt["state"]["waste"]) in words(app)

    run(app, scenario)


def test_a_card_with_two_places_asks_where(live_server, tmp_path):
    number, card = next((n, card) for n in range(200) for card in [_two_places("osmosis-ablage", n)] if card)
    opening_ = Opening(new_game={"variant": "osmosis-ablage", "deal_number": number})
    app = table(live_server, tmp_path, opening_, plain=True)

    async def scenario(pilot):
        lit = next(lit for lit in app.screen.lit if lit.card == card)
        await press(pilot, str(lit.number))
        assert f"{card} to: a F" in words(app) and "b cell" in words(app)
        await press(pilot, "escape")
        assert game_of(app)["version"] == 1 and "to: a" not in words(app)
        await press(pilot, str(lit.number), "b")
        _, after = call(live_server, "GET", f"/games/{game_of(app)['id']}")
        assert after["state"]["cell"] == card and after["version"] == 2

    run(app, scenario)


def _two_places(variant, number):
    rules = preset(variant)
    state = numbered_opening(rules, number)
    targets = {}
    for action in legal_actions(state):
        data = action_to_dict(action)
        if data["kind"] == "move":
            targets.setdefault(data["card"], []).append(data["to"])
    return next((card for card, places in targets.items() if len(places) > 1), None)


def test_a_named_card_that_cannot_move_is_refused_in_the_engine_s_words_and_nothing_changes(live_server, tmp_path):
    app = table(live_server, tmp_path, Opening(new_game={"variant": "osmosis", "deal_number": 11}))

    async def scenario(pilot):
        game = game_of(app)
        for keys, move in (
            (["3", "h"], {"card": "3H"}),
            (["A", "S", "space", "F", "3"], {"card": "AS", "to": "F3"}),
            (["1", "0", "c"], {"card": "TC"}),
        ):
            await press(pilot, "m", *keys, "enter")
            status, problem = call(
                live_server, "POST", f"/games/{game['id']}/moves", move, saved_token(tmp_path, live_server, game)
            )
            assert status == 409 and problem["code"] == "illegal-action"
            assert " ".join(problem["detail"].split()) in words(app)
        await press(pilot, "m", "x", "y", "enter")
        assert "'xy' is not a card" in words(app)
        _, after = call(live_server, "GET", f"/games/{game['id']}")
        assert after["version"] == game["version"]

    run(app, scenario)


def saved_token(tmp_path, server, game):
    return SavedGames(tmp_path / "games.json").token_of(server, game["id"])


def test_u_takes_the_latest_action_back_says_which_and_at_the_deal_sends_nothing(live_server, tmp_path):
    app = table(live_server, tmp_path, Opening(new_game={"variant": "osmosis", "deal_number": 11}))

    async def scenario(pilot):
        game = game_of(app)
        keys = str(app.screen.query_one("#keys", Static).render())
        assert "u undo" in keys and "r resign" in keys
        await press(pilot, "2")
        assert game_of(app)["state"]["foundations"][1]["cards"] == ["2S"]
        await press(pilot, "u")
        assert "Took back: 2S from" in words(app)
        _, after = call(live_server, "GET", f"/games/{game['id']}")
        assert (after["state"], after["undos"]) == (game["state"], 1)
        assert (game_of(app)["version"], game_of(app)["state"]) == (after["version"], after["state"])
        await press(pilot, "u")
        assert NOTHING_TO_UNDO in words(app)
        _, unchanged = call(live_server, "GET", f"/games/{game['id']}")
        assert unchanged["version"] == after["version"]

    run(app, scenario)


def test_d_with_no_deal_left_is_refused_in_the_engine_s_words(live_server, tmp_path):
    number, stock_actions = _stuck_with_a_move("osmosis-three-passes")
    game = new_game(live_server, {"variant": "osmosis-three-passes", "deal_number": number})
    for action in stock_actions:
        status, _ = call(live_server, "POST", f"/games/{game['id']}/actions", {"action": action}, game["player_token"])
        assert status == 200
    saved(tmp_path, live_server, game)
    app = table(live_server, tmp_path, Opening(resume=game["id"]))

    async def scenario(pilot):
        before = game_of(app)
        assert before["status"] == "playing" and "d deal from the stock" not in words(app)
        await press(pilot, "d")
        status, problem = call(live_server, "POST", f"/games/{game['id']}/draw", {}, game["player_token"])
        assert status == 409
        assert " ".join(problem["detail"].split()) in words(app)
        assert call(live_server, "GET", f"/games/{game['id']}")[1]["version"] == before["version"]

    run(app, scenario)


def _stuck_with_a_move(variant):
    """A deal on which dealing and redealing alone use up the stock and every pass while a move is still left."""
    rules = preset(variant)
    for number in range(500):
        state = numbered_opening(rules, number)
        taken = []
        while state.status.value == "playing":
            stock = [action for action in legal_actions(state) if action_to_dict(action)["kind"] in ("deal", "redeal")]
            if not stock:
                return number, taken
            taken.append(action_to_dict(stock[0]))
            state = apply(state, stock[0])
    raise AssertionError("no such deal in the first 500")


def test_a_hint_is_shown_and_counted(live_server, tmp_path):
    app = table(live_server, tmp_path, Opening(new_game={"variant": "osmosis", "deal_number": 11}))

    async def scenario(pilot):
        await press(pilot, "h")
        await until(pilot, lambda text: "Hint: " in text)
        _, after = call(live_server, "GET", f"/games/{game_of(app)['id']}")
        assert after["hints"] == 1 and game_of(app)["hints"] == 1
        _, log = call(live_server, "GET", f"/games/{after['id']}/events?after=1")
        hinted = log["events"][-1]["data"]["action"]
        if hinted["kind"] == "deal":
            assert "Hint: deal from the stock" in words(app) and "; press d" in words(app)
            await press(pilot, "d")
        else:
            key = next(lit.number for lit in app.screen.lit if hinted in lit.moves)
            assert f"; press {key}" in words(app)
            await press(pilot, str(key))
        _, played = call(live_server, "GET", f"/games/{after['id']}/events?after={after['version']}")
        taken = played["events"][0]
        assert taken["kind"] == ("cards_dealt" if hinted["kind"] == "deal" else "card_played")
        assert hinted["kind"] == "deal" or taken["data"]["card"] == hinted["card"]

    run(app, scenario)


def test_resigning_asks_first_then_ends_with_the_solver_s_verdict(live_server, tmp_path):
    app = table(live_server, tmp_path, Opening(new_game={"variant": "osmosis", "deal_number": 12}))

    async def scenario(pilot):
        game_id = game_of(app)["id"]
        await press(pilot, "r")
        assert "Resign this game?" in words(app)
        await press(pilot, "n")
        assert call(live_server, "GET", f"/games/{game_id}")[1]["status"] == "playing"
        # Two deals, the second taken back, then the resignation: one action, the line that stood (the browser's
        # end panel counts so too).
        await press(pilot, "d", "d", "u", "r", "y")
        assert isinstance(app.screen, EndPanel)
        _, analysis = call(live_server, "GET", f"/games/{game_id}/analysis")
        await until(pilot, lambda text: f"The solver: {analysis['summary']}." in text)
        assert "Resigned." in words(app) and words(app).count("winnable") <= 1
        _, over = call(live_server, "GET", f"/games/{game_id}")
        await until(pilot, lambda text: f"{over['score']} of 52 cards home, 1 action; hints asked: 0." in text)
        await press(pilot, "escape")
        assert "The game is over: Enter shows how it ended" in words(app)
        await press(pilot, "enter")
        assert isinstance(app.screen, EndPanel)
        await press(pilot, "n")
        await until(pilot, lambda text: "deal 13" in text)

    run(app, scenario)


def test_a_move_made_elsewhere_meanwhile_is_not_played_over(live_server, tmp_path):
    app = table(live_server, tmp_path, Opening(new_game={"variant": "osmosis", "deal_number": 11}))

    async def scenario(pilot):
        game = game_of(app)
        token = saved_token(tmp_path, live_server, game)
        status, _ = call(live_server, "POST", f"/games/{game['id']}/draw", {}, token)  # another window deals
        assert status == 200
        await press(pilot, "1")
        assert "The game moved on elsewhere" in words(app)
        _, now = call(live_server, "GET", f"/games/{game['id']}")
        assert now["version"] == game["version"] + 1 and now["state"]["foundations"][0]["cards"] == ["2D"]
        assert game_of(app)["version"] == now["version"]

    run(app, scenario)


def test_the_table_fits_80x24_and_says_so_on_a_smaller_terminal(live_server, tmp_path):
    app = table(live_server, tmp_path, Opening(new_game={"variant": "osmosis-ablage", "deal_number": 4}))

    async def scenario(pilot):
        lines = screen(app).splitlines()
        assert len(lines) == 24
        assert any(line.startswith(" R4 ") and "F4" in line for line in lines) and any("Cell" in line for line in lines)
        assert lines[-1].strip() == PlayScreen.KEYS
        for size in ((79, 24), (80, 23), (60, 15)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            assert f"at least 80x24; this one is {size[0]}x{size[1]}" in words(app) and "R1" not in screen(app)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert "R1" in screen(app) and "at least 80x24" not in words(app)
        version = game_of(app)["version"]
        await press(pilot, "d")
        assert game_of(app)["version"] == version + 1

    run(app, scenario)


def test_resume_lists_your_games_in_progress_and_plays_on(live_server, tmp_path):
    over = new_game(live_server, {"variant": "peek", "deal_number": 1})
    call(live_server, "POST", f"/games/{over['id']}/resign", {}, over["player_token"])
    going = new_game(live_server, {"variant": "peek", "deal_number": 2})
    saved(tmp_path, live_server, over)
    saved(tmp_path, live_server, going)
    app = table(live_server, tmp_path, Opening(resume=""))

    async def scenario(pilot):
        assert isinstance(app.screen, ResumeScreen)
        assert "1 peek | deal 2" in words(app) and going["id"] in words(app) and over["id"] not in words(app)
        await press(pilot, "1")
        assert game_of(app)["id"] == going["id"]
        await press(pilot, "d")
        assert call(live_server, "GET", f"/games/{going['id']}")[1]["version"] == going["version"] + 1

    run(app, scenario)


def test_a_game_whose_token_is_not_here_is_shown_but_not_played(live_server, tmp_path):
    game = new_game(live_server, {"variant": "osmosis", "deal_number": 11})
    app = table(live_server, tmp_path, Opening(resume=game["id"]))

    async def scenario(pilot):
        assert "you can watch it, not play it" in words(app)
        await press(pilot, "d")
        assert "not yours to play" in words(app)
        assert call(live_server, "GET", f"/games/{game['id']}")[1]["version"] == game["version"]

    run(app, scenario)


def test_ascii_faces_put_only_ascii_on_the_screen(live_server, tmp_path):
    app = table(live_server, tmp_path, Opening(new_game={"variant": "osmosis", "deal_number": 11}), plain=True)

    async def scenario(pilot):
        assert screen(app).isascii() and "1:9D" in screen(app)
        await press(pilot, "2", "d", "h")
        await until(pilot, lambda text: "Hint:" in text)
        assert screen(app).isascii()
        await press(pilot, "r", "y")
        await until(pilot, lambda text: "The solver:" in text)
        assert screen(app).isascii()

    run(app, scenario)


def test_a_server_that_is_not_there_is_said_and_the_table_stays(tmp_path):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    server = f"http://127.0.0.1:{port}"
    app = table(server, tmp_path, Opening(new_game={"variant": "osmosis"}), api=Api(server, timeout=2))

    async def scenario(pilot):
        assert f"cannot reach {server}" in words(app) and "(Enter: try again, q: leave)" in words(app)
        await press(pilot, "enter")
        assert f"cannot reach {server}" in words(app) and isinstance(app.screen, PlayScreen)
        await pilot.press("q")
        await settle(pilot)

    run(app, scenario)
    assert app.return_code == 0
