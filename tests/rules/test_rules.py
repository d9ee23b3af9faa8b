"""One test per rule sentence of rules.md: a position in notation, an action, the result in notation."""

import pytest

from server.rules import (
    Card,
    Deal,
    GameOver,
    IllegalAction,
    InvalidInput,
    Move,
    Place,
    Redeal,
    Resign,
    apply,
    deal_number_seed,
    foundation_for,
    from_text,
    layout,
    legal_actions,
    numbered_opening,
    opening,
    parse_action,
    preset,
    public_view,
    shuffled_deck,
    to_text,
)


def act(state, text):
    return apply(state, parse_action(text))


def moves_of(state):
    return {str(action) for action in legal_actions(state)}


# --- Layout ---------------------------------------------------------------------------------------


def test_osmosis_deals_four_piles_of_four_with_three_face_down_and_the_top_face_up():
    state = opening(preset("osmosis"), layout(shuffled_deck(deal_number_seed(0)), preset("osmosis")))

    view = public_view(state)

    assert view["reserves"] == [
        {"face_down": 3, "face_up": ["8S"]},
        {"face_down": 3, "face_up": ["7C"]},
        {"face_down": 3, "face_up": ["QD"]},
        {"face_down": 3, "face_up": ["TD"]},
    ]


def test_peek_deals_all_four_reserve_cards_face_up():
    state = opening(preset("peek"), layout(shuffled_deck(deal_number_seed(0)), preset("peek")))

    assert [pile["face_down"] for pile in public_view(state)["reserves"]] == [0, 0, 0, 0]
    assert public_view(state)["reserves"][0]["face_up"] == ["2D", "JD", "KC", "8S"]


def test_the_seventeenth_card_goes_to_f1_and_fixes_its_suit_and_the_base_rank():
    state = opening(preset("osmosis"), layout(shuffled_deck(deal_number_seed(0)), preset("osmosis")))

    view = public_view(state)

    assert view["foundations"][0] == {"suit": "H", "cards": ["6H"]}
    assert view["base_rank"] == "6"
    assert [f["cards"] for f in view["foundations"][1:]] == [[], [], []]


def test_the_other_35_cards_form_the_stock_face_down_and_the_waste_starts_empty():
    state = opening(preset("osmosis"), layout(shuffled_deck(deal_number_seed(0)), preset("osmosis")))

    view = public_view(state)

    assert view["stock_count"] == 35
    assert view["waste"] == []
    assert "stock" not in view


def test_bridesmaids_has_no_reserves_the_first_card_is_the_base_and_the_stock_has_51():
    rules = preset("bridesmaids")
    deck = shuffled_deck(deal_number_seed(0))

    state = opening(rules, layout(deck, rules))

    assert state.reserves == ()
    assert state.foundations[0] == (deck[0],)
    assert state.stock == deck[1:]
    assert len(state.stock) == 51


def test_the_free_cell_starts_empty():
    rules = preset("osmosis-ablage")

    state = numbered_opening(rules, 3)

    assert state.cell is None
    assert public_view(state)["cell"] is None


# --- Play: where a card may come from -------------------------------------------------------------


PEEK = """
    rules peek
    R1 2C 3C 4C 7S
    R2 5D
    R3 -
    R4 KH
    F1 6H 7H
    F2 6D
    F3 6S
    F4 -
    waste 9H 8H
    stock ...
"""


def test_a_reserve_top_can_be_played():
    state = from_text(PEEK.replace("F1 6H 7H", "F1 6H 7H 4H").replace("R1 2C 3C 4C 7S", "R1 2C 3C 7S 4C"))

    after = act(state, "R4:KH>F1")

    assert after.foundations[0][-1] == Card.parse("KH")
    assert after.reserves[3] == ()


def test_a_reserve_card_under_the_top_cannot_be_played_even_face_up():
    state = from_text(PEEK)

    with pytest.raises(IllegalAction, match="4C is not the top of R1 \\(the top is 7S\\)"):
        act(state, "4C")


def test_a_face_down_card_cannot_be_played_and_the_error_does_not_say_where_it_is():
    state = from_text(PEEK.replace("rules peek", "rules osmosis"))

    with pytest.raises(IllegalAction) as raised:
        act(state, "4C")

    assert raised.value.rule == "not-available"
    assert "R1" not in str(raised.value)
    assert str(raised.value) == act_error_for_stock_card(state)


def act_error_for_stock_card(state):
    stock_card = state.stock[5]
    try:
        apply(state, Move(stock_card))
    except IllegalAction as error:
        return str(error).replace(str(stock_card), "4C")
    raise AssertionError("a stock card was playable")


def test_the_waste_top_can_be_played():
    state = from_text(PEEK)

    after = act(state, "waste:8H>F1")

    assert after.waste == (Card.parse("9H"),)


def test_a_waste_card_under_the_top_cannot_be_played():
    state = from_text(PEEK)

    with pytest.raises(IllegalAction, match="9H is not the top of the waste \\(the top is 8H\\)"):
        act(state, "9H")


def test_a_card_on_a_foundation_cannot_move_again():
    state = from_text(PEEK)

    with pytest.raises(IllegalAction, match="7H is already on F1"):
        act(state, "7H")


def test_a_stated_source_that_is_not_where_the_card_is_is_an_error():
    state = from_text(PEEK)

    with pytest.raises(IllegalAction, match="8H is at waste, not R2"):
        act(state, "R2:8H>F1")


# --- Play: which foundation accepts a card ---------------------------------------------------------


def test_f1_accepts_any_card_of_its_suit_whatever_the_rank():
    state = from_text(PEEK.replace("R4 KH", "R4 2H"))

    after = act(state, "2H>F1")

    assert to_text(after).splitlines()[5] == "F1 6H 7H 2H"


def test_f1_refuses_a_card_of_another_suit():
    state = from_text(PEEK.replace("F3 6S", "F3 -").replace("R4 KH", "R4 KH 6S"))

    with pytest.raises(IllegalAction, match="7S cannot go to F1: F1 takes hearts"):
        act(state, "7S>F1")


def test_a_started_foundation_accepts_its_suit_when_the_rank_is_in_the_foundation_above():
    state = from_text(PEEK.replace("F2 6D", "F2 6D 7D"))

    after = act(state, "7S")

    assert after.foundations[2] == (Card.parse("6S"), Card.parse("7S"))


def test_the_osmosis_rule_refuses_a_rank_missing_from_the_foundation_above():
    state = from_text(PEEK)

    with pytest.raises(IllegalAction, match="^7S cannot go to F3: no 7 in F2$") as raised:
        act(state, "7S>F3")

    assert raised.value.rule == "osmosis"


def test_without_a_stated_foundation_the_refusal_names_the_suits_foundation():
    state = from_text(PEEK)

    with pytest.raises(IllegalAction, match="^7S cannot go to F3: no 7 in F2$"):
        act(state, "7S")


def test_a_started_foundation_refuses_another_suit():
    state = from_text(PEEK.replace("F2 6D", "F2 6D 7D"))

    with pytest.raises(IllegalAction, match="7S cannot go to F2: F2 takes diamonds"):
        act(state, "7S>F2")


def test_an_empty_foundation_starts_with_the_base_rank_once_the_one_above_is_started():
    state = from_text(PEEK.replace("F4 -", "F4 -").replace("R2 5D", "R2 5D 6C"))

    after = act(state, "6C")

    assert after.foundations[3] == (Card.parse("6C"),)


def test_an_empty_foundation_refuses_a_card_not_of_the_base_rank():
    state = from_text(PEEK.replace("R2 5D", "R2 6C 5C"))

    with pytest.raises(IllegalAction, match="5C cannot start F4: an empty foundation starts with the base rank, 6"):
        act(state, "5C")


def test_foundations_start_strictly_top_to_bottom():
    state = from_text(PEEK.replace("F3 6S", "F3 -").replace("R2 5D", "R2 5D 6C"))

    with pytest.raises(IllegalAction, match="6C cannot start F4: F3 is not started yet") as raised:
        act(state, "6C>F4")

    assert raised.value.rule == "start-order"
    assert act(state, "6C").foundations[2] == (Card.parse("6C"),)


def test_under_base_rank_a_card_has_at_most_one_legal_foundation():
    state = from_text(PEEK.replace("F3 6S", "F3 -").replace("R2 5D", "R2 5D 6C").replace("R4 KH", "R4 KH 6S"))

    assert moves_of(state) == {"R2:6C>F3", "R4:6S>F3", "waste:8H>F1", "deal"}


def test_the_next_foundation_is_never_started_automatically():
    state = from_text(PEEK.replace("F3 6S", "F3 -").replace("R4 KH", "R4 KH 6S"))

    after = act(state, "deal")

    assert after.foundations[2] == ()
    assert "R4:6S>F3" in moves_of(after)


RANK_ABOVE = """
    rules peek-till-dawn
    R1 2C 3C 4C 7S
    R2 3D 9C
    R3 -
    R4 KH
    F1 6H 7H 9H
    F2 -
    F3 -
    F4 -
    stock ...
"""


def test_rank_above_starts_an_empty_foundation_with_an_unused_suit_whose_rank_is_above():
    state = from_text(RANK_ABOVE)

    after = act(state, "7S")

    assert after.foundations[1] == (Card.parse("7S"),)
    assert moves_of(state) == {"R1:7S>F2", "R2:9C>F2", "R4:KH>F1", "deal"}


def test_rank_above_refuses_a_rank_missing_from_the_foundation_above():
    state = from_text(RANK_ABOVE.replace("R4 KH", "R4 8D"))

    with pytest.raises(IllegalAction, match="8D cannot start F2: no 8 in F1"):
        act(state, "8D")


def test_rank_above_refuses_a_suit_already_in_use():
    state = from_text(RANK_ABOVE.replace("F2 -", "F2 7S").replace("R1 2C 3C 4C 7S", "R1 2C 3C 4C 9S"))

    with pytest.raises(IllegalAction, match="^9S cannot start F3: spades already go to F2$") as raised:
        act(state, "9S>F3")
    assert raised.value.rule == "suit"
    assert act(state, "9S").foundations[1] == (Card.parse("7S"), Card.parse("9S"))


# --- Deal and redeal ------------------------------------------------------------------------------


def test_a_deal_moves_draw_cards_one_by_one_from_the_stock_onto_the_waste():
    state = from_text(PEEK.replace("waste 9H 8H", "waste -").replace("stock ...", "stock AS 5H TH QC ..."))

    after = act(state, "deal")

    assert [str(card) for card in after.waste] == ["AS", "5H", "TH"]
    assert str(after.stock[0]) == "QC"
    assert public_view(after)["waste"][-1] == "TH"


def test_draw_one_deals_a_single_card():
    state = from_text("rules osmosis-draw-one; F1 6H; stock AS 5H ...")

    after = act(state, "deal")

    assert [str(card) for card in after.waste] == ["AS"]


def test_a_deal_moves_fewer_cards_when_the_stock_runs_short():
    state = from_text("rules osmosis; R1 2C 3C 4C 7S; R2 5D; R3 8C; R4 KS; F1 6H; stock QC KC; waste ...")

    after = act(state, "deal")

    assert after.stock == ()
    assert [str(card) for card in after.waste[-2:]] == ["QC", "KC"]
    assert after.live_waste == 2


def test_deal_is_refused_when_the_stock_is_empty():
    state = from_text(PEEK.replace("stock ...", "stock -").replace("waste 9H 8H", "waste 9H 8H ..."))

    with pytest.raises(IllegalAction, match="the stock is empty: redeal"):
        act(state, "deal")


def test_a_redeal_turns_the_waste_over_in_order_and_starts_a_new_pass():
    state = from_text(
        "rules osmosis; R1 2C 3C 4C 7S; R2 5D; R3 8C; R4 KS; F1 6H; stock -; pass 1 played;waste AS 5H TH ..."
    )

    after = act(state, "redeal")

    assert [str(card) for card in after.stock[:3]] == ["AS", "5H", "TH"]
    assert after.stock == state.waste
    assert after.waste == ()
    assert after.pass_number == 2
    assert after.played_this_pass is False


def test_redeal_is_refused_while_the_stock_has_cards():
    state = from_text(PEEK)

    with pytest.raises(IllegalAction, match="cannot redeal: the stock still holds"):
        act(state, "redeal")


THREE_PASSES = "rules osmosis-three-passes; R1 2C 3C 4C 7S; R2 5D; R3 8C; R4 KS 7H; F1 6H; stock -; waste AS ...; "


def test_max_passes_three_allows_a_redeal_into_the_third_pass():
    state = from_text(THREE_PASSES + "pass 2 played")

    after = act(state, "redeal")

    assert after.pass_number == 3
    assert public_view(after)["passes_left"] == 0


def test_max_passes_three_allows_no_redeal_after_the_third_pass():
    state = from_text(THREE_PASSES + "pass 3 played")

    with pytest.raises(IllegalAction, match="^cannot redeal: pass 3 was the last of 3$") as raised:
        act(state, "redeal")

    assert raised.value.rule == "no-passes-left"
    assert moves_of(state) == {"R4:7H>F1"}


def test_max_passes_one_allows_no_redeal_at_all():
    state = from_text(THREE_PASSES.replace("osmosis-three-passes", "draw=1 max_passes=1") + "pass 1 played")

    assert "redeal" not in moves_of(state)


def test_unlimited_passes_always_allow_a_redeal_after_a_pass_with_a_play():
    state = from_text(
        "rules osmosis; R1 2C 3C 4C 7S; R2 5D; R3 8C; R4 KS; F1 6H; stock -; waste AS ...; pass 500 played"
    )

    assert moves_of(state) == {"redeal"}
    assert public_view(state)["passes_left"] is None


# --- Reserves and foundations ---------------------------------------------------------------------


def test_an_exposed_face_down_card_turns_face_up_at_once():
    state = from_text("rules osmosis; R1 2C 3C 4C 7H; R2 5D 9D; R3 8C; R4 KS; F1 6H; stock ...")

    after = act(state, "7H")

    assert public_view(after)["reserves"][0] == {"face_down": 2, "face_up": ["4C"]}


def test_an_empty_reserve_pile_stays_empty():
    state = from_text("rules osmosis; R1 7H; R2 5D 9D; R3 8C; R4 KS; F1 6H; stock ...")

    after = act(state, "7H")

    assert after.reserves[0] == ()
    assert public_view(after)["reserves"][0] == {"face_down": 0, "face_up": []}


def test_nothing_is_built_on_a_reserve_pile():
    with pytest.raises(InvalidInput, match="a card moves to a foundation or the cell, not to R1"):
        parse_action("7H>R1")


def test_cards_never_leave_a_foundation():
    with pytest.raises(InvalidInput, match="a card moves from a reserve, the waste or the cell, not from F1"):
        parse_action("F1:7H>F2")


# --- Waste access ---------------------------------------------------------------------------------


TOP_WASTE = """
    rules {rules}
    R1 2C 3C 4C 7S
    R2 5D
    R3 8C
    R4 KS
    F1 6H
    waste 4H 2H | 5H 9H TH
    stock ...
"""


def test_top_waste_access_makes_the_next_card_playable_whatever_deal_it_came_with():
    state = from_text(TOP_WASTE.format(rules="osmosis"))

    after = act(act(act(act(state, "TH"), "9H"), "5H"), "2H")

    assert [str(card) for card in after.foundations[0]] == ["6H", "TH", "9H", "5H", "2H"]
    assert "waste:4H>F1" in moves_of(after)


def test_group_waste_access_plays_the_latest_deal_top_to_bottom_then_the_rest_is_dead():
    state = from_text(TOP_WASTE.format(rules="osmosis-strict-waste"))

    after = act(act(act(state, "TH"), "9H"), "5H")

    assert after.live_waste == 0
    with pytest.raises(IllegalAction, match="2H cannot move: under the group waste rule") as raised:
        act(after, "2H")
    assert raised.value.rule == "group-waste"


def test_group_waste_access_kills_the_earlier_cards_once_another_deal_is_made():
    state = from_text(TOP_WASTE.format(rules="osmosis-strict-waste").replace("stock ...", "stock QC KC AC ..."))

    after = act(state, "deal")

    assert [str(card) for card in after.waste[-3:]] == ["QC", "KC", "AC"]
    assert after.live_waste == 3
    after = act(after, "deal")
    assert after.live_waste == 3
    assert "TH" not in {str(action.card) for action in legal_actions(after) if isinstance(action, Move)}


def test_group_waste_cards_come_alive_again_after_a_redeal():
    state = from_text(
        "rules osmosis-strict-waste; R1 2C 3C 4C 7S; R2 5D; R3 8C; R4 KS; F1 6H; stock -; "
        "waste 2D 3S 9H ... | QS; pass 1 played"
    )

    after = act(act(state, "redeal"), "deal")

    assert [str(card) for card in after.waste] == ["2D", "3S", "9H"]
    assert after.live_waste == 3
    assert "waste:9H>F1" in moves_of(after)


# --- The free cell --------------------------------------------------------------------------------


CELL = """
    rules osmosis-ablage
    R1 2C 3C 4C 7S
    R2 5D
    R3 8C
    R4 KS
    F1 6H
    waste 4H 2H 9S
    cell {cell}
    stock ...
"""


def test_a_reserve_top_can_move_to_the_empty_cell():
    state = from_text(CELL.format(cell="-"))

    after = act(state, "7S>cell")

    assert after.cell == Card.parse("7S")
    assert public_view(after)["reserves"][0]["face_up"][-1] == "4C"


def test_the_waste_top_can_move_to_the_empty_cell():
    state = from_text(CELL.format(cell="-"))

    after = act(state, "waste:9S>cell")

    assert after.cell == Card.parse("9S")
    assert str(after.waste[-1]) == "2H"


def test_the_cell_holds_one_card():
    state = from_text(CELL.format(cell="QD"))

    with pytest.raises(IllegalAction, match="7S cannot go to the cell: it already holds QD") as raised:
        act(state, "7S>cell")

    assert raised.value.rule == "cell-occupied"


def test_a_card_leaves_the_cell_only_to_a_foundation():
    state = from_text(CELL.format(cell="QH"))

    assert {action for action in moves_of(state) if "QH" in action} == {"cell:QH>F1"}
    assert act(state, "QH").cell is None


def test_rules_without_a_cell_refuse_a_move_to_the_cell():
    state = from_text(PEEK)

    with pytest.raises(IllegalAction, match="these rules have no free cell"):
        act(state, "7S>cell")


# --- The end of the game --------------------------------------------------------------------------


def test_the_game_is_won_when_all_52_cards_are_on_the_foundations():
    state = from_text(
        "rules bridesmaids; F1 AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH; F2 AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS;"
        "F3 AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD; F4 AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC; waste KC"
    )

    after = act(state, "KC")

    assert after.status == "won"
    assert legal_actions(after) == ()


def test_the_game_is_lost_when_no_action_at_all_is_legal():
    state = from_text(
        "rules osmosis-three-passes; R1 2C 3C 4C 7S; R2 5D; R3 8C; R4 KS; F1 6H; stock QC; waste ...; pass 3 played"
    )

    after = act(state, "deal")

    assert after.status == "lost"
    assert after.outcome.reason == "no action is legal"


def test_the_game_is_lost_when_a_whole_pass_brought_no_play_and_none_is_legal():
    state = from_text("rules osmosis; R1 2C 3C 4C 7S; R2 5D; R3 8C; R4 KS; F1 6H; stock QC; waste ...; pass 4")

    after = act(state, "deal")

    assert after.status == "lost"
    assert after.outcome.reason.startswith("the stock is empty, no card was played since the pass began")


def test_a_pass_with_a_play_is_followed_by_a_redeal_not_a_loss():
    state = from_text("rules osmosis; R1 2C 3C 4C 7S; R2 5D; R3 8C; R4 KS; F1 6H; stock QC; waste ...; pass 4 played")

    after = act(state, "deal")

    assert after.status == "playing"
    assert moves_of(after) == {"redeal"}


def test_a_fruitless_pass_is_not_lost_while_a_move_to_the_empty_cell_is_legal():
    state = from_text("rules osmosis-ablage; R1 2C 3C 4C 7S; R2 5D; R3 8C; R4 KS; F1 6H; stock QC; waste ...; pass 2")

    after = act(state, "deal")

    assert after.status == "playing"
    assert "R1:7S>cell" in moves_of(after)


def test_the_player_may_resign_at_any_time():
    state = from_text(PEEK)

    after = apply(state, Resign())

    assert after.status == "resigned"


def test_a_finished_game_accepts_no_further_action():
    state = apply(from_text(PEEK), Resign())

    for action in (Deal(), Redeal(), Resign(), parse_action("7S")):
        with pytest.raises(GameOver, match="the game is over \\(resigned\\)"):
            apply(state, action)


# --- Malformed input is not an illegal action -----------------------------------------------------


@pytest.mark.parametrize("text", ["QX", "1H", "", "R9:7S", "7S>F5", "AS>waste"])
def test_malformed_actions_raise_invalid_input_not_illegal_action(text):
    with pytest.raises(InvalidInput):
        parse_action(text)


def test_ten_may_be_written_10_on_input():
    assert parse_action("10H>F1") == Move(Card.parse("TH"), None, Place.F1)
    assert str(Card.parse("10h")) == "TH"


def test_foundation_for_names_the_only_foundation_a_card_may_go_to():
    state = from_text(PEEK.replace("F2 6D", "F2 6D 7D"))

    assert foundation_for(state, Card.parse("7S")) == 2
    assert foundation_for(state, Card.parse("8S")) is None
