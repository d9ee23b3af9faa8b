"""The four-colour deck: clubs green and diamonds blue when chosen, remembered across reloads with the other
settings, and legible on the card's face in the light theme and the dark one."""

import re

import pytest
from playwright.sync_api import expect

from server.rules import public_view
from tests.browser.table import close_settings, dealt, open_settings, screenshot, start_game
from tests.browser.test_playing_by_hand import wait_until_settled


def a_deal_showing_every_suit():
    for number in range(200):
        view = public_view(dealt("osmosis", number))
        shown = [card for pile in view["reserves"] for card in pile["face_up"]] + view["foundations"][0]["cards"]
        if {card[1] for card in shown} == set("SHDC"):
            return number
    raise AssertionError("no deal below 200 shows every suit at its opening")


def colours(page):
    """The colour of one card of each suit on the table (None for a suit the table shows none of), and a card's face."""
    return page.evaluate(
        """() => {
        const colour = (suit) => {
          const card = document.querySelector(`#board .card.suit-${suit}`);
          return card ? getComputedStyle(card).color : null;
        };
        const face = getComputedStyle(document.querySelector("#board .card:not(.back)")).backgroundColor;
        return { S: colour("S"), H: colour("H"), D: colour("D"), C: colour("C"), face };
      }"""
    )


def luminance(css):
    red, green, blue = (int(part) / 255 for part in re.findall(r"\d+", css)[:3])
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one, other):
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_four_colours_are_chosen_remembered_and_legible(page, scheme):
    page.emulate_media(color_scheme=scheme)
    start_game(page, "osmosis", a_deal_showing_every_suit())
    two = colours(page)
    assert None not in two.values(), two
    assert two["S"] == two["C"] and two["H"] == two["D"] and two["S"] != two["H"]

    open_settings(page)
    page.check("#four-colour")
    close_settings(page)
    four = colours(page)
    assert len({four["S"], four["H"], four["D"], four["C"]}) == 4, four
    assert (four["S"], four["H"]) == (two["S"], two["H"])
    for suit in "SHDC":
        assert contrast(four[suit], four["face"]) >= 4.5, (suit, four)
    wait_until_settled(page)  # the deal's cards on their places
    screenshot(page, f"four-colour-{scheme}")

    page.reload()
    expect(page.locator("#four-colour")).to_be_checked()
    expect(page.locator("#board .card:not(.back)").first).to_be_visible()  # the table drawn again
    assert colours(page) == four
    open_settings(page)
    page.uncheck("#four-colour")
    page.reload()
    expect(page.locator("#four-colour")).not_to_be_checked()
    expect(page.locator("#board .card:not(.back)").first).to_be_visible()
    assert colours(page) == two
