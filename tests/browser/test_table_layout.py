"""The table fills the window: cards sized by the window, the table over most of it, a layout per preset, the
opening table whole on a phone, and nothing wider than the window even with every foundation full."""

import pytest

from tests.browser.table import (
    a_deal_won_by_clicking,
    a_table,
    screenshot,
    up_to_the_finish,
    version_of,
    wait_for_next_version,
)

DESKTOPS = [{"width": 1920, "height": 1080}, {"width": 1280, "height": 800}]
PHONE = {"width": 390, "height": 844}

MEASURE = """() => {
    const board = document.querySelector('#board');
    const cards = [...board.querySelectorAll('.card:not(.back)')].map((card) => card.getBoundingClientRect());
    const places = [...board.querySelectorAll('.row')].map((row) => row.getBoundingClientRect());
    const left = Math.min(...places.map((r) => r.left)), right = Math.max(...places.map((r) => r.right));
    const top = Math.min(...places.map((r) => r.top)), bottom = Math.max(...places.map((r) => r.bottom));
    return {
        cardHeight: Math.min(...cards.map((r) => r.height)),
        cardWidth: Math.min(...cards.map((r) => r.width)),
        tableShare: (right - left) * (bottom - top) / (innerWidth * innerHeight),
        tableBottom: bottom,
        sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    };
}"""


@pytest.mark.parametrize("variant", ["osmosis", "peek", "bridesmaids"])
@pytest.mark.parametrize("viewport", DESKTOPS, ids=lambda v: f"{v['width']}x{v['height']}")
def test_on_a_desktop_the_cards_and_the_table_fill_the_window(browser, live_server, variant, viewport):
    context, page, errors = a_table(browser, live_server, viewport, variant, 3)
    sizes = page.evaluate(MEASURE)
    context.close()

    assert sizes["cardHeight"] >= 0.11 * viewport["height"], sizes
    assert sizes["cardWidth"] == pytest.approx(sizes["cardHeight"] * 5 / 7, abs=1), sizes
    assert sizes["tableShare"] >= 0.45, sizes
    assert sizes["tableBottom"] <= viewport["height"], sizes
    assert sizes["sideways"] == 0, sizes
    assert not errors


def test_without_reserves_the_foundations_and_the_stock_take_the_room(browser, live_server):
    viewport = DESKTOPS[1]
    heights = {}
    for variant in ("osmosis", "bridesmaids"):
        context, page, errors = a_table(browser, live_server, viewport, variant, 3)
        heights[variant] = page.evaluate(MEASURE)["cardHeight"]
        context.close()
        assert not errors

    assert heights["bridesmaids"] > 1.05 * heights["osmosis"], heights


@pytest.mark.parametrize("variant", ["osmosis", "peek", "bridesmaids", "osmosis-ablage"])
def test_on_a_phone_the_whole_opening_table_is_in_the_first_screen_above_the_bottom_bar(browser, live_server, variant):
    context, page, errors = a_table(browser, live_server, PHONE, variant, 3)
    sizes = page.evaluate(MEASURE)
    bar = page.locator(".toolbar").bounding_box()
    context.close()

    # Every pile a finger drops on without scrolling: none under the bar fixed to the foot of the screen.
    assert sizes["tableBottom"] <= bar["y"], (sizes, bar)
    assert sizes["sideways"] == 0, sizes
    assert sizes["cardHeight"] >= 0.07 * PHONE["height"], sizes
    assert not errors


@pytest.mark.parametrize("viewport", [*DESKTOPS, {"width": 1100, "height": 900}, PHONE], ids=lambda v: f"{v['width']}")
def test_full_foundations_and_a_full_waste_fit_the_width(browser, live_server, viewport):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    played, _ = up_to_the_finish("osmosis-draw-one", number)
    context, page, errors = a_table(browser, live_server, viewport, "osmosis-draw-one", number, played)
    sizes = page.evaluate(MEASURE)
    longest = page.evaluate(
        "Math.max(...[...document.querySelectorAll('#board .foundation')].map((f) => f.children.length - 1))"
    )
    screenshot(page, f"table-{viewport['width']}x{viewport['height']}")  # docs/front-end.md shows them
    context.close()

    assert longest >= 10
    assert sizes["sideways"] == 0, sizes
    assert not errors


PILES = """() => Object.fromEntries([...document.querySelectorAll('#board .row')].map((row) => {
    const box = row.getBoundingClientRect();
    return [row.getAttribute('aria-label').split(',')[0], [box.left, box.top, box.width, box.height]];
}))"""


@pytest.mark.parametrize("viewport", DESKTOPS, ids=lambda v: f"{v['width']}x{v['height']}")
def test_no_pile_moves_over_a_whole_game_and_the_table_fills_the_middle_of_the_window(browser, live_server, viewport):
    number = a_deal_won_by_clicking("osmosis")
    context, page, errors = a_table(browser, live_server, viewport, "osmosis", number)
    at_the_deal = page.evaluate(PILES)
    slots = list(at_the_deal.values())
    covered = sum(width * height for _, _, width, height in slots)
    left = min(x for x, _, _, _ in slots)
    right = max(x + width for x, _, width, _ in slots)
    overlapping = [
        (a, b)
        for i, a in enumerate(slots)
        for b in slots[i + 1 :]
        if a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
    ]

    moved, steps = {}, 0
    while True:
        version = version_of(page)
        lit = page.locator("#board .playable")
        (lit.first if lit.count() else page.locator("#draw")).click()
        wait_for_next_version(page, version)
        if page.locator("#game-over").is_visible():
            break  # the end's panel comes above the table: the game is no longer played
        steps += 1
        for pile, box in page.evaluate(PILES).items():
            if any(abs(a - b) > 0.5 for a, b in zip(box, at_the_deal[pile], strict=True)):
                moved.setdefault(pile, (steps, at_the_deal[pile], box))
    context.close()

    assert steps > 50 and not errors
    assert moved == {}, moved
    assert overlapping == []
    assert covered >= 0.35 * viewport["width"] * viewport["height"], covered / (viewport["width"] * viewport["height"])
    assert abs((left + right) / 2 - viewport["width"] / 2) <= 12, (left, right)
