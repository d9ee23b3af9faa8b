"""Playing as yourself in the browser: a name and a token kept here, today's deal with the time left, a daily
result to share with no card named, a player's page counted from their games, the boards."""

import re
import secrets

from playwright.sync_api import expect

from tests.browser.table import a_deal_won_by_clicking, get, play_by_clicks, screenshot, serious_violations

CARD_NAMED = re.compile(r"\b(?:[A2-9TJQK]|10)[CDHS]\b|[♠♥♦♣]|\b(?:ace|king|queen|jack) of\b", re.I)


def choose_a_name(page):
    name = f"web{secrets.token_hex(4)}"
    page.goto("/#tables")
    page.fill("#chosen-name", name)
    page.click("#sign-up button[type=submit]")
    expect(page.locator("#me-name")).to_have_text(name)
    return name


def test_a_name_chosen_once_plays_todays_deal_and_shares_the_result_naming_no_card(page, live_server, axe_script):
    name = choose_a_name(page)
    token = page.locator("#token-value").input_value()
    assert token.startswith("osm_") and page.evaluate("localStorage.getItem('osmosis-api-token')") == token
    expect(page.locator("#daily-left")).to_contain_text("left today")
    assert serious_violations(page, axe_script) == [], "start page, signed in"
    screenshot(page, "9-daily")

    page.click('#daily-list button:has-text("Play today\'s peek")')
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#table-about")).to_contain_text("Peek")
    page.click("#draw")
    page.click("#resign")
    page.click("#resign-yes")
    share = page.locator("#share-text")
    expect(share).to_contain_text("Osmosis daily")
    text = share.inner_text()
    today = get(f"{live_server}/daily")["day"]
    assert (
        text.startswith(f"Osmosis daily {today}, Peek: resigned, ")
        and "0 hints" in text
        and re.search(r", 1 action, \d+:\d\d\.$", text)
    )
    # One count of actions everywhere (moves, deals, redeals; not the resignation): the panel says what the share does.
    expect(page.locator("#game-over-figures")).to_contain_text(re.compile(r"of 52 cards home, 1 action, "))
    assert CARD_NAMED.search(text) is None, text
    expect(page.locator("#game-over-analysis")).to_contain_text("once the day closes")
    screenshot(page, "10-daily-result")

    page.goto("/#tables")
    expect(page.locator("#daily-list li:has-text('peek') a")).to_have_text("your game")
    expect(page.locator("#me-name")).to_have_text(name)


def test_a_players_page_counts_their_finished_games_and_links_their_best_win(page, axe_script):
    name = choose_a_name(page)
    number = a_deal_won_by_clicking("osmosis-draw-one")
    page.select_option("#variant", "osmosis-draw-one")
    page.fill("#deal-number", str(number))
    page.click("#new-game button[type=submit]")
    expect(page.locator("#table")).to_be_visible()
    play_by_clicks(page)

    page.goto(f"/#player={name}")
    rows = page.locator("#profile-rows tr")
    for _ in range(20):  # the server's upkeep verifies the game, then it counts: within seconds
        if rows.count():
            break
        page.wait_for_timeout(1000)
        page.reload()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Osmosis draw one")
    expect(rows.first.locator("a")).to_have_attribute("href", re.compile(r"^#replay="))
    expect(page.locator("#profile-games li")).to_have_count(1)
    expect(page.locator("#profile-stats thead")).to_contain_text("Best win without hints")
    assert serious_violations(page, axe_script) == [], "profile"
    screenshot(page, "11-profile")


def test_the_boards_page_shows_a_closed_days_board_and_the_all_time_board(page, axe_script):
    page.goto("/#boards")
    expect(page.locator("#boards-title")).to_be_visible()
    expect(page.locator("#daily-board-none")).to_be_visible()
    expect(page.locator("#board-min-games")).to_have_text("20")
    page.select_option("#board-kind", "bot")
    expect(page.locator("#boards-problem")).to_have_text("")
    assert serious_violations(page, axe_script) == [], "boards"
    screenshot(page, "12-boards")


def test_a_token_pasted_on_another_device_plays_as_the_same_player(browser, live_server):
    first = browser.new_context(base_url=live_server).new_page()
    name = choose_a_name(first)
    token = first.locator("#token-value").input_value()
    other = browser.new_context(base_url=live_server).new_page()
    other.goto("/#tables")
    other.fill("#pasted-token", "osm_nottherightoneatall0000000000000000")
    other.click("#use-token button[type=submit]")
    expect(other.locator("#me-problem")).to_contain_text("opens no account")
    other.fill("#pasted-token", token)
    other.click("#use-token button[type=submit]")
    expect(other.locator("#me-name")).to_have_text(name)
    other.click("#sign-out")
    expect(other.locator("#sign-up")).to_be_visible()
    assert other.evaluate("localStorage.getItem('osmosis-api-token')") is None
