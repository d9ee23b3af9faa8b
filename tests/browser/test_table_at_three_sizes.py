"""Issue 63's goals, checked from outside at the three sizes players bring (1920x1080, 1280x800 and a 390x844
phone): the clock ticking and the count moving with play, a focus ring that tells the keyboard's card from another
lit one, the end panel unobstructed over a table that holds still, and a replay that opens at the deal. Each writes
its screenshot (build/screenshots/goal-*.png, in docs/front-end.md)."""

import pytest
from playwright.sync_api import expect

from tests.browser.table import a_deal_won_by_clicking, a_table, screenshot, up_to_the_finish
from tests.browser.test_playing_by_hand import wait_until_settled

SIZES = [{"width": 1920, "height": 1080}, {"width": 1280, "height": 800}, {"width": 390, "height": 844}]
BY_SIZE = pytest.mark.parametrize("viewport", SIZES, ids=lambda v: f"{v['width']}x{v['height']}")
WON = "osmosis-draw-one"


def named(viewport):
    return f"{viewport['width']}x{viewport['height']}"


@BY_SIZE
def test_the_clock_ticks_and_the_count_moves_with_play(browser, live_server, viewport):
    context, page, errors = a_table(browser, live_server, viewport, "osmosis-draw-one", 3)
    try:
        clock, actions, home = (page.locator(f"#figure-{name}") for name in ("clock", "actions", "home"))
        expect(actions).to_have_text("0 actions")
        expect(home).to_have_text("1 of 52 home")
        started = clock.inner_text()
        expect(clock).not_to_have_text(started, timeout=3000)
        page.locator("#draw").click()
        expect(actions).to_have_text("1 action")
        page.click('#board .card.playable[data-card="JC"]')
        expect(home).to_have_text("2 of 52 home")
        expect(actions).to_have_text("2 actions")
        assert page.locator("#game-figures").bounding_box()["y"] < viewport["height"] / 4, "in the table's head"
        wait_until_settled(page)
        screenshot(page, f"goal-clock-{named(viewport)}")
    finally:
        context.close()
    assert not errors


@BY_SIZE
def test_the_focus_ring_tells_the_keyboard_s_card_from_another_lit_one(browser, live_server, viewport):
    """A white ring outside the lit one, a gap between: the card Enter plays is never a guess."""
    context, page, errors = a_table(browser, live_server, viewport, "osmosis", 11)  # two lit cards: 9♦ and 2♠
    try:
        wait_until_settled(page)
        expect(page.locator("#board .card.playable")).to_have_count(2)
        for _ in range(40):
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.classList.contains('playable')"):
                break
        focused = page.locator("#board .card.playable:focus")
        expect(focused).to_have_count(1)
        other = page.locator("#board .card.playable:not(:focus)").first
        ring = "card => getComputedStyle(card).boxShadow"
        assert "rgb(255, 255, 255)" in focused.evaluate(ring) and "rgb(255, 255, 255)" not in other.evaluate(ring)
        screenshot(page, f"goal-focus-{named(viewport)}")
    finally:
        context.close()
    assert not errors


@BY_SIZE
def test_the_end_panel_is_unobstructed_over_a_still_table_and_its_replay_opens_at_the_deal(
    browser, live_server, viewport
):
    number = a_deal_won_by_clicking(WON)
    played, _ = up_to_the_finish(WON, number)
    context, page, errors = a_table(browser, live_server, viewport, WON, number, actions=played)
    try:
        wait_until_settled(page)
        board = page.locator("#board").bounding_box()
        page.click("#finish")
        panel = page.locator("#game-over")
        expect(page.locator("#game-over-title")).to_have_text("You won!")
        expect(page.locator("#game-over-analysis")).to_contain_text("Solver: ")
        assert page.locator("#board").bounding_box() == board, "the table holds still as the panel comes"
        expect(panel).to_be_in_viewport(ratio=1)
        buttons = panel.locator("button:visible")
        for i in range(buttons.count()):  # nothing lies over its buttons: each is what a click there hits
            box = buttons.nth(i).bounding_box()
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            hit = page.evaluate(f"document.elementFromPoint({x}, {y}).closest('button')?.id")
            assert hit == buttons.nth(i).get_attribute("id"), (hit, buttons.nth(i).get_attribute("id"))
        page.wait_for_selector(".cascade", state="detached")  # the win's falling cards have passed
        screenshot(page, f"goal-won-{named(viewport)}")

        page.click("#over-replay")
        expect(page.locator("#position")).to_contain_text("Event 1 of ")
        expect(page.locator("#replay-title")).to_have_text(f"Replay of Osmosis draw one, deal {number}")
        expect(page.locator("#replay-board .foundation .card")).to_have_count(1)  # the base card alone: the deal
        version = page.locator("#position").inner_text()
        page.keyboard.press("ArrowRight")
        expect(page.locator("#position")).not_to_have_text(version)
        page.keyboard.press("Home")
        expect(page.locator("#position")).to_contain_text("Event 1 of ")
        wait_until_settled(page)
        screenshot(page, f"goal-replay-{named(viewport)}")
    finally:
        context.close()
    assert not errors
