"""A table at once: the first visit deals a winnable game without a click, a later visit resumes it, and the menu
deals any preset, a deal number, a winnable deal or today's deal."""

from playwright.sync_api import expect

from tests.browser.table import get


def test_the_first_visit_shows_cards_without_a_click_and_a_reload_the_same_game(page, live_server):
    page.goto("/")

    expect(page.locator("#board .card").first).to_be_visible()
    expect(page.locator("#table-title")).to_have_text("Osmosis, a winnable random deal")
    game_id = page.locator("#game-id").inner_text()
    assert page.url.endswith(f"#game={game_id}")
    assert get(f"{live_server}/games/{game_id}")["deal"]["winnable"]["solver"]
    page.reload()
    expect(page.locator("#game-id")).to_have_text(game_id)
    page.goto("/")  # a later visit: the game in progress, not another deal
    expect(page.locator("#game-id")).to_have_text(game_id)


def test_the_menu_deals_a_winnable_deal_of_a_preset_and_remembers_the_choice(page, live_server):
    page.goto("/")
    expect(page.locator("#board .card").first).to_be_visible()
    page.click("#deal-menu summary")
    page.select_option("#variant", "peek")
    page.check("#winnable")

    page.click("#new-game button[type=submit]")

    expect(page.locator("#table-title")).to_have_text("Peek, a winnable random deal")
    game = get(f"{live_server}/games/{page.locator('#game-id').inner_text()}")
    assert game["variant"] == "peek" and game["deal"]["winnable"]
    page.reload()
    page.click("#deal-menu summary")
    expect(page.locator("#winnable")).to_be_checked()
    expect(page.locator("#variant")).to_have_value("peek")


def test_todays_deal_from_the_menu_asks_for_a_name_first(page):
    page.goto("/")
    expect(page.locator("#board .card").first).to_be_visible()
    page.click("#deal-menu summary")

    page.click("#menu-daily")

    expect(page.locator("#variant-description")).to_contain_text("choose one on the Tables page")


def test_another_deal_after_a_winnable_deal_is_winnable_too(page, live_server):
    page.goto("/")
    expect(page.locator("#board .card").first).to_be_visible()
    first = page.locator("#game-id").inner_text()
    page.click("#resign")
    page.click("#resign-yes")

    page.click("#next-deal")

    expect(page.locator("#game-id")).not_to_have_text(first)
    expect(page.locator("#table-title")).to_have_text("Osmosis, a winnable random deal")
    assert get(f"{live_server}/games/{page.locator('#game-id').inner_text()}")["deal"]["winnable"]
