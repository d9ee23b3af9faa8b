"""Accessibility: an axe-core scan of every page in both themes, the themes, text alternatives."""

import pytest
from playwright.sync_api import expect

from tests.browser.table import CODES, get, post, serious_violations, start_game, watch_for_errors


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violation_on_the_start_page_the_table_or_the_replay(
    browser, live_server, axe_script, scheme
):
    context = browser.new_context(base_url=live_server, color_scheme=scheme)
    page = context.new_page()
    errors = watch_for_errors(page)
    watched = post(f"{live_server}/games", {"variant": "peek", "deal_number": 1})  # so that a game is listed to watch
    post(f"{live_server}/games/{watched['id']}/draw", token=watched["player_token"])
    page.goto("/#tables")
    expect(page.locator("#variant option").first).to_be_attached()
    expect(page.locator("#in-progress-list a").first).to_be_visible()
    assert serious_violations(page, axe_script) == [], "start page"

    start_game(page, "osmosis-ablage", 2)
    page.click("#draw")
    expect(page.locator("#table")).to_have_attribute("data-version", "2")
    assert serious_violations(page, axe_script) == [], "table"

    page.click("#resign")
    page.click("#resign-yes")
    expect(page.locator("#game-over-analysis")).to_contain_text("Solver")
    assert serious_violations(page, axe_script) == [], "end of the game"

    page.click("#over-replay")
    expect(page.locator("#analysis")).to_contain_text("Solver")
    assert serious_violations(page, axe_script) == [], "replay"
    context.close()
    assert not errors


def test_the_theme_follows_the_system(browser, live_server):
    backgrounds = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(base_url=live_server, color_scheme=scheme)
        page = context.new_page()
        errors = watch_for_errors(page)
        page.goto("/#tables")
        backgrounds[scheme] = page.evaluate("""[getComputedStyle(document.documentElement).backgroundColor,
            getComputedStyle(document.querySelector('button')).backgroundColor]""")
        context.close()
        assert not errors, scheme
    assert backgrounds["light"][0] != backgrounds["dark"][0]
    assert backgrounds["light"][1] != backgrounds["dark"][1]


def test_cards_have_text_alternatives(page):
    start_game(page, "osmosis", 0)

    expect(page.locator("#board .reserve .back").first).to_have_attribute("aria-label", "3 face-down cards")
    expect(page.locator("#board .card[data-card='6H']")).to_have_attribute("aria-label", "6 of hearts")


def test_the_piles_are_named_as_piles(page):
    start_game(page, "osmosis-ablage", 2)

    names = page.locator("#board [role=group]").evaluate_all("(groups) => groups.map((g) => g.ariaLabel)")

    base_suit = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}[
        page.locator("#board [data-target=F1] .card").first.get_attribute("data-card")[1]
    ]
    assert names == [
        "stock",
        "waste, 0 cards",
        "cell",
        "reserve 1",
        "reserve 2",
        "reserve 3",
        "reserve 4",
        f"foundation 1, {base_suit}",
        "foundation 2, empty",
        "foundation 3, empty",
        "foundation 4, empty",
    ]


@pytest.mark.parametrize(
    ("variant", "empty_foundation"), [("osmosis-ablage", "the base rank"), ("peek-till-dawn", "empty")]
)
def test_the_table_shows_a_pile_s_name_only_where_it_helps_and_never_a_code(
    page, live_server, variant, empty_foundation
):
    start_game(page, variant, 2)

    shown = page.locator("#board").inner_text()
    assert not CODES.search(shown), shown
    labels = page.locator("#board .label").all_inner_texts()
    assert [label.split()[0] for label in labels] == ["Stock", "Waste", "Cell"][: len(labels)], labels
    empties = page.locator("#board .foundation .empty")
    expect(empties).to_have_count(3)
    game = get(f"{live_server}/games/{page.locator('#game-id').inner_text()}")
    base = game["state"]["base_rank"]
    for i in range(3):
        if empty_foundation == "the base rank":  # the rank that starts it, as a card's corner shows it
            expect(empties.nth(i)).to_have_text("10" if base == "T" else base)
            assert empties.nth(i).get_attribute("title").endswith(" starts it")
        else:  # any rank the foundation above holds: no one rank to show
            expect(empties.nth(i)).to_have_text("empty")
    said = page.evaluate(
        """async () => (await import("/app/board.js")).describe(
            { kind: "card_played", data: { card: "7S", from: "R1", to: "F2", uncovered: null } })"""
    )
    assert said == "7 of spades from reserve 1 to foundation 2."
    dealt = page.evaluate(
        """async () => (await import("/app/board.js")).describe({ kind: "game_created",
            data: { variant: "osmosis-draw-one", opening: { foundations: [{ cards: ["AC"] }] } } })"""
    )
    assert dealt == "Dealt Osmosis draw one; base card ace of clubs."  # a preset as the menu names it, no code


def test_a_card_to_play_is_named_first_by_what_it_shows(page):
    """WCAG 2.5.3, label in name: a voice-control user says what the button shows ("K spades")."""
    start_game(page, "osmosis-ablage", 2)
    page.click("#draw")
    expect(page.locator("#table")).to_have_attribute("data-version", "2")
    playable = page.locator("#board button.playable")
    expect(playable.first).to_be_visible()
    for button in playable.all():
        shown = button.evaluate(
            "b => b.querySelector('.corner .index').textContent + b.querySelector('.corner .index-pip').textContent"
        )
        name = button.get_attribute("aria-label")
        assert name.startswith(f"{shown}, "), (shown, name)
        assert ": play to " in name, name
        assert not CODES.search(name.split(": play to ")[1]), name
