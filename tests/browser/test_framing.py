"""The table cannot be framed by another site (it keeps the player's API token in localStorage: a framed page could be
clicked through), and it plays under its Content-Security-Policy (every other browser test fails on any console
error, a refused script or style among them)."""

from tests.browser.table import post, sit_at


def test_another_site_cannot_frame_the_table(browser, live_server):
    context = browser.new_context()
    attacker = context.new_page()
    refusals = []
    attacker.on("console", lambda message: refusals.append(message.text))
    attacker.set_content(f'<iframe id="victim" src="{live_server}/" width="800" height="600"></iframe>')
    attacker.wait_for_timeout(1500)
    try:
        served = [frame for frame in attacker.frames if frame.url.startswith(live_server)]
        assert not served or served[0].locator("#board, main, header").count() == 0, "the table rendered in a frame"
        assert any("frame-ancestors" in text or "X-Frame-Options" in text for text in refusals), refusals
    finally:
        context.close()


def test_the_table_plays_under_its_policy(page, live_server):
    game = post(f"{live_server}/games", {"variant": "osmosis", "deal_number": 3})
    sit_at(page, game["id"], game["player_token"])
    page.keyboard.press("d")
    page.wait_for_timeout(500)
    policy = page.evaluate("() => fetch('/').then((answer) => answer.headers.get('Content-Security-Policy'))")
    assert "frame-ancestors 'none'" in policy
