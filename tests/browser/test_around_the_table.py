"""Around the table: the start page, your games, the routes, the replay viewer and following a game live."""

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.table import (
    a_deal_won_by_clicking,
    get,
    play_by_clicks,
    post,
    screenshot,
    start_game,
    version_of,
    wait_for_next_version,
)


def test_the_start_page_loads_everything_it_asks_for_its_icon_included(page):
    failed = []
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    page.goto("/#tables")
    page.wait_for_load_state("networkidle")
    assert failed == []
    icon = page.locator("link[rel=icon]").get_attribute("href")
    for path in (icon, "/favicon.ico"):
        response = page.request.get(path)
        assert response.status == 200 and response.headers["content-type"].startswith("image/svg+xml"), path
        assert response.text().startswith("<svg")


def test_the_replay_viewer_steps_through_a_finished_game_and_shows_its_verdict(page):
    number = a_deal_won_by_clicking("osmosis-draw-one")
    start_game(page, "osmosis-draw-one", number)
    play_by_clicks(page)

    page.click("#show-replay")
    position = page.locator("#position")
    # A replay opens at the deal, titled by it, as a player names it (the game's id stays beside, small).
    expect(position).to_contain_text("Event 1 of ")
    last = int(position.inner_text().split()[-1])
    expect(page.locator("#replay-title")).to_have_text(f"Replay of Osmosis draw one, deal {number}")
    expect(page.locator("#replay-board .foundation .card")).to_have_count(1)
    expect(page.locator("#verdict")).to_contain_text("VALID:")
    screenshot(page, "5-replay-first")
    page.click("#forward")
    expect(position).to_have_text(f"Event 2 of {last}")
    page.click("#back")
    expect(position).to_have_text(f"Event 1 of {last}")
    page.click("#last")
    expect(position).to_have_text(f"Event {last} of {last}")
    screenshot(page, "4-replay-last")


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
    expect(mine.first).to_contain_text("Peek, deal 12: playing")
    page.go_forward()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#table")).to_have_attribute("data-version", "2")

    page.click("header nav a >> text=Tables")
    expect(page.locator("#start")).to_be_visible()
    page.click("#my-games-list li a")
    expect(page.locator("#game-id")).to_have_text(game_id)
    page.click("#resign")
    page.click("#resign-yes")
    expect(page.locator("#status")).to_have_text("You resigned.")  # landed before the player walks away
    page.goto("/#tables")
    expect(mine.first).to_contain_text("Peek, deal 12: resigned")
    expect(page.locator("#my-games-list li a").first).to_have_text("Replay")


@pytest.mark.refused_requests
def test_a_bad_replay_id_is_explained_on_the_start_page(page):
    page.goto("/#replay=00000000-0000-4000-8000-000000000000")
    expect(page.locator("#start-problem")).to_contain_text("no game")
    expect(page.locator("#start")).to_be_visible()


def test_the_replay_steps_by_keys_plays_itself_marks_the_moved_card_and_offers_its_export(page, live_server):
    start_game(page, "osmosis-draw-one", 3)
    for _ in range(3):
        version = version_of(page)
        page.click("#draw")
        wait_for_next_version(page, version)
    page.click("#resign")
    page.click("#resign-yes")
    expect(page.locator("#status")).to_have_text("You resigned.")  # landed: the replay shows the whole game
    page.click("#show-replay")
    expect(page.locator("#replay")).to_be_visible()
    position = page.locator("#position")
    expect(position).to_have_text(re.compile(r"Event 1 of \d+"))  # at the deal
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


def test_a_game_being_played_is_listed_on_the_start_page_and_watched_live(page, live_server):
    game = post(f"{live_server}/games", {"variant": "peek", "deal_number": 77})
    post(f"{live_server}/games/{game['id']}/draw", token=game["player_token"])
    only_dealt = post(f"{live_server}/games", {"variant": "peek", "deal_number": 78})  # as a first visit deals one
    page.goto("/#tables")
    listed = page.locator("#in-progress-list li", has_text="Peek, deal 77: 1 of 52 home, 2 events ")
    expect(listed.first).to_be_visible()
    expect(page.locator(f"#in-progress-list a[href='#watch={only_dealt['id']}']")).to_have_count(0)
    screenshot(page, "0-start")

    listed.locator(f"a[href='#watch={game['id']}']").click()

    expect(page.locator("#replay-game-id")).to_have_text(game["id"])
    expect(page.locator("#follow")).to_be_checked()
    expect(page.locator("#position")).to_have_text("Event 2 of 2")  # followed live: at its latest position
    page.wait_for_timeout(500)
    post(f"{live_server}/games/{game['id']}/draw", token=game["player_token"])
    expect(page.locator("#position")).to_have_text("Event 3 of 3", timeout=10000)
    expect(page.locator("#event-text")).to_contain_text("Drew ")


def test_the_replay_shows_where_the_game_is_in_the_public_log_proven_in_the_browser(page, live_server):
    game = post(f"{live_server}/games", {"variant": "osmosis", "deal_number": 5})
    post(f"{live_server}/games/{game['id']}/resign", token=game["player_token"])
    page.goto(f"/#replay={game['id']}")
    logged = page.locator("#logged")
    expect(logged).to_contain_text("every inclusion proof checked in this browser", timeout=15000)
    expect(logged).not_to_contain_text("Pending")
    proofs = get(f"{live_server}/games/{game['id']}/transparency")
    created, ended = (leaf["index"] for leaf in proofs["leaves"])
    assert logged.inner_text().startswith(
        f"In the public log at indexes {created} (created), {ended} (ended), checkpoint of size "
    )
    assert "won" in logged.get_attribute("class")
    expect(page.locator("#verdict")).to_contain_text("VALID:")
    screenshot(page, "7-replay-in-the-public-log")


@pytest.mark.parametrize(
    ("tamper", "named"),
    [
        ("proof", "does not lead to the root"),
        ("entry", "does not hash to its leaf hash"),
        ("game", "is another game's"),
    ],
)
def test_a_proof_that_does_not_hold_is_shown_invalid(page, live_server, tamper, named):
    game = post(f"{live_server}/games", {"variant": "osmosis", "deal_number": 6})
    other = post(f"{live_server}/games", {"variant": "osmosis", "deal_number": 7})

    def lie(route):
        proofs = get(f"{live_server}/games/{game['id']}/transparency")
        leaf = proofs["leaves"][0]
        if tamper == "proof":
            leaf["inclusion_proof"][0] = "A" * 43 + "="
        elif tamper == "entry":
            leaf["entry"] = leaf["entry"].replace('"variant":"osmosis"', '"variant":"peek"')
        else:
            leaf["entry"] = leaf["entry"].replace(game["id"], other["id"])
        route.fulfill(status=200, content_type="application/json", body=json.dumps(proofs))

    for _ in range(30):  # until the sequencer has logged the game's creation
        if get(f"{live_server}/games/{game['id']}/transparency")["leaves"]:
            break
        page.wait_for_timeout(500)
    page.route(f"**/games/{game['id']}/transparency", lie)
    page.goto(f"/#replay={game['id']}")
    expect(page.locator("#logged")).to_contain_text(": INVALID, ", timeout=15000)
    expect(page.locator("#logged")).to_contain_text(named)
    assert "error" in page.locator("#logged").get_attribute("class")


def test_the_replay_of_an_unwinnable_deal_says_so_once(page, live_server):
    game = post(f"{live_server}/games", {"variant": "osmosis", "deal_number": 5})
    post(f"{live_server}/games/{game['id']}/resign", token=game["player_token"])
    page.goto(f"/#replay={game['id']}")
    expect(page.locator("#analysis")).to_have_text("Solver: the deal could not be won: every position was searched.")
