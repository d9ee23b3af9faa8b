"""Feedback where the eye is: a refused card shakes and the reason is said beside it, and the hint's marks on the
card and its foundation, unlike a playable card's."""

from playwright.sync_api import expect

from tests.browser.table import CODES, distance, serious_violations, start_game, version_of, wait_for_next_version
from tests.browser.test_playing_by_hand import wait_until_settled

SHAKES = """(code) => document.getAnimations()
    .filter((a) => a.effect.target.dataset.card === code)
    .flatMap((a) => a.effect.getKeyframes().map((frame) => frame.transform))"""


def test_a_refused_card_shakes_in_place_and_the_reason_is_beside_it(page):
    start_game(page, "osmosis", 3)  # the top of R1 at the opening, 3♠, has nowhere to go
    refused = page.locator("#board .reserve .card:not(.back):not(.playable)").first
    code = refused.get_attribute("data-card")

    refused.click()
    frames = page.evaluate(SHAKES, code)

    said = page.locator("#refusal")
    expect(said).to_be_visible()
    assert distance(refused, said) <= 100
    assert not CODES.search(said.inner_text()), said.inner_text()
    assert any("translateX(-" in (frame or "") for frame in frames), frames
    page.locator("#board button.stock").click()  # the next action takes the reason away
    expect(said).to_be_hidden()


def test_the_hint_marks_the_card_and_where_it_goes_unlike_a_playable_card(page):
    start_game(page, "osmosis-draw-one", 3)
    while page.locator("#board .playable").count() < 2:
        version = version_of(page)
        page.locator("#board button.stock").click()
        wait_for_next_version(page, version)

    page.click("#ask-hint")

    hinted = page.locator("#board .card.hinted")
    expect(hinted).to_have_count(1)
    target = page.locator("#board .row.hint-target")
    expect(target).to_have_count(1)
    other = page.locator("#board .playable:not(.hinted)").first
    style = "(e) => { const s = getComputedStyle(e); return [s.outlineStyle, s.outlineColor, s.animationName]; }"
    hint_style, playable_style = hinted.evaluate(style), other.evaluate(style)
    assert hint_style[0] != playable_style[0] and hint_style[1] != playable_style[1], (hint_style, playable_style)
    assert target.evaluate(style)[1] == hint_style[1]
    assert target.get_attribute("data-target").startswith("F")


def test_no_serious_accessibility_violation_with_the_menu_a_refusal_and_a_hint_shown(page, axe_script):
    start_game(page, "osmosis", 3)
    page.click("#deal-menu summary")
    expect(page.locator("#winnable")).to_be_visible()
    page.locator("#board .reserve .card:not(.back):not(.playable)").first.click()
    expect(page.locator("#refusal")).to_be_visible()
    assert serious_violations(page, axe_script) == [], "menu and refusal"

    page.click("#ask-hint")
    expect(page.locator("#board .hinted").first).to_be_visible()
    assert serious_violations(page, axe_script) == [], "hint"


def test_on_a_phone_the_reason_beside_a_refused_card_covers_no_card_that_can_move(browser, live_server):
    context = browser.new_context(base_url=live_server, viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    try:
        for variant, number in (("osmosis", 3), ("osmosis", 11), ("peek", 5), ("osmosis-draw-one", 3)):
            start_game(page, variant, number)
            wait_until_settled(page)
            tops = [pile.locator(".card[data-card]").last for pile in page.locator("#board .reserve").all()]
            for refused in [top for top in tops if top.count() and "playable" not in top.get_attribute("class")]:
                refused.tap()
                said = page.locator("#refusal")
                expect(said).to_be_visible()
                bubble = said.bounding_box()
                for lit in page.locator("#board .card.playable, #board button.stock").all():
                    assert not overlapping(bubble, lit.bounding_box()), (
                        variant,
                        number,
                        refused.get_attribute("data-card"),
                    )
    finally:
        context.close()


def overlapping(one, other):
    return (
        one["x"] < other["x"] + other["width"]
        and other["x"] < one["x"] + one["width"]
        and one["y"] < other["y"] + other["height"]
        and other["y"] < one["y"] + one["height"]
    )
