"""On a phone (390 x 844), no page scrolls sideways: the start page signed in, a table, the boards, a player's page
and a replay."""

import secrets
import time

import pytest
from playwright.sync_api import expect

from tests.browser.table import (
    a_deal_won_by_clicking,
    get,
    post,
    sit_at,
    start_game,
    up_to_the_finish,
    version_of,
    wait_for_next_version,
)
from tests.browser.test_playing_by_hand import centre, drag_with_finger, game_of

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser, live_server):
    context = browser.new_context(base_url=live_server, viewport=PHONE, has_touch=True, is_mobile=True)
    yield context.new_page()
    context.close()


def overflow(page):
    """How far the page reaches past the window's width, in CSS pixels (0: it does not scroll sideways)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def test_no_page_scrolls_sideways_on_a_phone(phone):
    name = f"ph{secrets.token_hex(4)}"
    phone.goto("/#tables")
    phone.fill("#chosen-name", name)
    phone.click("#sign-up button[type=submit]")
    expect(phone.locator("#me-name")).to_have_text(name)
    expect(phone.locator("#daily-left")).to_contain_text("left today")
    widths = {"start, signed in": overflow(phone)}

    start_game(phone, "osmosis", 3)
    widths["a table"] = overflow(phone)
    game_id = phone.evaluate("location.hash").split("=", 1)[1]

    phone.goto("/#boards")
    expect(phone.locator("#boards-title")).to_be_visible()
    phone.wait_for_timeout(300)
    widths["the boards"] = overflow(phone)

    phone.goto(f"/#player={name}")
    expect(phone.locator("#profile-name")).to_have_text(name)
    widths["a player's page"] = overflow(phone)

    phone.goto(f"/#replay={game_id}")
    expect(phone.locator("#replay-board")).to_be_visible()
    widths["a replay"] = overflow(phone)

    assert widths == dict.fromkeys(widths, 0), widths


def in_view(page, selector, seconds=5):
    """Whether the element's top edge comes inside the window within `seconds` (the player sees where it begins)."""
    deadline = time.monotonic() + seconds
    while True:
        top = page.evaluate(f"document.querySelector('{selector}').getBoundingClientRect().top")
        if 0 <= top < page.evaluate("innerHeight") or time.monotonic() > deadline:
            return 0 <= top < page.evaluate("innerHeight")
        page.wait_for_timeout(50)


def test_the_win_panel_is_in_view_however_the_page_was_scrolled(browser, live_server):
    context = browser.new_context(base_url=live_server, viewport=PHONE, has_touch=True, is_mobile=True)
    phone = context.new_page()
    touch = context.new_cdp_session(phone)
    number = a_deal_won_by_clicking("osmosis-draw-one")
    played, _ = up_to_the_finish("osmosis-draw-one", number)
    game = post(f"{live_server}/games", {"variant": "osmosis-draw-one", "deal_number": number})
    for action in played:
        post(f"{live_server}/games/{game['id']}/actions", {"action": action}, token=game["player_token"])
    sit_at(phone, game["id"], game["player_token"])
    phone.click("#how-to-play summary")  # a longer page, scrolled down as a player reading it would have
    while not phone.locator("#game-over").is_visible():
        version = version_of(phone)
        card = phone.locator("#board .playable").first
        card.evaluate("card => card.scrollIntoView({block: 'start'})")  # the table above the card out of view
        touch_at(touch, centre(card))
        wait_for_next_version(phone, version)
    assert phone.evaluate("scrollY") > 0
    expect(phone.locator("#game-over-title")).to_have_text("You won!")
    expect(phone.locator("#game-over")).to_be_in_viewport()
    assert in_view(phone, "#game-over")
    context.close()


def touch_at(touch, point):
    touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": point[0], "y": point[1]}]})
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_a_tap_right_after_a_drag_is_never_lost(browser, live_server):
    context = browser.new_context(base_url=live_server, viewport=PHONE, has_touch=True, is_mobile=True)
    phone = context.new_page()
    touch = context.new_cdp_session(phone)
    for attempt in range(5):
        start_game(phone, "osmosis-draw-one", 3 + attempt)
        game = game_of(phone, live_server)
        move = next((a for a in game["legal_actions"] if a["kind"] == "move" and a["to"] != "cell"), None)
        if move:
            break
    version = int(version_of(phone))
    stock = centre(phone.locator("#board button.stock"))
    drag_with_finger(
        phone,
        touch,
        phone.locator(f"#board .playable[data-card='{move['card']}']"),
        phone.locator(f"#board [data-target='{move['to']}']"),
    )
    touch_at(touch, stock)  # at once: while the drop is still on its way to the server
    expect(phone.locator("#table")).to_have_attribute("data-version", str(version + 2))
    events = get(f"{live_server}/games/{game['id']}/events?after={version}")["events"]
    assert [event["kind"] for event in events] == ["card_played", "cards_dealt"]
    context.close()
