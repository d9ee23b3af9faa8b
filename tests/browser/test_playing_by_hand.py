"""Playing by hand: drag and drop by mouse and by touch, refusals explained without asking the server,
auto-move, the foundations' order, and a stale tab."""

import json
import random
import time
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import Page, expect

from server.rules import (
    FOUNDATIONS,
    PRESETS,
    Card,
    IllegalAction,
    Move,
    Place,
    action_to_dict,
    apply,
    legal_actions,
    preset,
    public_view,
)
from tests.browser.table import (
    CODES,
    a_deal_won_by_clicking,
    close_settings,
    dealt,
    distance,
    get,
    open_settings,
    post,
    screenshot,
    shown,
    start_game,
    version_of,
    wait_for_next_version,
    watch_for_errors,
)


def game_of(page: Page, live_server):
    return get(f"{live_server}/games/{page.locator('#game-id').inner_text()}")


SETTLED = """() => document.getAnimations()
    .every((a) => a.playState !== 'running' || a.effect.getTiming().iterations === Infinity)"""


def wait_until_settled(page: Page, seconds: float = 10) -> None:
    """Polled from here: the page's Content-Security-Policy allows no eval, which wait_for_function's polling uses."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(SETTLED):
        assert time.monotonic() < deadline, "the table's movements did not end"
        page.wait_for_timeout(20)


def centre(locator):
    """Where the element is once it is drawn and the table's movements are over: a hand aims at a card where it
    lies."""
    locator.wait_for()
    wait_until_settled(locator.page)
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag_with_mouse(page: Page, card, target):
    page.mouse.move(*centre(card))
    page.mouse.down()
    page.mouse.move(*centre(target), steps=6)
    page.mouse.up()


def drag_with_finger(page: Page, touch, card, target):
    (x0, y0), (x1, y1) = centre(card), centre(target)
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, 7):
        point = {"x": x0 + (x1 - x0) * i / 6, "y": y0 + (y1 - y0) * i / 6}
        touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def play_by_dragging(page: Page, live_server, drag, limit=2000):
    """Every card move dragged onto its place, every draw a click on the stock, until the game ends."""
    for _ in range(limit):
        game = game_of(page, live_server)
        if game["status"] != "playing":
            return game
        version = version_of(page)
        move = next((a for a in game["legal_actions"] if a["kind"] == "move"), None)
        if move:
            target = page.locator(f"#board [data-target='{move['to']}']")
            drag(page.locator(f"#board .playable[data-card='{move['card']}']"), target)
        else:
            page.locator("#board button.stock").click()
        wait_for_next_version(page, version)
    pytest.fail("the game did not end")


def test_a_whole_game_is_won_by_drag_and_drop_with_the_mouse(page, live_server):
    start_game(page, "osmosis-draw-one", a_deal_won_by_clicking("osmosis-draw-one"))

    game = play_by_dragging(page, live_server, lambda card, target: drag_with_mouse(page, card, target))

    assert game["status"] == "won"
    expect(page.locator("#game-over-title")).to_have_text("You won!")
    expect(page.locator("#board .foundation .card")).to_have_count(52)


def test_a_whole_game_is_won_on_a_phone_by_dragging_with_a_finger(browser, live_server):
    context = browser.new_context(
        base_url=live_server, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    errors = watch_for_errors(page)
    touch = context.new_cdp_session(page)
    start_game(page, "osmosis-draw-one", a_deal_won_by_clicking("osmosis-draw-one"))
    screenshot(page, "9-phone-start")

    game = play_by_dragging(page, live_server, lambda card, target: drag_with_finger(page, touch, card, target))

    assert game["status"] == "won"
    widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], widths
    context.close()
    assert not errors


def refusal(state, card, target):
    """The engine's reason for refusing `card` to `target`, or None when the move is legal."""
    try:
        apply(state, Move(Card.parse(card), None, target))
    except IllegalAction as refused:
        return str(refused)
    return None


def blocked_card(variant):
    """A deal number and a face-up card on top of a reserve that has nowhere to go at the opening."""
    for number in range(100):
        state = dealt(variant, number)
        movable = {action.card for action in legal_actions(state) if isinstance(action, Move)}
        for pile in state.reserves:
            if pile and pile[-1] not in movable:
                return number, state, pile[-1].code
    raise AssertionError("every deal had every reserve top movable")


def test_a_refused_click_says_why_beside_the_card_in_the_tables_words_and_sends_nothing(page, live_server):
    number, state, card = blocked_card("osmosis")
    start_game(page, "osmosis", number)
    posted = []
    page.on("request", lambda request: posted.append(request.url) if request.method == "POST" else None)
    clicked = page.locator(f"#board .card[data-card='{card}']")

    clicked.click()

    said = page.locator("#refusal")
    expect(said).to_be_visible()
    assert said.inner_text().startswith(f"{shown(card)} ")
    assert not CODES.search(said.inner_text()), said.inner_text()
    assert distance(clicked, said) <= 100
    expect(page.locator("#status")).to_have_text(said.inner_text())
    expect(page.locator("#status")).to_have_class("error")
    assert refusal(state, card, None) is not None
    page.wait_for_timeout(300)
    assert posted == []
    assert game_of(page, live_server)["version"] == 1


def test_a_card_dropped_where_it_cannot_go_is_explained_and_nothing_is_sent(page, live_server):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    game = game_of(page, live_server)
    while not any(a["kind"] == "move" for a in game["legal_actions"]):
        post(
            f"{live_server}/games/{game['id']}/draw",
            token=page.evaluate(f"localStorage.getItem('osmosis-token-{game['id']}')"),
        )
        game = game_of(page, live_server)
    page.reload()
    move = next(a for a in game["legal_actions"] if a["kind"] == "move")
    wrong = next(f for f in ("F1", "F2", "F3", "F4") if f != move["to"])
    state = dealt("osmosis-draw-one", number)
    for _ in range(game["version"] - 1):
        state = apply(state, next(a for a in legal_actions(state) if not isinstance(a, Move)))
    posted = []
    page.on("request", lambda request: posted.append(request.url) if request.method == "POST" else None)

    drag_with_mouse(
        page,
        page.locator(f"#board .playable[data-card='{move['card']}']"),
        page.locator(f"#board [data-target='{wrong}']"),
    )

    said = page.locator("#refusal")
    expect(said).to_be_visible()
    assert said.inner_text().startswith(f"{shown(move['card'])} cannot ")
    assert not CODES.search(said.inner_text()), said.inner_text()
    assert distance(page.locator(f"#board [data-target='{wrong}'] :is(.card, .empty)").last, said) <= 100
    expect(page.locator("#status")).to_have_text(said.inner_text())
    assert refusal(state, move["card"], Place(wrong)) is not None
    assert posted == []
    assert game_of(page, live_server)["version"] == game["version"]


def positions(variant, deals, steps, seed):
    """Positions of random games under `variant`, the finished ones included."""
    chooser = random.Random(seed)
    for number in deals:
        state = dealt(variant, number)
        for _ in range(steps):
            yield state
            actions = legal_actions(state)
            if not actions:
                break
            # Card moves first more often than not, so that foundations grow and every rule gets its turn.
            moves = [a for a in actions if isinstance(a, Move)]
            state = apply(state, chooser.choice(moves if moves and chooser.random() < 0.7 else actions))


def test_the_front_ends_reasons_are_the_servers_over_many_positions_of_every_preset(page):
    page.goto("/#tables")
    checked = []  # each position once, with the engine's answer for every seen card and target
    for variant in PRESETS:
        rules = preset(variant)
        for state in positions(variant, range(4), 60, seed=variant):
            view = public_view(state)
            seen = [p["face_up"] for p in view["reserves"]] + [view["waste"], [view["cell"]] if view["cell"] else []]
            cases = [
                {"card": card, "target": target and target.value, "expected": refusal(state, card, target)}
                for card in [code for place in seen for code in place]
                for target in (None, *FOUNDATIONS, Place.CELL)
            ]
            game = {
                "status": view["status"],
                "rules": rules.to_dict(),
                "state": view,
                "legal_actions": [action_to_dict(a) for a in legal_actions(state)],
            }
            checked.append({"game": game, "cases": cases})
    answers = [case["expected"] for position in checked for case in position["cases"]]
    assert len(answers) > 5000 and answers.count(None) > 300
    assert any(answer.startswith("the game is over") for answer in answers if answer)

    # Both ways as one JSON text: Playwright's own serialization of some 200,000 cases and answers costs the
    # browser and the test ten times what parsing the text does.
    differing, table_words = json.loads(
        page.evaluate(
            """async (text) => {
        const { whyNot, whyNotHere } = await import("/app/reasons.js");
        const cases = JSON.parse(text).flatMap(({ game, cases }) => cases.map((c) => ({ ...c, game })));
        return JSON.stringify([
            cases.map((c) => ({ ...c, game: undefined, got: whyNot(c.game, c.card, c.target) }))
                .filter((c) => c.got !== c.expected),
            cases.map((c) => whyNotHere(c.game, c.card, c.target)),
        ]);
    }""",
            json.dumps(checked),
        )
    )

    assert differing == []
    # The same reasons in the table's words: a card as its corner shows it, never a code or a pile's label.
    assert [words is None for words in table_words] == [answer is None for answer in answers]
    assert [words for words in table_words if words and CODES.search(words)] == []


def settle(page: Page):
    """Waits until the table's version has stood still for longer than an auto-move takes to start."""
    version = None
    while version != version_of(page):
        version = version_of(page)
        page.wait_for_timeout(700)


def test_auto_move_plays_the_cards_with_one_place_when_on_and_is_remembered(page, live_server):
    start_game(page, "osmosis-draw-one", a_deal_won_by_clicking("osmosis-draw-one"))
    expect(page.locator("#auto-move")).not_to_be_checked()
    while page.locator("#board .playable").count() == 0:
        version = version_of(page)
        page.locator("#board button.stock").click()
        wait_for_next_version(page, version)
    lit = page.locator("#board .playable").count()
    settle(page)
    expect(page.locator("#board .playable")).to_have_count(lit)  # off: nothing moves by itself

    open_settings(page)
    page.check("#auto-move")
    close_settings(page)

    settle(page)
    expect(page.locator("#board .playable")).to_have_count(0)
    expect(page.locator("#status")).to_contain_text("Auto-move: ")
    for _ in range(10):
        version = version_of(page)
        page.locator("#board button.stock").click()
        wait_for_next_version(page, version)
        settle(page)
        expect(page.locator("#board .playable")).to_have_count(0)
    assert game_of(page, live_server)["score"] > 1
    page.reload()
    expect(page.locator("#auto-move")).to_be_checked()
    open_settings(page)
    page.uncheck("#auto-move")
    page.reload()
    expect(page.locator("#auto-move")).not_to_be_checked()


def test_auto_move_leaves_a_card_that_could_also_go_to_the_cell(page):
    page.goto("/#tables")
    page.evaluate("localStorage.setItem('osmosis-settings', JSON.stringify({autoMove: true}))")
    start_game(page, "osmosis-ablage", 2)
    settle(page)
    # Every top card may go to the empty cell: two places, so none is played for the player.
    expect(page.locator("#board .playable").first).to_be_visible()
    expect(page.locator("#table")).to_have_attribute("data-version", "1")


def test_the_foundations_show_in_play_order_or_by_rank_as_chosen_and_remembered(page, live_server):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    game_id = page.locator("#game-id").inner_text()
    token = page.evaluate(f"localStorage.getItem('osmosis-token-{game_id}')")
    game = game_of(page, live_server)
    while len(game["state"]["foundations"][0]["cards"]) < 5 and game["status"] == "playing":
        action = next((a for a in game["legal_actions"] if a["kind"] == "move"), game["legal_actions"][0])
        game = post(f"{live_server}/games/{game_id}/actions", {"action": action}, token=token)["game"]
    page.reload()
    played = game["state"]["foundations"][0]["cards"]
    shown = page.locator("#board [data-target='F1'] .card")
    expect(shown).to_have_count(len(played))
    assert [shown.nth(i).get_attribute("data-card") for i in range(len(played))] == played

    open_settings(page)
    page.select_option("#foundation-order", "rank")

    by_rank = sorted(played, key=lambda card: "A23456789TJQK".index(card[0]))
    assert by_rank != played, "the deal should play the first foundation out of rank order"
    assert [shown.nth(i).get_attribute("data-card") for i in range(len(played))] == by_rank
    page.reload()
    expect(page.locator("#foundation-order")).to_have_value("rank")
    assert [shown.nth(i).get_attribute("data-card") for i in range(len(played))] == by_rank
    screenshot(page, "10-foundations-by-rank")


@pytest.mark.refused_requests
def test_a_stale_tab_explains_and_shows_the_game_as_it_now_is(page, live_server):
    start_game(page, "osmosis-draw-one", 3)
    game_id = page.locator("#game-id").inner_text()
    token = page.evaluate(f"localStorage.getItem('osmosis-token-{game_id}')")
    post(f"{live_server}/games/{game_id}/draw", token=token)  # another tab draws
    post(f"{live_server}/games/{game_id}/draw", token=token)

    page.locator("#board button.stock").click()

    expect(page.locator("#status")).to_have_text("The game moved on in another tab or window: this is where it is now.")
    expect(page.locator("#table")).to_have_attribute("data-version", "3")
    expect(page.locator("#board .stock")).to_have_text(str(game_of(page, live_server)["state"]["stock_count"]))


@pytest.mark.refused_requests
def test_an_action_the_server_refuses_shows_its_reason_and_the_game_as_it_stands(page, live_server):
    start_game(page, "osmosis-draw-one", 3)
    game_id = page.locator("#game-id").inner_text()
    token = page.evaluate(f"localStorage.getItem('osmosis-token-{game_id}')")
    page.evaluate(f"localStorage.setItem('osmosis-token-{game_id}', 'not-this-games-token')")
    page.reload()
    expect(page.locator("#table")).to_have_attribute("data-version", "1")
    post(f"{live_server}/games/{game_id}/draw", token=token)  # the real player draws meanwhile
    request = urllib.request.Request(
        f"{live_server}/games/{game_id}/draw",
        data=b"{}",
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": "Bearer not-this-games-token"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    reason = json.loads(refused.value.read())["detail"]

    page.locator("#board button.stock").click()

    expect(page.locator("#status")).to_have_text(f"The server refused: {reason}. This is the game as it stands.")
    expect(page.locator("#table")).to_have_attribute("data-version", "2")


@pytest.mark.refused_requests
def test_a_429_is_waited_out_and_the_action_sent_again_with_its_key_landing_once(page, live_server):
    start_game(page, "osmosis-draw-one", 3)
    sent = []

    def busy_once(route):
        sent.append(route.request.headers.get("idempotency-key"))
        if len(sent) == 1:
            route.fulfill(
                status=429,
                headers={"Retry-After": "1", "Content-Type": "application/problem+json"},
                body=json.dumps(
                    {"status": 429, "code": "rate-limited", "title": "Too Many Requests", "detail": "slow down"}
                ),
            )
        else:
            route.continue_()

    page.route("**/games/*/actions", busy_once)
    page.route("**/games/*/draw", busy_once)
    page.locator("#board button.stock").click()

    expect(page.locator("#table")).to_have_attribute("data-version", "2")
    assert len(sent) == 2 and sent[0] and sent[0] == sent[1]
    assert game_of(page, live_server)["version"] == 2
