"""Undo at the table: a button beside Draw and Hint, and Ctrl+Z or U; the cards go back, the live region says what
was taken back, and auto-move does not play the card straight back."""

import re

from playwright.sync_api import expect

from tests.browser.table import (
    a_deal_won_by_clicking,
    get,
    play_by_clicks,
    screenshot,
    start_game,
    version_of,
    wait_for_next_version,
)
from tests.browser.test_playing_by_hand import wait_until_settled


def table_cards(page):
    """Every card on the table, pile by pile, as the page draws them (face-down cards by their backs)."""
    return page.locator("#board .card").evaluate_all(
        "cards => cards.map(c => [c.parentElement.dataset.target ?? '', c.dataset.card ?? 'back'])"
    )


def game_of(page, live_server):
    return get(f"{live_server}/games/{page.locator('#game-id').inner_text()}")


def test_the_undo_button_takes_back_a_draw_and_a_move_and_says_so(page, live_server):
    start_game(page, "osmosis-draw-one", 3)
    undo = page.locator("#undo")
    expect(undo).to_be_disabled()  # nothing to take back at the deal
    dealt, version = table_cards(page), version_of(page)

    page.click("#draw")
    wait_for_next_version(page, version)
    drawn, drawn_version = table_cards(page), version_of(page)
    expect(undo).to_be_enabled()
    page.locator("#board .playable").first.click()
    wait_for_next_version(page, drawn_version)
    moved_version = version_of(page)
    wait_until_settled(page)
    screenshot(page, "undo-1-before")

    undo.click()
    wait_for_next_version(page, moved_version)
    expect(page.locator("#status")).to_contain_text("Took back: ")
    assert table_cards(page) == drawn
    undo.click()
    expect(page.locator("#status")).to_contain_text("Took back: the draw, its cards back to the stock")
    expect(undo).to_be_disabled()
    assert table_cards(page) == dealt
    game = game_of(page, live_server)
    assert (game["undos"], game["can_undo"], game["version"]) == (2, False, int(version) + 4)
    screenshot(page, "undo-2-after")


def test_ctrl_z_and_u_take_back_the_latest_action(page, live_server):
    start_game(page, "osmosis-draw-one", 3)
    dealt = table_cards(page)
    for _ in range(2):
        version = version_of(page)
        page.keyboard.press("d")
        wait_for_next_version(page, version)
    once_drawn = None
    for key in ("Control+z", "u"):
        version = version_of(page)
        page.keyboard.press(key)
        wait_for_next_version(page, version)
        expect(page.locator("#status")).to_contain_text("Took back: the draw")
        once_drawn = once_drawn or table_cards(page)
    assert table_cards(page) == dealt and once_drawn != dealt
    assert game_of(page, live_server)["undos"] == 2


def settled_version(page):
    """The table's version once it has held still for a second: auto-move has played what it would."""
    while True:
        version = version_of(page)
        page.wait_for_timeout(1000)  # four times auto-move's delay
        if version_of(page) == version:
            return version


def test_auto_move_does_not_play_the_card_taken_back_straight_back(page, live_server):
    page.goto("/#tables")
    page.evaluate("localStorage.setItem('osmosis-settings', JSON.stringify({autoMove: true}))")
    page.reload()
    start_game(page, "osmosis-draw-one", 3)
    expect(page.locator("#auto-move")).to_be_checked()
    while True:
        version = settled_version(page)
        game = game_of(page, live_server)
        if game["undos"] == 0 and game["version"] > 2 and game["can_undo"]:
            events = get(f"{live_server}/games/{game['id']}/events?after={int(version) - 1}")["events"]
            if events and events[-1]["kind"] == "card_played":
                break  # auto-move played a card last
        page.click("#draw")
        wait_for_next_version(page, version)
    page.click("#undo")
    wait_for_next_version(page, version)
    expect(page.locator("#status")).to_contain_text("Took back: ")
    taken_back = version_of(page)
    assert settled_version(page) == taken_back
    assert game_of(page, live_server)["version"] == int(taken_back)


def test_a_game_won_with_an_undo_says_so_at_its_end_and_in_its_share_text(page, live_server):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    version = version_of(page)
    page.click("#draw")
    wait_for_next_version(page, version)
    version = version_of(page)
    page.click("#undo")
    wait_for_next_version(page, version)

    assert play_by_clicks(page) == "You won! All 52 cards are on the foundations."
    expect(page.locator("#game-over-figures")).to_contain_text("1 undo (so on no board)")
    share = page.locator("#share-text")
    expect(share).to_contain_text("1 undo (not ranked)")
    assert share.inner_text().startswith(f"Osmosis draw one, deal {number}: won, 52 of 52 cards home, 0 hints, 1 undo")
    assert game_of(page, live_server)["undos"] == 1
    # The actions counted are the line that stood: the draw taken back is not one of them.
    game = game_of(page, live_server)
    events = get(f"{live_server}/games/{game['id']}/events?limit=1000")["events"]
    logged = sum(
        event["kind"] in ("card_played", "card_moved_to_cell", "cards_dealt", "waste_redealt") for event in events
    )
    stood = logged - 1
    expect(page.locator("#game-over-figures")).to_contain_text(f"52 of 52 cards home, {stood} actions, ")
    # The time, as the table's clock showed it, in the end panel and the share text alike.
    expect(share).to_contain_text(re.compile(rf", {stood} actions, \d+:\d\d\.$"))
    time_played = share.inner_text().rsplit(", ", 1)[1].rstrip(".")
    expect(page.locator("#game-over-figures")).to_contain_text(f", {time_played}.")
    expect(page.locator("#figure-clock")).to_have_text(time_played)  # stopped at the end
