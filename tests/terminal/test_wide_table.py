"""At 120x40 the terminal table uses its room: full words, wider columns, a line between rows; the hint wraps
at word boundaries; at 80x24 it stays compact."""

import itertools

from server.terminal.seat import Opening
from server.terminal.words import hint_text

from .pilot import press, run, screen, table, until

WIDE = (120, 40)


def test_at_120_by_40_the_table_grows_and_the_hint_wraps_at_word_boundaries(live_server, tmp_path):
    app = table(live_server, tmp_path, Opening(new_game={"variant": "peek", "deal_number": 11}), plain=True)

    async def scenario(pilot):
        wide = screen(app).splitlines()
        assert any(line.lstrip().startswith("Reserve 1 ") for line in wide), "\n".join(wide)
        assert any("Foundation 1 " in line for line in wide)
        reserve_rows = [n for n, line in enumerate(wide) if line.lstrip().startswith("Reserve ")]
        assert len(reserve_rows) == 4 and all(b - a == 2 for a, b in itertools.pairwise(reserve_rows))
        assert all(len(line) <= WIDE[0] for line in wide)

        await press(pilot, "h")
        await until(pilot, lambda text: "Hint:" in text)

    run(app, scenario, size=WIDE)


def test_at_80_by_24_the_table_stays_compact_and_a_long_hint_wraps_at_word_boundaries(live_server, tmp_path):
    app = table(live_server, tmp_path, Opening(new_game={"variant": "peek", "deal_number": 11}), plain=True)
    hint = {
        "basis": "sampled",
        "action": {"kind": "move", "card": "TD", "from": "waste", "to": "F3"},
        "estimates": [{"wins": 1234, "samples": 5000}],
        "unseen": 47,
    }

    async def scenario(pilot):
        text = screen(app)
        assert " R1  " in text and "Reserve 1" not in text
        assert all(len(line) <= 80 for line in text.splitlines())
        said = hint_text(hint) + "; press 3 to play it, or any other lit card's number"
        assert len(said) > 80
        app.screen.say(said)
        await pilot.pause()
        lines = [line.strip() for line in screen(app).splitlines()]
        first = next(n for n, line in enumerate(lines) if line.startswith("Hint:"))
        shown = lines[first : first + 2]
        assert " ".join(shown) == said, shown  # two lines, broken between two words

    run(app, scenario)
