"""The reference front end in a real browser (Debian's chromium, driven by Playwright), on a live server.

Screenshots are saved under var/screenshots/ for a person to look at.
"""

import json
import re
import shutil
import subprocess
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from server.rules import deal_number_seed, layout, opening, preset, shuffled_deck
from server.rules.policies import play_first_legal

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOTS = Path(__file__).parents[2] / "var" / "screenshots"


def click_policy_result(variant, number):
    rules = preset(variant)
    return play_first_legal(opening(rules, layout(shuffled_deck(deal_number_seed(number)), rules))).status


def a_deal_won_by_clicking(variant):
    return next(n for n in range(200) if click_policy_result(variant, n) == "won")


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server, viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"the page threw: {errors}"


def screenshot(page, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)


def start_game(page: Page, variant, number=None):
    page.goto("/")
    page.select_option("#variant", variant)
    if number is not None:
        page.fill("#deal-number", str(number))
    page.click("#new-game button[type=submit]")
    expect(page.locator("#table")).to_be_visible()


def play_by_clicks(page: Page, limit=2000):
    for _ in range(limit):
        status = page.locator("#status")
        if "won" in (status.get_attribute("class") or "") or "lost" in (status.get_attribute("class") or ""):
            return status.inner_text()
        version = page.locator("#table").get_attribute("data-version")
        lit = page.locator("#board .playable")
        if lit.count():
            lit.first.click()
        else:
            page.click("#draw")
        page.wait_for_function("(version) => document.querySelector('#table').dataset.version !== version",
                               arg=version)
    pytest.fail("the game did not end")


def test_a_whole_game_is_won_by_clicking_lit_cards_and_draw(page):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    expect(page.locator("#status")).to_contain_text("Your move")
    screenshot(page, "1-new-game")

    message = play_by_clicks(page)

    assert message == "You won! All 52 cards are on the foundations."
    expect(page.locator("#board .foundation .card")).to_have_count(52)
    expect(page.locator("#board .playable")).to_have_count(0)
    screenshot(page, "2-won")


def test_the_end_of_a_game_shows_what_happened_and_deals_the_same_or_the_next_deal(page):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    first_id = page.locator("#game-id").inner_text()
    play_by_clicks(page)
    panel = page.locator("#game-over")
    expect(panel).to_be_visible()
    expect(page.locator("#game-over-title")).to_have_text("You won!")
    expect(page.locator("#game-over-figures")).to_contain_text("52 of 52 cards home")
    expect(page.locator("#game-over-figures")).to_contain_text(" actions")
    expect(page.locator("#game-over-analysis")).to_contain_text("Solver: the deal was winnable")
    screenshot(page, "2-won-panel")

    page.click("#same-deal")
    expect(page.locator("#game-over")).to_be_hidden()
    expect(page.locator("#game-id")).not_to_have_text(first_id)
    game_id = page.locator("#game-id").inner_text()
    with urllib.request.urlopen(f"{page.url.split('#')[0]}games/{game_id}", timeout=10) as response:
        again = json.loads(response.read())
    assert (again["variant"], again["deal"]["deal_number"]) == ("osmosis-draw-one", number)

    page.click("#resign")
    page.click("#resign-yes")
    expect(page.locator("#game-over-title")).to_have_text("You resigned")
    page.click("#next-deal")
    expect(page.locator("#game-over")).to_be_hidden()
    game_id = page.locator("#game-id").inner_text()
    with urllib.request.urlopen(f"{page.url.split('#')[0]}games/{game_id}", timeout=10) as response:
        assert json.loads(response.read())["deal"]["deal_number"] == number + 1


def test_a_phone_plays_a_whole_game_by_touch_without_scrolling_sideways(browser, live_server):
    context = browser.new_context(base_url=live_server, viewport={"width": 360, "height": 800}, has_touch=True,
                                  is_mobile=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    expect(page.locator(".keys").first).to_be_hidden()
    for _ in range(2000):
        if page.locator("#game-over").is_visible():
            break
        version = page.locator("#table").get_attribute("data-version")
        lit = page.locator("#board .playable")
        (lit.first if lit.count() else page.locator("#draw")).tap()
        page.wait_for_function("(v) => document.querySelector('#table').dataset.version !== v", arg=version)
    expect(page.locator("#game-over-title")).to_have_text("You won!")
    widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], widths
    small = page.evaluate("""[...document.querySelectorAll('#table button:not([hidden])')]
        .filter((b) => b.offsetParent && b.getBoundingClientRect().height < 44).map((b) => b.id)""")
    assert small == []
    screenshot(page, "8-phone-won")
    context.close()
    assert not errors


AXE = Path(__file__).parent / "axe"


@pytest.fixture(scope="module")
def axe_script():
    """axe-core from npm, at the version the lock file names."""
    npm = shutil.which("npm")
    assert npm, "npm is missing: scripts/install-system-packages installs it"
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=AXE, check=True, timeout=300)
    return AXE / "node_modules" / "axe-core" / "axe.min.js"


def serious_violations(page, axe_script):
    page.add_script_tag(path=str(axe_script))
    violations = page.evaluate("async () => (await axe.run(document)).violations")
    return [(v["id"], v["impact"], [node["target"] for node in v["nodes"]][:3])
            for v in violations if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violation_on_the_start_page_the_table_or_the_replay(
        browser, live_server, axe_script, scheme):
    context = browser.new_context(base_url=live_server, color_scheme=scheme)
    page = context.new_page()
    page.goto("/")
    expect(page.locator("#variant option").first).to_be_attached()
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


def test_the_theme_follows_the_system(browser, live_server):
    backgrounds = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(base_url=live_server, color_scheme=scheme)
        page = context.new_page()
        page.goto("/")
        backgrounds[scheme] = page.evaluate("""[getComputedStyle(document.documentElement).backgroundColor,
            getComputedStyle(document.querySelector('button')).backgroundColor]""")
        context.close()
    assert backgrounds["light"][0] != backgrounds["dark"][0]
    assert backgrounds["light"][1] != backgrounds["dark"][1]


def test_a_lost_game_says_why(page):
    number = next(n for n in range(200) if click_policy_result("osmosis", n) == "lost")
    start_game(page, "osmosis", number)

    message = play_by_clicks(page)

    assert message.startswith("Game over: ")
    screenshot(page, "3-lost")


def test_the_keyboard_alone_plays(page):
    start_game(page, "peek", 1)
    page.keyboard.press("d")
    expect(page.locator("#board .stock")).to_have_text("32")

    lit = page.locator("#board .playable")
    if lit.count() == 0:
        page.keyboard.press("d")
    first = page.locator("#board .playable").first
    card = first.get_attribute("data-card")
    first.focus()
    page.keyboard.press("Enter")

    expect(page.locator(f"#board .foundation .card[data-card='{card}']")).to_have_count(1)


def test_cards_have_text_alternatives(page):
    start_game(page, "osmosis", 0)

    expect(page.locator("#board .reserve .back").first).to_have_attribute("aria-label", "3 face-down cards")
    expect(page.locator("#board .card[data-card='6H']")).to_have_attribute("aria-label", "6 of hearts")


def test_the_start_page_loads_everything_it_asks_for_its_icon_included(page):
    failed = []
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    page.goto("/")
    page.wait_for_load_state("networkidle")
    assert failed == []
    icon = page.locator("link[rel=icon]").get_attribute("href")
    for path in (icon, "/favicon.ico"):
        response = page.request.get(path)
        assert response.status == 200 and response.headers["content-type"].startswith("image/svg+xml"), path
        assert response.text().startswith("<svg")


def test_resigning_asks_first_and_then_starting_again(page):
    start_game(page, "bridesmaids", 5)
    version = page.locator("#table").get_attribute("data-version")

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

    expect(page.locator("#start")).to_be_visible()


def test_the_replay_viewer_steps_through_a_finished_game_and_shows_its_verdict(page):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    play_by_clicks(page)

    page.click("#show-replay")
    position = page.locator("#position")
    expect(position).to_contain_text("of")
    last = int(position.inner_text().split()[-1])
    expect(page.locator("#verdict")).to_contain_text("VALID:")
    screenshot(page, "4-replay-last")

    page.click("#first")
    expect(position).to_have_text(f"Event 1 of {last}")
    expect(page.locator("#replay-board .foundation .card")).to_have_count(1)
    page.click("#forward")
    expect(position).to_have_text(f"Event 2 of {last}")
    page.click("#back")
    expect(position).to_have_text(f"Event 1 of {last}")
    screenshot(page, "5-replay-first")
    page.click("#last")
    expect(position).to_have_text(f"Event {last} of {last}")


def test_a_hint_is_shown_in_words_marked_on_the_table_and_counted(page, live_server):
    start_game(page, "osmosis-draw-one", 3)
    expect(page.locator("#table-about")).to_have_text(
        "osmosis-draw-one, deal 3: Osmosis dealing one card at a time.")
    page.click("#how-to-play summary")
    expect(page.locator("#how-to-play")).to_contain_text("osmosis rule")
    version = int(page.locator("#table").get_attribute("data-version"))
    page.click("#ask-hint")
    expect(page.locator("#status")).to_contain_text("Hint: ")
    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 1))
    expect(page.locator("#board .card.hinted, #draw.hinted")).to_have_count(1)
    game_id = page.locator("#game-id").inner_text()
    with urllib.request.urlopen(f"{live_server}/games/{game_id}", timeout=10) as response:
        assert json.loads(response.read())["hints"] == 1
    page.keyboard.press("h")
    expect(page.locator("#table")).to_have_attribute("data-version", str(version + 2))
    screenshot(page, "6-hint")


def test_the_replay_of_a_resigned_winnable_game_shows_where_it_was_lost(page):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    page.click("#resign")
    page.click("#resign-yes")
    expect(page.locator("#status")).to_have_text("You resigned.")
    page.click("#show-replay")
    analysis = page.locator("#analysis")
    expect(analysis).to_contain_text("The deal was winnable")
    expect(analysis).to_contain_text("the resignation at event")
    page.click("#to-lost-by")
    expect(page.locator("#event-text")).to_contain_text("This lost the game")
    page.click("#to-last-winnable")
    expect(page.locator("#event-text")).to_contain_text("The last position that could still be won")
    screenshot(page, "7-replay-analysis")


def test_your_games_are_listed_to_resume_and_back_and_forward_move_between_pages(page):
    start_game(page, "peek", 12)
    page.click("#draw")
    expect(page.locator("#table")).to_have_attribute("data-version", "2")
    game_id = page.locator("#game-id").inner_text()
    assert page.url.endswith(f"#game={game_id}")

    page.go_back()
    expect(page.locator("#start")).to_be_visible()
    mine = page.locator("#my-games-list li")
    expect(mine.first).to_contain_text("peek, deal 12: playing")
    page.go_forward()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#table")).to_have_attribute("data-version", "2")

    page.click("#again")
    expect(page.locator("#start")).to_be_visible()
    page.click("#my-games-list li a")
    expect(page.locator("#game-id")).to_have_text(game_id)
    page.click("#resign")
    page.click("#resign-yes")
    page.goto("/")
    expect(mine.first).to_contain_text("peek, deal 12: resigned")
    expect(page.locator("#my-games-list li a").first).to_have_text("Replay")


def test_a_bad_replay_id_is_explained_on_the_start_page(page):
    page.goto("/#replay=00000000-0000-4000-8000-000000000000")
    expect(page.locator("#start-problem")).to_contain_text("no game")
    expect(page.locator("#start")).to_be_visible()


def test_the_replay_steps_by_keys_plays_itself_marks_the_moved_card_and_offers_its_export(page, live_server):
    start_game(page, "osmosis-draw-one", 3)
    for _ in range(3):
        version = page.locator("#table").get_attribute("data-version")
        page.click("#draw")
        page.wait_for_function("(v) => document.querySelector('#table').dataset.version !== v", arg=version)
    page.click("#resign")
    page.click("#resign-yes")
    page.click("#show-replay")
    expect(page.locator("#replay")).to_be_visible()
    position = page.locator("#position")
    expect(position).to_have_text(re.compile(r"Event \d+ of \d+"))
    last = int(position.inner_text().split()[-1])

    page.keyboard.press("Home")
    expect(position).to_have_text(f"Event 1 of {last}")
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(f"Event 2 of {last}")
    expect(page.locator("#event-text")).to_contain_text("Drew")
    expect(page.locator("#replay-board .card.moved")).to_have_count(1)
    page.keyboard.press("ArrowLeft")
    expect(position).to_have_text(f"Event 1 of {last}")

    page.select_option("#speed", "fast")
    page.click("#autoplay")
    expect(position).to_have_text(f"Event {last} of {last}")
    expect(page.locator("#autoplay")).to_have_text("Play")

    game_id = page.locator("#replay-game-id").inner_text()
    assert page.locator("#download").get_attribute("href") == f"/games/{game_id}/replay"
    with page.expect_download() as download:
        page.click("#download")
    exported = json.loads(Path(download.value.path()).read_text())
    assert exported["format"] == "osmosis-replay/1" and len(exported["events"]) == last
    page.click("#share")
    assert page.locator("#share-link").input_value() == f"{live_server}/#replay={game_id}"


def post(url, body=None, token=None):
    request = urllib.request.Request(url, data=json.dumps(body or {}).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_the_replay_viewer_follows_a_game_in_progress(page, live_server):
    game = post(f"{live_server}/games", {"variant": "osmosis", "deal_number": 0})
    page.goto(f"/#replay={game['id']}")
    expect(page.locator("#position")).to_have_text("Event 1 of 1")
    page.check("#follow")
    page.wait_for_timeout(500)

    post(f"{live_server}/games/{game['id']}/draw", token=game["player_token"])

    expect(page.locator("#position")).to_have_text("Event 2 of 2", timeout=10000)
    expect(page.locator("#event-text")).to_contain_text("Drew ace of spades")
    screenshot(page, "6-following")
