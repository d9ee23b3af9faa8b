"""The table's toolbar in real Chromium: each action an icon and its word, its key in its tooltip and in
aria-keyshortcuts; the draw named for what it does (a redeal once the stock is empty); on a phone, a bar in the lower
third of the screen, within the thumb's reach, however far the table scrolls."""

import pytest
from playwright.sync_api import expect

from tests.browser.table import a_table, screenshot

DESKTOP = {"width": 1280, "height": 800}
WIDE = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
KEYS = {"draw": "D", "undo": "U", "ask-hint": "H", "show-replay": "R", "open-settings": "S"}


@pytest.mark.parametrize("viewport", [DESKTOP, WIDE], ids=lambda v: f"{v['width']}x{v['height']}")
def test_every_action_shows_an_icon_its_word_and_its_key(browser, live_server, viewport):
    context, page, errors = a_table(browser, live_server, viewport, "osmosis", 3)
    try:
        for button, key in KEYS.items():
            action = page.locator(f"#{button}")
            expect(action.locator("svg.icon")).to_have_count(1)
            expect(action.locator(".word")).not_to_have_text("")
            assert f"({key}" in action.get_attribute("title"), button
            assert key in action.get_attribute("aria-keyshortcuts"), button
        expect(page.locator("#draw .word")).to_have_text("Draw")
        assert page.locator(".toolbar").get_attribute("role") == "group"
        screenshot(page, f"toolbar-{viewport['width']}x{viewport['height']}")
    finally:
        context.close()
    assert not errors


def test_the_draw_is_named_a_redeal_once_the_stock_is_empty(browser, live_server):
    # Osmosis deals three at a time: twelve deals empty its stock of 35.
    context, page, errors = a_table(browser, live_server, DESKTOP, "osmosis", 3, actions=[{"kind": "deal"}] * 12)
    try:
        expect(page.locator("#draw .word")).to_have_text("Redeal")
        page.keyboard.press("d")
        expect(page.locator("#status")).to_contain_text("Redealt the waste")
        expect(page.locator("#draw .word")).to_have_text("Draw")
    finally:
        context.close()
    assert not errors


def test_on_a_phone_the_toolbar_stays_at_the_foot_of_the_screen(browser, live_server):
    context, page, errors = a_table(browser, live_server, PHONE, "osmosis", 3)
    try:
        bar = page.locator(".toolbar")
        bottom = page.evaluate("document.documentElement.scrollHeight") - PHONE["height"]
        assert bottom > 0, "the table is taller than the screen: the bar has somewhere to stay"
        for scrolled in (0, bottom // 2, bottom):
            page.evaluate(f"window.scrollTo(0, {scrolled})")
            box = bar.bounding_box()
            # Whole on the screen, in its lower third: where a thumb holding the phone reaches.
            assert PHONE["height"] * 2 / 3 <= box["y"] and box["y"] + box["height"] <= PHONE["height"] + 1, (
                scrolled,
                box,
            )
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width
        for button in KEYS:
            target = page.locator(f"#{button}").bounding_box()
            assert target["height"] >= 44 and target["width"] >= 44, (button, target)
        screenshot(page, "toolbar-390x844")
    finally:
        context.close()
    assert not errors
