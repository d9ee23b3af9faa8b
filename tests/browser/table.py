"""Helpers for the browser tests: starting and playing games through the page, screenshots, and the
checks every page gets."""

import json
import re
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from server.rules import Deal, Move, Redeal, action_to_dict, apply, legal_actions, numbered_opening, preset
from server.solver.players import play_first_legal

CHROMIUM = "/usr/bin/chromium-headless-shell"
"""Debian's build of Chromium's headless shell, the one Playwright runs for headless tests: the same Blink and V8
as the chromium package, without the windowed browser's compositor, at some two thirds of its CPU."""
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CODES = re.compile(r"\b([A2-9TJQK][CDHS]|[FR][1-4])\b")
"""A card's or a pile's code (3S, F2), which the table never shows a player."""
SUIT_SIGNS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SCREENSHOTS = Path(__file__).parents[2] / "build" / "screenshots"
FAILED_RESOURCE = "Failed to load resource: the server responded with a status of 4"


def watch_for_errors(page: Page, refused_requests=False):
    """The list of what `page` throws or logs as an error, filled as it happens."""
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    def console(message):
        if message.type == "error" and not (refused_requests and message.text.startswith(FAILED_RESOURCE)):
            errors.append(message.text)

    page.on("console", console)
    return errors


def shown(code):
    """A card as its corner shows it: "3♠", "10♦"."""
    return f"{'10' if code[0] == 'T' else code[0]}{SUIT_SIGNS[code[1]]}"


def distance(one, other):
    """The gap between two elements' boxes on the screen, in CSS pixels (0 when they touch or overlap)."""
    a, b = one.bounding_box(), other.bounding_box()
    dx = max(b["x"] - (a["x"] + a["width"]), a["x"] - (b["x"] + b["width"]), 0)
    dy = max(b["y"] - (a["y"] + a["height"]), a["y"] - (b["y"] + b["height"]), 0)
    return (dx * dx + dy * dy) ** 0.5


def dealt(variant, number):
    """The opening of deal `number` under the preset `variant`, as the server deals it."""
    rules = preset(variant)
    return numbered_opening(rules, number)


def click_policy_result(variant, number):
    return play_first_legal(dealt(variant, number)).status


def a_deal_won_by_clicking(variant):
    return next(n for n in range(200) if click_policy_result(variant, n) == "won")


def goes_home(state):
    """Whether playing foundation moves alone, any order, wins from `state`."""
    while (moves := [a for a in legal_actions(state) if isinstance(a, Move) and a.target.value != "cell"]) and (
        state.outcome is None
    ):
        state = apply(state, moves[0])
    return state.outcome is not None and state.outcome.status.value == "won"


def up_to_the_finish(variant, number):
    """The actions of deal `number` played by clicking the first lit card, else the stock, up to the first position
    where nothing is hidden (no stock, no face-down card) and every card can go home; and that position."""
    state = dealt(variant, number)
    played = []
    while state.outcome is None:
        hidden = bool(state.stock) or any(state.face_down(p) for p in range(len(state.reserves)))
        if not hidden and goes_home(state):
            return played, state
        actions = legal_actions(state)
        moves = [action for action in actions if isinstance(action, Move)]
        action = moves[0] if moves else next(a for a in actions if isinstance(a, Deal | Redeal))
        played.append(action_to_dict(action))
        state = apply(state, action)
    raise AssertionError(f"deal {number} of {variant} ends before its finish")


def sit_at(page: Page, game_id, token, settings=None):
    """The page at the table of a game created elsewhere, as this browser's own (its token kept), with `settings`
    (JSON) kept too when given."""
    page.goto("/#tables")
    page.evaluate(f"localStorage.setItem('osmosis-token-{game_id}', '{token}')")
    if settings:
        page.evaluate(f"localStorage.setItem('osmosis-settings', '{settings}')")
    page.goto(f"/#game={game_id}")
    if settings:
        page.reload()  # read as the page starts
    expect(page.locator("#board .card").first).to_be_visible()


def open_settings(page: Page):
    """The table's settings panel, opened by its toolbar button as a player would."""
    page.click("#open-settings")
    expect(page.locator("#settings")).to_be_visible()


def close_settings(page: Page):
    """The settings panel closed by its key, so that nothing lies over the cards."""
    page.keyboard.press("Escape")
    expect(page.locator("#settings")).to_be_hidden()


def a_table(browser, live_server, viewport, variant, number, actions=(), settings=None):
    """A new context's page at the table of a new game of deal `number`, after `actions` were played through the
    API; and the list of what the page throws or logs as an error."""
    game = post(f"{live_server}/games", {"variant": variant, "deal_number": number})
    for action in actions:
        post(f"{live_server}/games/{game['id']}/actions", {"action": action}, token=game["player_token"])
    phone = viewport["width"] < 500
    context = browser.new_context(base_url=live_server, viewport=viewport, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    errors = watch_for_errors(page)
    sit_at(page, game["id"], game["player_token"], settings)
    return context, page, errors


def screenshot(page, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)


def start_game(page: Page, variant, number=None):
    """Deals through the page's menu, as a player would."""
    page.goto("/#tables")
    expect(page.locator("#deal-menu")).to_have_attribute("open", "")  # the tables open the menu
    page.select_option("#variant", variant)
    if number is not None:
        page.fill("#deal-number", str(number))
    page.click("#new-game button[type=submit]")
    expect(page.locator("#table")).to_be_visible()


def version_of(page: Page):
    return page.locator("#table").get_attribute("data-version")


def wait_for_next_version(page: Page, version):
    """Waits until the table shows a version other than `version` (an assertion, not a function evaluated in the
    page: its Content-Security-Policy allows no eval)."""
    expect(page.locator("#table")).not_to_have_attribute("data-version", version)


def play_by_clicks(page: Page, limit=2000):
    for _ in range(limit):
        status = page.locator("#status")
        if "won" in (status.get_attribute("class") or "") or "lost" in (status.get_attribute("class") or ""):
            return status.inner_text()
        version = version_of(page)
        lit = page.locator("#board .playable")
        if lit.count():
            lit.first.click()
        else:
            page.click("#draw")
        wait_for_next_version(page, version)
    pytest.fail("the game did not end")


def get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def post(url, body=None, token=None):
    request = urllib.request.Request(
        url,
        data=json.dumps(body or {}).encode(),
        method="POST",
        headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def serious_violations(page, axe_script):
    """axe-core's serious and critical findings on the page as it is now."""
    # Evaluated, not added as a script tag: the page's Content-Security-Policy runs no inline script.
    page.evaluate(f"() => {{ {Path(axe_script).read_text()}\n}}")
    violations = page.evaluate("async () => (await axe.run(document)).violations")
    return [
        (v["id"], v["impact"], [node["target"] for node in v["nodes"]][:3])
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]
