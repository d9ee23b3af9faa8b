"""Movement: a played card travels from its place to the foundation, drawn cards fan out from the stock, and an
input during a movement acts on the table as it is; with reduced motion nothing moves."""

import pytest
from playwright.sync_api import expect

from tests.browser.table import post, sit_at, start_game, version_of, wait_for_next_version, watch_for_errors

# The movements running on the table now: which card, and whether it travels (a transform that changes).
MOVEMENTS = """() => document.getAnimations().map((animation) => {
    const frames = animation.effect.getKeyframes();
    return {
        card: animation.effect.target.dataset.card ?? animation.effect.target.className,
        transforms: frames.map((frame) => frame.transform),
        duration: animation.effect.getTiming().duration,
    };
}).filter((movement) => movement.transforms.some((transform) => transform && transform !== 'none'))"""

# Where a card is on the screen, every frame for `ms` milliseconds.
SAMPLED = """([code, ms]) => new Promise((done) => {
    const seen = [];
    const start = performance.now();
    const sample = () => {
        const card = document.querySelector(`#board .card[data-card="${code}"]`);
        if (card) { const r = card.getBoundingClientRect(); seen.push([Math.round(r.left), Math.round(r.top)]); }
        if (performance.now() - start < ms) requestAnimationFrame(sample); else done(seen);
    };
    sample();
})"""


@pytest.fixture
def still_page(browser, live_server):
    """A desktop page whose system asks for reduced motion."""
    viewport = {"width": 1280, "height": 800}
    context = browser.new_context(base_url=live_server, viewport=viewport, reduced_motion="reduce")
    page = context.new_page()
    errors = watch_for_errors(page)
    yield page
    context.close()
    assert not errors


def first_playable(page):
    """The first lit card of the table, drawing from the stock until there is one."""
    while page.locator("#board .playable").count() == 0:
        version = version_of(page)
        page.locator("#board button.stock").click()
        wait_for_next_version(page, version)
    return page.locator("#board .playable").first.get_attribute("data-card")


def test_a_new_deal_leaves_the_stock_card_after_card(page):
    start_game(page, "peek", 3)

    movements = page.evaluate(MOVEMENTS)

    assert len({m["card"] for m in movements}) >= 10, movements  # Peek's 16 reserve cards and the base card


def test_a_played_card_travels_to_its_foundation(page):
    start_game(page, "osmosis-draw-one", 3)
    code = first_playable(page)
    card = page.locator(f"#board .card[data-card='{code}']")
    before = card.bounding_box()

    card.click()
    samples = [tuple(sample) for sample in page.evaluate(SAMPLED, [code, 700])]

    assert page.locator(f"#board .foundation .card[data-card='{code}']").count() == 1
    after = page.locator(f"#board .card[data-card='{code}']").bounding_box()
    start, end = (before["x"], before["y"]), (after["x"], after["y"])

    def near(sample, place):
        return abs(sample[0] - place[0]) <= 1 and abs(sample[1] - place[1]) <= 1

    assert near(samples[-1], end) and not near(start, end), (samples, start, end)
    on_the_way = {sample for sample in samples if not near(sample, start) and not near(sample, end)}
    assert len(on_the_way) >= 2, samples  # seen between its place and the foundation, frame after frame


def test_drawn_cards_fan_out_from_the_stock_and_the_next_input_is_not_lost(page, live_server):
    start_game(page, "osmosis", 3)
    version = int(version_of(page))

    page.locator("#board button.stock").click()
    wait_for_next_version(page, str(version))
    movements = page.evaluate(MOVEMENTS)
    page.locator("#board button.stock").click()  # during the movement

    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 2))
    dealt = [m for m in movements if m["card"] and len(m["card"]) == 2]
    assert len(dealt) >= 3, movements
    assert all(150 <= m["duration"] <= 300 for m in dealt), movements


def test_a_redeal_gathers_the_waste_back_into_the_stock(page, live_server):
    game = post(f"{live_server}/games", {"variant": "osmosis", "deal_number": 3})
    token = game["player_token"]
    while not any(action["kind"] == "redeal" for action in game["legal_actions"]):
        game = post(f"{live_server}/games/{game['id']}/draw", token=token)["game"]
    sit_at(page, game["id"], token)
    expect(page.locator("#board .waste .card").first).to_be_visible()

    page.locator("#board button.stock").click()

    expect(page.locator("#board .waste .card")).to_have_count(0)
    movements = page.evaluate(MOVEMENTS)
    assert [m for m in movements if "stock" in m["card"]], movements


def test_with_reduced_motion_nothing_moves(still_page):
    start_game(still_page, "osmosis-draw-one", 3)
    code = first_playable(still_page)

    still_page.locator(f"#board .card[data-card='{code}']").click()
    movements = still_page.evaluate(MOVEMENTS)
    samples = still_page.evaluate(SAMPLED, [code, 300])
    still_page.locator("#board button.stock").click()
    expect(still_page.locator("#board .waste .card").first).to_be_visible()
    after_draw = still_page.evaluate(MOVEMENTS)

    assert movements == [] and after_draw == []
    assert len(set(map(tuple, samples))) <= 2, samples  # where it was, then where it is: nothing in between
