"""Finishing: once nothing is hidden and every card can go home, a finish button (or, as a setting, the table
itself) plays them home; the win is celebrated, skippably, the end panel is in the first screen, and the
foundations end in rank order."""

from playwright.sync_api import expect

from server.rules import PRESETS, Move, apply, legal_actions, preset, public_view
from tests.browser.table import a_deal_won_by_clicking, a_table, dealt, goes_home, up_to_the_finish

VARIANT = "osmosis-draw-one"


def at_the_finish(browser, live_server, settings=None):
    """A 1280x800 page on a game played up to one action before its finish through the API; and that action."""
    number = a_deal_won_by_clicking(VARIANT)
    played, _ = up_to_the_finish(VARIANT, number)
    viewport = {"width": 1280, "height": 800}
    context, page, errors = a_table(browser, live_server, viewport, VARIANT, number, played[:-1], settings)
    return context, page, errors, played[-1]


def test_the_finish_button_plays_every_card_home_and_the_win_is_celebrated(browser, live_server):
    context, page, errors, last = at_the_finish(browser, live_server)
    expect(page.locator("#finish")).to_be_hidden()  # one action before the finish: something is still hidden
    if last["kind"] == "move":
        page.locator(f"#board .card[data-card='{last['card']}']").click()
    else:
        page.locator("#board button.stock").click()
    expect(page.locator("#finish")).to_be_visible()

    page.click("#finish")

    expect(page.locator(".cascade")).to_be_attached(timeout=20_000)
    falling = page.evaluate("document.querySelectorAll('.cascade .card').length")
    page.wait_for_timeout(600)
    still_falling = page.locator(".cascade").count()  # before anything slower is read: the fall lasts some 3 s
    expect(page.locator("#status")).to_have_text("You won! All 52 cards are on the foundations.")
    panel = page.locator("#game-over").bounding_box()
    foundations = [
        [card.get_attribute("data-card") for card in page.locator(f"#board [data-target='F{k}'] .card").all()]
        for k in range(1, 5)
    ]
    page.keyboard.press("Escape")
    expect(page.locator(".cascade")).to_have_count(0)
    context.close()

    assert falling == 52
    assert still_falling == 1  # it lasts more than half a second
    assert panel["y"] + panel["height"] <= 800, panel
    assert [[card[0] for card in f] for f in foundations] == [list("A23456789TJQK")] * 4, foundations
    assert not errors


def test_finishing_by_itself_is_a_setting(browser, live_server):
    context, page, errors, last = at_the_finish(browser, live_server, settings='{"autoFinish": true}')
    expect(page.locator("#auto-finish")).to_be_checked()
    if last["kind"] == "move":
        page.locator(f"#board .card[data-card='{last['card']}']").click()
    else:
        page.locator("#board button.stock").click()

    expect(page.locator("#status")).to_have_text("You won! All 52 cards are on the foundations.", timeout=20_000)
    context.close()
    assert not errors


def test_the_finish_is_offered_exactly_where_the_engine_plays_every_card_home(page):
    """finishing.js replays the engine's foundation rule over what the player sees: held to the engine's own
    play, foundation moves only, over the positions of whole games of every preset."""
    page.goto("/#tables")
    cases = []
    for variant in PRESETS:
        rules = preset(variant)
        for number in range(12):
            state = dealt(variant, number)
            while state.outcome is None:
                hidden = bool(state.stock) or any(state.face_down(p) for p in range(len(state.reserves)))
                view = public_view(state)
                game = {"status": view["status"], "rules": rules.to_dict(), "state": view}
                cases.append({"game": game, "expected": not hidden and goes_home(state)})
                actions = legal_actions(state)
                moves = [action for action in actions if isinstance(action, Move)]
                state = apply(state, moves[0] if moves else actions[0])
    assert sum(case["expected"] for case in cases) > 20 and len(cases) > 1000

    differing = page.evaluate(
        """async (cases) => {
        const { canFinish } = await import("/app/finishing.js");
        return cases.filter((c) => canFinish(c.game) !== c.expected).map((c) => c.game.state);
    }""",
        cases,
    )

    assert differing == []
