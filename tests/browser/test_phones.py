"""On a phone (390 x 844), no page scrolls sideways: the start page signed in, a table, the boards, a player's page
and a replay."""

import secrets

import pytest
from playwright.sync_api import expect

from tests.browser.table import start_game

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
