"""The table's settings in a panel of its own, in real Chromium: opened by its toolbar button or S, in the table's
colours and switches, whole on the screen at 1920x1080, 1280x800 and 390x844, lying over the table without moving
it; the table's keys work while it is open and after a setting is changed; Esc gives the focus back to the button,
a click elsewhere and leaving the table close it."""

import pytest
from playwright.sync_api import expect

from tests.browser.table import a_table, screenshot, version_of, wait_for_next_version
from tests.browser.test_playing_by_hand import wait_until_settled

SIZES = [{"width": 1920, "height": 1080}, {"width": 1280, "height": 800}, {"width": 390, "height": 844}]


def whole_on_screen(box, viewport):
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= viewport["width"] + 0.5
        and box["y"] + box["height"] <= viewport["height"] + 0.5
    )


@pytest.mark.parametrize("viewport", SIZES, ids=lambda v: f"{v['width']}x{v['height']}")
def test_the_panel_opens_whole_on_screen_over_a_still_table_and_the_keys_work_after_a_change(
    browser, live_server, viewport
):
    context, page, errors = a_table(browser, live_server, viewport, "osmosis", 3)
    try:
        panel = page.locator("#settings")
        expect(panel).to_be_hidden()
        board = page.locator("#board").bounding_box()

        page.click("#open-settings")

        expect(panel).to_be_visible()
        assert whole_on_screen(panel.bounding_box(), viewport), panel.bounding_box()
        assert page.locator("#board").bounding_box() == board, "the panel lies over the table: nothing moves"
        switches = page.locator("#settings input[role=switch]")
        expect(switches).to_have_count(5)
        for i in range(5):  # each a switch with its words, a target a finger finds
            box = switches.nth(i).locator("xpath=..").bounding_box()
            assert box["height"] >= (44 if viewport["width"] < 500 else 24), box
        page.click("#settings label:has(#four-colour)")
        expect(page.locator("html")).to_have_class("four-colour")
        version = int(version_of(page))
        page.keyboard.press("d")
        expect(page.locator("#table")).to_have_attribute("data-version", str(version + 1))
        expect(page.locator("#status")).to_contain_text("Drew")
        expect(panel).to_be_visible()  # a key played on the table leaves the panel where it is
        wait_until_settled(page)
        screenshot(page, f"settings-{viewport['width']}x{viewport['height']}")
        page.click("#close-settings")
        expect(panel).to_be_hidden()
    finally:
        context.close()
    assert not errors


def test_s_opens_the_panel_at_its_first_switch_and_esc_gives_the_focus_back_to_the_button(browser, live_server):
    context, page, errors = a_table(browser, live_server, SIZES[1], "osmosis-draw-one", 3)
    try:
        page.keyboard.press("s")
        expect(page.locator("#settings")).to_be_visible()
        expect(page.locator("#auto-move")).to_be_focused()
        page.keyboard.press("Space")
        expect(page.locator("#auto-move")).to_be_checked()
        page.keyboard.press("Escape")
        expect(page.locator("#settings")).to_be_hidden()
        expect(page.locator("#open-settings")).to_be_focused()
        version = version_of(page)
        page.keyboard.press("d")
        wait_for_next_version(page, version)
        page.keyboard.press("s")
        expect(page.locator("#settings")).to_be_visible()
        page.keyboard.press("s")  # the same key closes it
        expect(page.locator("#settings")).to_be_hidden()
        page.reload()
        expect(page.locator("#table")).to_be_visible()
        expect(page.locator("#auto-move")).to_be_checked()  # remembered
    finally:
        context.close()
    assert not errors


def test_a_click_elsewhere_or_leaving_the_table_closes_the_panel(browser, live_server):
    context, page, errors = a_table(browser, live_server, SIZES[1], "osmosis", 3)
    try:
        panel = page.locator("#settings")
        page.click("#open-settings")
        expect(panel).to_be_visible()
        page.mouse.click(5, 5)  # the page's corner: no card, no control
        expect(panel).to_be_hidden()

        page.click("#open-settings")
        expect(panel).to_be_visible()
        page.evaluate("location.hash = 'tables'")
        expect(page.locator("#start")).to_be_visible()
        expect(panel).to_be_hidden()
        page.go_back()
        expect(page.locator("#table")).to_be_visible()
        expect(panel).to_be_hidden()
    finally:
        context.close()
    assert not errors
