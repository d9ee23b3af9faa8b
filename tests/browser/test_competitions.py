"""The Competitions page in real Chromium, on a live server with its real clock: a competition announced from the
page, entered from it, its countdown, the entrant's game with its time left on the table, everyone's progress live,
then the results with each game's replay and check; a phone's page; no serious accessibility finding."""

import time
import urllib.error
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.browser.table import post, serious_violations


def signed_up(live_server, kind="human"):
    made = post(f"{live_server}/players", {"name": f"c{uuid.uuid4().hex[:10]}", "kind": kind})
    return made["token"], made["player"]["name"]


def as_player(page, token):
    """The page playing as the player of `token`, as if they had pasted it: the page starts again with it."""
    page.goto("/#tables")
    page.evaluate(f"localStorage.setItem('osmosis-api-token', '{token}')")
    page.reload()


def entered(live_server, competition_id, token):
    """Entered through the API, once the player's sign-up is in the public log."""
    for _ in range(50):
        try:
            return post(f"{live_server}/competitions/{competition_id}/entries", token=token)
        except urllib.error.HTTPError as error:
            if error.code != 409:
                raise
            time.sleep(0.2)
    raise AssertionError("the sign-up never reached the public log")


@pytest.mark.refused_requests  # an entry made before the sign-up is in the public log: 409, and the page says so
def test_a_window_from_its_page_entry_to_its_results(page, live_server, axe_script):
    organizer, _ = signed_up(live_server)
    me, _ = signed_up(live_server)
    rival, rival_name = signed_up(live_server)
    as_player(page, organizer)
    page.goto("/#competitions")
    expect(page.locator("#competitions-title")).to_be_focused()
    page.click("#organize summary")
    page.fill("#competition-name", "Lunch window")
    page.select_option("#competition-format", "window")
    expect(page.locator("#competition-window")).to_be_visible()
    page.fill("#competition-starts-in", "1")
    page.fill("#competition-limit", "1")
    page.fill("#competition-open-hours", "1")
    page.click("#new-competition button[type=submit]")
    expect(page.locator("#competition-title")).to_have_text("Lunch window")
    competition_id = page.evaluate("location.hash").split("=", 1)[1]
    expect(page.locator("#competition-countdown")).to_contain_text("Starts in")
    assert serious_violations(page, axe_script) == []

    # The player enters from the page (trying again while their sign-up is not in the log yet, as the page says).
    as_player(page, me)
    page.goto(f"/#competition={competition_id}")
    for _ in range(20):
        page.click("#enter-competition")
        try:
            expect(page.locator("#competition-status")).to_contain_text("You are in", timeout=1_500)
            break
        except AssertionError:
            expect(page.locator("#competition-problem")).to_contain_text("not in the public log yet")
            time.sleep(0.5)
    expect(page.locator("#competition-status")).to_contain_text("You are in")
    expect(page.locator("#standings-rows tr")).to_have_count(1)
    expect(page.locator("#withdraw-competition")).to_be_visible()
    entered(live_server, competition_id, rival)
    # The rival's entry reaches the page live, over the competition's stream.
    expect(page.locator("#standings-rows tr")).to_have_count(2)
    expect(page.locator("#standings-rows")).to_contain_text(rival_name)


@pytest.mark.refused_requests  # the game's actions once its clock ran out: 409 clock-expired, as the table says
def test_an_entrants_game_shows_its_time_left_and_the_results_link_every_game(page, live_server):
    organizer, _ = signed_up(live_server)
    me, my_name = signed_up(live_server)
    rival, _ = signed_up(live_server)
    starts_at = datetime.now(UTC) + timedelta(seconds=3)
    window = post(
        f"{live_server}/competitions",
        {
            "name": "Quick window",
            "format": "window",
            "variant": "osmosis",
            "entrants": "human",
            "starts_at": starts_at.isoformat(),
            "ends_at": (starts_at + timedelta(seconds=12)).isoformat(),
            "limit_s": 6,
        },
        token=organizer,
    )
    for token in (me, rival):
        entered(live_server, window["id"], token)
    as_player(page, me)
    page.goto(f"/#competition={window['id']}")
    expect(page.locator("#play-competition")).to_be_visible(timeout=10_000)
    page.click("#play-competition")

    expect(page.locator("#board .card").first).to_be_visible()
    expect(page.locator("#figure-clock")).to_contain_text("left")
    expect(page.locator("#figure-clock")).to_have_attribute("aria-label", "time left")
    assert page.locator("#undo").is_disabled()
    page.keyboard.press("d")
    expect(page.locator("#status")).not_to_have_text("")

    # After the close: the results, each game's replay and its check.
    page.goto(f"/#competition={window['id']}")
    expect(page.locator("#standings-caption")).to_have_text("Results", timeout=20_000)
    expect(page.locator("#standings-rows tr")).to_have_count(2)
    expect(page.locator("#competition-root")).to_contain_text("Standings root")
    mine = page.locator("#standings-rows tr", has_text=my_name)
    expect(mine).to_contain_text("out of time")
    mine.locator("button", has_text="Check").click()
    expect(mine).to_contain_text("VALID")
    mine.locator("a", has_text="Replay").click()
    expect(page.locator("#replay-title")).to_be_visible()


def test_the_competitions_page_on_a_phone(browser, live_server):
    organizer, _ = signed_up(live_server)
    post(
        f"{live_server}/competitions",
        {
            "name": "Phone race",
            "format": "race",
            "entrants": "human",
            "starts_at": (datetime.now(UTC) + timedelta(hours=1)).isoformat(),
            "limit_s": 300,
        },
        token=organizer,
    )
    context = browser.new_context(base_url=live_server, viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    try:
        phone.goto("/#competitions")
        expect(phone.locator("#competitions-open")).to_contain_text("Phone race")
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width} px wide on a 390 px phone"
        phone.locator("#competitions-open a", has_text="Phone race").first.click()
        expect(phone.locator("#competition-countdown")).to_contain_text("Starts in")
    finally:
        context.close()
