"""Whole games at the table: by clicks, on a phone by touch, by keyboard; the end of a game; resigning; hints."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.table import (
    a_deal_won_by_clicking,
    click_policy_result,
    close_settings,
    get,
    open_settings,
    play_by_clicks,
    screenshot,
    start_game,
    version_of,
    wait_for_next_version,
    watch_for_errors,
)
from tests.browser.test_playing_by_hand import wait_until_settled


def test_a_whole_game_is_won_by_clicking_lit_cards_and_draw(page):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    expect(page.locator("#status")).to_contain_text("Your move")
    screenshot(page, "1-new-game")

    message = play_by_clicks(page)

    assert message == "You won! All 52 cards are on the foundations."
    expect(page.locator("#board .foundation .card")).to_have_count(52)
    expect(page.locator("#board .playable")).to_have_count(0)
    # A won table ends tidy: each foundation in rank order, ace to king, whatever order the cards were played in.
    for foundation in page.locator("#board .foundation").all():
        codes = foundation.locator(".card").evaluate_all("cards => cards.map(c => c.dataset.card)")
        ranks = [code[0] for code in codes]
        assert ranks == list("A23456789TJQK"), ranks
    screenshot(page, "2-won")


def test_the_end_of_a_game_shows_what_happened_and_deals_the_same_or_the_next_deal(page):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    # The game is named by its deal, as a player names it; its id stays on the table, small.
    expect(page.locator("#table-title")).to_have_text(f"Osmosis draw one, deal {number}")
    assert page.title() == f"Osmosis draw one, deal {number} · Osmosis"
    first_id = page.locator("#game-id").inner_text()
    board_top = page.locator("#board").bounding_box()["y"]
    play_by_clicks(page)
    panel = page.locator("#game-over")
    expect(panel).to_be_visible()
    expect(page.locator("#game-over-title")).to_have_text("You won!")
    # The table holds still as the panel comes, the falling cards pass behind it, its heading wears no focus box.
    assert page.locator("#board").bounding_box()["y"] == board_top
    page.wait_for_selector(".cascade", state="attached")
    layers = page.evaluate(
        "[getComputedStyle(document.querySelector('#game-over')).zIndex,"
        " getComputedStyle(document.querySelector('.cascade')).zIndex]"
    )
    assert int(layers[0]) > int(layers[1]), layers
    heading = page.locator("#game-over-title")
    expect(heading).to_be_focused()
    assert heading.evaluate("h => getComputedStyle(h).outlineStyle") == "none"
    expect(page.locator("#game-over-figures")).to_contain_text("52 of 52 cards home")
    expect(page.locator("#game-over-figures")).to_contain_text(" actions")
    said_once = "Solver: the deal was winnable, and the game won it: the witness is the game's own actions."
    expect(page.locator("#game-over-analysis")).to_have_text(said_once)
    screenshot(page, "2-won-panel")

    page.click("#same-deal")
    expect(page.locator("#game-over")).to_be_hidden()
    expect(page.locator("#game-id")).not_to_have_text(first_id)
    game_id = page.locator("#game-id").inner_text()
    again = get(f"{page.url.split('#')[0]}games/{game_id}")
    assert (again["variant"], again["deal"]["deal_number"]) == ("osmosis-draw-one", number)

    page.click("#resign")
    page.click("#resign-yes")
    expect(page.locator("#game-over-title")).to_have_text("You resigned")
    page.click("#next-deal")
    expect(page.locator("#game-over")).to_be_hidden()
    game_id = page.locator("#game-id").inner_text()
    assert get(f"{page.url.split('#')[0]}games/{game_id}")["deal"]["deal_number"] == number + 1


def test_a_phone_plays_a_whole_game_by_touch_without_scrolling_sideways(browser, live_server):
    context = browser.new_context(
        base_url=live_server, viewport={"width": 360, "height": 800}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    errors = watch_for_errors(page)
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    expect(page.locator(".keys").first).to_be_hidden()
    for step in range(2000):
        if page.locator("#game-over").is_visible():
            break
        if step == 40:
            screenshot(page, "8-phone-mid-game")
        widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert widths[0] <= widths[1], (step, widths)
        version = version_of(page)
        lit = page.locator("#board .playable")
        (lit.first if lit.count() else page.locator("#draw")).tap()
        wait_for_next_version(page, version)
    expect(page.locator("#game-over-title")).to_have_text("You won!")
    widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], widths
    small = page.evaluate("""[...document.querySelectorAll('#table button:not([hidden]), #table .settings label')]
        .filter((b) => b.offsetParent && b.getBoundingClientRect().height < 44).map((b) => b.id || b.textContent)""")
    assert small == []
    screenshot(page, "8-phone-won")
    page.locator("#over-replay").tap()
    expect(page.locator("#verdict")).to_contain_text("VALID")
    screenshot(page, "8-phone-replay")
    page.goto("/#tables")
    expect(page.locator("#my-games-list li").first).to_contain_text("won")
    screenshot(page, "8-phone-start-page")
    context.close()
    assert not errors


def test_a_double_click_or_a_held_key_lands_one_action(page):
    start_game(page, "osmosis-draw-one", 3)
    page.dblclick("#draw")
    expect(page.locator("#table")).to_have_attribute("data-version", "2")
    page.wait_for_timeout(300)
    expect(page.locator("#table")).to_have_attribute("data-version", "2")
    expect(page.locator("#status")).not_to_have_class("error")
    page.keyboard.down("d")
    page.keyboard.down("d")  # the key repeating while held
    page.keyboard.up("d")
    expect(page.locator("#table")).to_have_attribute("data-version", "3")
    page.wait_for_timeout(300)
    expect(page.locator("#table")).to_have_attribute("data-version", "3")


def test_a_lost_game_says_why(page):
    number = next(n for n in range(200) if click_policy_result("osmosis", n) == "lost")
    start_game(page, "osmosis", number)

    message = play_by_clicks(page)

    assert message.startswith("Game over: ")
    screenshot(page, "3-lost")


@pytest.mark.parametrize(
    "setting",
    ["#auto-finish", "#four-colour", "#foundation-order"],
    ids=["a tick box clicked", "another ticked by its key", "a list chosen from by its keys"],
)
def test_the_table_s_keys_work_straight_after_a_setting_is_changed(page, setting):
    start_game(page, "osmosis-draw-one", 3)
    open_settings(page)
    if setting == "#auto-finish":
        page.click(setting)
    else:
        page.focus(setting)
        page.keyboard.press("Space" if setting == "#four-colour" else "ArrowDown")
    expect(page.locator(setting)).to_be_focused()
    version = int(version_of(page))

    page.keyboard.press("d")
    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 1))
    page.keyboard.press("u")
    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 2))
    page.keyboard.press("d")
    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 3))
    page.keyboard.press("Control+z")
    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 4))
    page.keyboard.press("h")
    expect(page.locator("#status")).to_contain_text("Hint: ")


def test_the_table_names_ranks_as_its_cards_show_them_and_in_plain_words(page):
    start_game(page, "osmosis-draw-one", 17)  # its base rank is the 10
    expect(page.locator("#board .info")).to_contain_text("Base rank 10.")
    start_game(page, "osmosis-draw-one", 3)  # the ace
    expect(page.locator("#board .info")).to_contain_text("Base rank A.")
    page.click('#board .card[data-card="3S"]')  # an unused suit (the clubs' is started), not the base rank
    expect(page.locator("#status")).to_contain_text("3♠ cannot start a foundation: only an ace starts one")


def test_presets_are_named_in_words_wherever_a_player_reads_them(page):
    start_game(page, "osmosis-draw-one", 3)
    expect(page.locator("#table-about")).to_have_text("Osmosis draw one, deal 3: Osmosis dealing one card at a time.")
    page.goto("/#tables")
    expect(page.locator("#my-games-list li").first).to_contain_text("Osmosis draw one, deal 3: playing")
    options = page.locator("#variant option")
    expect(options.filter(has_text="Osmosis draw one")).to_have_attribute("value", "osmosis-draw-one")
    names = options.evaluate_all("options => options.map(o => o.textContent)")
    assert "Osmosis strict waste" in names and not [name for name in names if "-" in name], names
    expect(page.locator("#daily-list")).to_contain_text("Osmosis draw one: ")
    page.goto("/#boards")
    board_names = page.locator("#board-variant option").evaluate_all("options => options.map(o => o.textContent)")
    assert "Peek till dawn" in board_names and not [name for name in board_names if "-" in name], board_names


def test_a_dim_card_dragged_says_why_it_cannot_move_and_the_table_selects_no_text(page):
    start_game(page, "osmosis-draw-one", 3)
    wait_until_settled(page)  # the deal's cards in their places
    dim = page.locator('#board .card[data-card="3S"]').bounding_box()
    page.mouse.move(dim["x"] + dim["width"] / 2, dim["y"] + dim["height"] / 2)
    page.mouse.down()
    page.mouse.move(dim["x"] + 200, dim["y"] + 40, steps=8)
    page.mouse.up()
    expect(page.locator("#status")).to_contain_text("3♠ cannot start a foundation: only an ace starts one")
    assert page.evaluate("getSelection().toString()") == ""
    assert page.locator("#board").evaluate("board => getComputedStyle(board).userSelect") == "none"


def test_the_table_s_head_shows_a_ticking_clock_the_actions_that_stood_and_the_cards_home_and_can_hide_them(page):
    start_game(page, "osmosis-draw-one", 3)
    clock, actions, home = page.locator("#figure-clock"), page.locator("#figure-actions"), page.locator("#figure-home")
    expect(actions).to_have_text("0 actions")
    expect(home).to_have_text("1 of 52 home")
    expect(clock).to_have_text(re.compile(r"^0:0\d$"))
    started = clock.inner_text()
    expect(clock).not_to_have_text(started, timeout=3000)  # it ticks
    page.keyboard.press("d")
    expect(actions).to_have_text("1 action")
    page.keyboard.press("u")
    expect(actions).to_have_text("0 actions")  # the line that stood: the draw taken back is not in it
    page.click('#board .card.playable[data-card="JC"]')
    expect(home).to_have_text("2 of 52 home")
    expect(actions).to_have_text("1 action")
    page.reload()  # counted again from the log
    expect(actions).to_have_text("1 action")

    open_settings(page)
    page.uncheck("#show-figures")
    expect(page.locator("#game-figures")).to_be_hidden()
    page.reload()  # remembered
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#game-figures")).to_be_hidden()
    open_settings(page)
    page.check("#show-figures")
    expect(page.locator("#game-figures")).to_be_visible()


# An AudioContext that plays nothing and writes down each tone it was asked for (the page's own is not heard here).
HEARD = """window.heard = [];
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.destination = {}; }
  createGain() {
    const gain = { setValueAtTime() {}, exponentialRampToValueAtTime() {} };
    return { gain, connect: (next) => next };
  }
  createOscillator() {
    const tone = { frequency: { value: 0 }, connect: (next) => next, stop() {} };
    tone.start = () => window.heard.push(tone.frequency.value);
    return tone;
  }
};"""


def test_sound_is_off_until_asked_for_then_a_draw_a_card_placed_and_a_refusal_each_sound_and_it_is_remembered(page):
    page.add_init_script(HEARD)
    start_game(page, "osmosis-draw-one", 3)
    heard = lambda: page.evaluate("window.heard.length")  # noqa: E731
    page.keyboard.press("d")
    expect(page.locator("#figure-actions")).to_have_text("1 action")
    assert heard() == 0, "off by default"

    open_settings(page)
    page.check("#sound")
    close_settings(page)
    page.keyboard.press("u")
    expect(page.locator("#figure-actions")).to_have_text("0 actions")
    after_undo = heard()
    assert after_undo > 0
    page.click('#board .card.playable[data-card="JC"]')  # a card placed
    expect(page.locator("#figure-home")).to_have_text("2 of 52 home")
    after_move = heard()
    assert after_move > after_undo
    page.click('#board .card[data-card="3S"]')  # refused
    expect(page.locator("#refusal")).to_be_visible()
    assert heard() > after_move

    page.reload()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#sound")).to_be_checked()


def test_the_keyboard_alone_plays_a_whole_game(page):
    start_game(page, "osmosis-draw-one", a_deal_won_by_clicking("osmosis-draw-one"))
    page.keyboard.press("d")
    expect(page.locator("#board .stock")).to_have_text("34")
    on_a_lit_card = "document.activeElement?.classList.contains('playable')"

    for _ in range(2000):
        if page.locator("#game-over").is_visible():
            break
        version = version_of(page)
        if page.locator("#board .playable").count():
            for _ in range(60):
                if page.evaluate(on_a_lit_card):
                    break
                page.keyboard.press("Tab")
            else:
                pytest.fail("Tab never reached the lit card")
            page.keyboard.press("Enter")
        else:
            page.keyboard.press("d")
        wait_for_next_version(page, version)

    expect(page.locator("#game-over-title")).to_have_text("You won!")
    expect(page.locator("#game-over-title")).to_be_focused()


def test_resigning_asks_first_and_then_starting_again(page):
    start_game(page, "bridesmaids", 5)
    version = version_of(page)

    page.click("#resign")
    expect(page.locator("#confirm-resign")).to_be_visible()
    page.click("#resign-no")
    expect(page.locator("#confirm-resign")).to_be_hidden()
    expect(page.locator("#table")).to_have_attribute("data-version", version)
    page.click("#resign")
    page.click("#resign-yes")
    expect(page.locator("#status")).to_have_text("You resigned.")
    expect(page.locator("#confirm-resign")).to_be_hidden()
    page.click("#again")

    expect(page.locator("#deal-menu")).to_have_attribute("open", "")
    expect(page.locator("#variant")).to_be_focused()
    page.select_option("#variant", "peek")
    page.fill("#deal-number", "")
    page.click("#new-game button[type=submit]")
    expect(page.locator("#table-title")).to_have_text("Peek, a random deal")
    expect(page.locator("#deal-menu")).not_to_have_attribute("open", "")


def test_a_hint_is_shown_in_words_marked_on_the_table_and_counted(page, live_server):
    start_game(page, "osmosis-draw-one", 3)
    page.click("#how-to-play summary")
    expect(page.locator("#table-about")).to_have_text("Osmosis draw one, deal 3: Osmosis dealing one card at a time.")
    expect(page.locator("#how-to-play")).to_contain_text("osmosis rule")
    version = int(version_of(page))
    page.click("#ask-hint")
    expect(page.locator("#status")).to_contain_text("Hint: ")
    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 1))
    expect(page.locator("#board .card.hinted, #draw.hinted")).to_have_count(1)
    game_id = page.locator("#game-id").inner_text()
    assert get(f"{live_server}/games/{game_id}")["hints"] == 1
    # Asked again where nothing moved: the hint recorded, shown again, and nothing appended.
    with page.expect_response(lambda response: response.url.endswith("/hint")) as again:
        page.keyboard.press("h")
    assert again.value.status == 200 and again.value.json()["events"] == []
    expect(page.locator("#board .card.hinted, #draw.hinted")).to_have_count(1)
    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 1))
    assert get(f"{live_server}/games/{game_id}")["hints"] == 1
    page.click("#draw")
    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 2))
    page.keyboard.press("h")
    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 3))
    screenshot(page, "6-hint")


def test_under_strict_waste_the_table_says_and_shows_which_waste_cards_are_live(page):
    start_game(page, "osmosis-strict-waste", 4)
    for version in ("2", "3"):
        page.click("#draw")
        expect(page.locator("#table")).to_have_attribute("data-version", version)
    expect(page.locator("#board .waste .card")).to_have_count(6)
    expect(page.locator("#board .info")).to_contain_text("Live waste: 3 cards of the latest deal.")
    expect(page.locator("#board .waste .card.dead")).to_have_count(3)
    expect(page.locator("#board .waste .card:not(.dead)").last).to_have_attribute(
        "data-card", page.locator("#board .waste .card").last.get_attribute("data-card")
    )
