"""The table drawn from the public view: every card a player sees, in its place; nothing else; lit cards
numbered in the table's order; the same table in plain ASCII."""

from server.rules import (
    action_from_dict,
    action_to_dict,
    apply,
    legal_actions,
    numbered_opening,
    preset,
    public_view,
)
from server.terminal.table import Faces, draw_table, lit_cards, stock_action
from server.terminal.watching import steps_of
from server.terminal.words import event_text, headline, hint_text

GLYPHS, PLAIN = Faces(), Faces(ascii=True)


def position(variant, number, moves=0):
    rules = preset(variant)
    state = numbered_opening(rules, number)
    for _ in range(moves):
        state = apply(state, legal_actions(state)[-1])
    return rules, state, public_view(state)


def listed(state):
    return [action_to_dict(action) for action in legal_actions(state)]


def test_every_seen_card_is_on_the_table_and_no_hidden_one():
    for variant in ("osmosis", "peek", "bridesmaids", "osmosis-ablage"):
        for number in range(20):
            rules, state, view = position(variant, number, moves=number % 7)
            text = draw_table(view, rules.free_cells, lit_cards(listed(state)), PLAIN).plain
            seen = [code for pile in view["reserves"] for code in pile["face_up"]] + view["waste"][-8:]
            for code in seen:
                assert code in text, (variant, number, code)
            rows = text.splitlines()
            for k, foundation in enumerate(view["foundations"]):  # its suit once, then its ranks in their columns
                row = rows[1 + k][rows[1 + k].index(f"F{k + 1} ") :]
                assert row.split()[1:] == [
                    foundation["suit"] or ".",
                    *sorted((code[0] for code in foundation["cards"]), key=rows[0].split().index),
                ]
            hidden = [card.code for card in state.stock] + [
                card.code for p, pile in enumerate(state.reserves) for card in pile[: state.face_down(p)]
            ]
            for code in hidden:
                assert code not in text, (variant, number, code)
            assert text.count("##") == sum(pile["face_down"] for pile in view["reserves"]) + (view["stock_count"] > 0)


def test_lit_cards_are_numbered_reserves_first_then_waste_then_cell():
    lit = lit_cards(
        [
            {"kind": "move", "card": "QH", "from": "waste", "to": "F2"},
            {"kind": "deal"},
            {"kind": "move", "card": "7S", "from": "R3", "to": "F1"},
            {"kind": "move", "card": "7S", "from": "R3", "to": "cell"},
            {"kind": "move", "card": "2C", "from": "cell", "to": "F4"},
            {"kind": "move", "card": "9D", "from": "R1", "to": "cell"},
        ]
    )
    assert [(item.number, item.card, item.source, len(item.moves)) for item in lit] == [
        (1, "9D", "R1", 1),
        (2, "7S", "R3", 2),
        (3, "QH", "waste", 1),
        (4, "2C", "cell", 1),
    ]
    assert stock_action([{"kind": "redeal"}]) == {"kind": "redeal"}
    assert stock_action([{"kind": "move", "card": "QH", "from": "waste", "to": "F2"}]) is None


def test_a_lit_card_shows_its_number_and_the_foundations_stand_in_rank_columns():
    _rules, state, view = position("osmosis", 11)
    lit = lit_cards(listed(state))
    lines = draw_table(view, 0, lit, PLAIN).plain.splitlines()
    assert lines[0].split() == ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"]  # base rank 2
    assert "1:9D" in lines[1] and "2:2S" in lines[2] and "3H" in lines[3] and ":3H" not in lines[3]
    state = apply(state, action_from_dict(lit[0].moves[0]))
    lines = draw_table(public_view(state), 0, [], PLAIN).plain.splitlines()
    for rank in ("2", "9"):  # F1 holds 2D and 9D: each under its rank
        column = lines[0].index(f" {rank} ") + 1
        assert lines[1][column] == rank
    assert "F1 D" in lines[1]


def test_glyphs_colour_red_suits_and_ascii_has_no_style_or_glyph():
    _rules, state, view = position("osmosis", 11)
    fancy = draw_table(view, 0, lit_cards(listed(state)), GLYPHS)
    plain = draw_table(view, 0, lit_cards(listed(state)), PLAIN)
    assert "9♦" in fancy.plain and "♥" in fancy.plain
    red = [fancy.plain[span.start : span.end] for span in fancy.spans if "red" in str(span.style)]
    assert "9♦" in red and not any("♠" in text or "♣" in text for text in red)
    assert plain.plain.isascii() and not plain.spans
    assert "10" in GLYPHS.card("TH").plain and PLAIN.card("TH").plain == "TH"


def test_the_cell_is_drawn_only_when_the_rules_have_one():
    _rules, _state, view = position("osmosis-ablage", 3)
    assert "Cell" in draw_table(view, 1, [], PLAIN).plain
    assert "Cell" not in draw_table(view, 0, [], PLAIN).plain


def test_events_group_into_the_steps_of_the_actions_that_made_them():
    kinds = ["game_created", "cards_dealt", "card_played", "game_won", "seeds_revealed"]
    steps = steps_of([{"seq": i, "kind": kind, "data": {}} for i, kind in enumerate(kinds, start=1)])
    assert [[event["seq"] for event in step] for step in steps] == [[1], [2], [3, 4, 5]]
    resigned = steps_of(
        [{"seq": 1, "kind": "game_created"}, {"seq": 2, "kind": "game_resigned"}, {"seq": 3, "kind": "seeds_revealed"}]
    )
    assert [len(step) for step in resigned] == [1, 2]


def test_words_for_events_hints_and_the_headline():
    assert (
        event_text({"kind": "card_played", "data": {"card": "7S", "from": "R1", "to": "F2", "uncovered": "KD"}})
        == "7S from R1 to F2, uncovering KD"
    )
    assert event_text({"kind": "cards_dealt", "data": {"cards": ["AS", "2D", "TH"]}}) == "dealt AS 2D TH"
    assert (
        event_text({"kind": "game_lost", "data": {"reason": "no action is legal", "score": 3}})
        == "lost: no action is legal"
    )
    timed_out = {"kind": "game_timed_out", "data": {"reason": "the clock ran out", "score": 9, "elapsed_ms": 60_000}}
    assert event_text(timed_out) == "out of time, with 9 of 52 home"
    hint = {
        "action": {"kind": "deal"},
        "basis": "estimate",
        "verdict": None,
        "unseen": 44,
        "estimates": [{"action": {"kind": "deal"}, "wins": 19, "unknown": 7, "samples": 64}],
    }
    assert hint_text(hint) == "Hint: deal from the stock, won 19 of 64 guesses at the 44 unseen cards"
    exact = {
        "action": {"kind": "move", "card": "KS", "from": "R4", "to": "F2"},
        "basis": "exact",
        "verdict": "winnable",
        "estimates": [],
    }
    assert hint_text(exact) == "Hint: KS from R4 to F2 (exact: it wins)"
    _rules, _state, view = position("osmosis", 11)
    game = {"variant": "osmosis", "deal": {"kind": "number", "deal_number": 11}, "state": view}
    assert headline(game) == "osmosis | deal 11 | base 2 | pass 1, unlimited passes | 1/52 home"


def test_under_the_strict_waste_rule_the_cards_of_earlier_deals_are_dimmed():
    view = {
        "reserves": [],
        "foundations": [{"suit": None, "cards": []}] * 4,
        "base_rank": "5",
        "stock_count": 40,
        "waste": ["AS", "2S", "3S", "4S", "5S", "6S"],
        "live_waste": 2,
        "cell": None,
    }
    strict = draw_table(view, 0, [], GLYPHS, group_waste=True)
    dimmed = {strict.plain[span.start : span.end].strip() for span in strict.spans if "dim" in str(span.style)}
    assert {"A♠", "2♠", "3♠", "4♠"} <= dimmed and not {"5♠", "6♠"} & dimmed
    free = draw_table(view, 0, [], GLYPHS)
    assert not any("♠" in free.plain[span.start : span.end] for span in free.spans if "dim" in str(span.style))
