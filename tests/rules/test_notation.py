import pytest

from server.rules import (
    InvalidInput,
    deal_number_seed,
    from_text,
    layout,
    opening,
    preset,
    public_text,
    shuffled_deck,
    to_text,
)


def test_a_position_reads_back_from_its_text():
    state = opening(preset("osmosis-ablage"), layout(shuffled_deck(deal_number_seed(8)), preset("osmosis-ablage")))

    assert from_text(to_text(state)) == state


def test_the_public_text_hides_face_down_cards_and_the_stocks_order():
    state = opening(preset("osmosis"), layout(shuffled_deck(deal_number_seed(0)), preset("osmosis")))

    text = public_text(state)

    assert "R1 ## ## ## 8S" in text.splitlines()
    assert "stock 35 cards" in text.splitlines()
    for hidden in [*state.stock, *(card for pile in state.reserves for card in pile[:3])]:
        assert str(hidden) not in text


def test_the_waste_marks_the_cards_of_the_latest_deal_still_on_it():
    state = from_text("rules osmosis-strict-waste; F1 6H; R1 2C; R2 3C; R3 4C; R4 5C; waste 2D 3D | 4D 5D; stock ...")

    assert state.live_waste == 2
    assert "waste 2D 3D | 4D 5D" in to_text(state).splitlines()


def test_semicolons_separate_items_as_well_as_newlines():
    one_line = from_text("rules peek; R1 2C; R2 3C; R3 4C; R4 5C; F1 6H; stock ...")
    lines = from_text("""
        rules peek
        R1 2C
        R2 3C
        R3 4C
        R4 5C
        F1 6H
        stock ...
    """)

    assert one_line == lines


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("F1 6H; stock AS", "must hold all 52 cards"),
        ("F1 6H; R1 6H; stock ...", "lists 6H more than once"),
        ("F1 6H; F2 6S 7D; stock ...", "F2 mixes suits"),
        ("F1 6H; F3 6S; stock ...", "F3 is started but F2 is not"),
        ("F1 -; stock ...", "F1 holds the base card"),
        ("F1 6H; cell QS; stock ...", "the rules have no free cell"),
        ("F1 6H; pass two; stock ...", "a pass is written like"),
        ("rules osmosis-three-passes; F1 6H; pass 4; stock ...", "pass 4 is outside"),
        ("F1 6H; colour red; stock ...", "unknown item"),
        ("F1 6H; stock ...; waste ...", "may stand only once"),
        ("rules bridesmaids; R1 2C; F1 6H; stock ...", "unknown item\\(s\\) in position text: R1"),
    ],
)
def test_a_malformed_position_is_invalid_input(text, message):
    with pytest.raises(InvalidInput, match=message):
        from_text(text)


def test_a_finished_position_states_its_outcome_and_it_is_checked():
    resigned = from_text("F1 6H; R1 2C; R2 3C; R3 4C; R4 5C; stock ...; outcome resigned: the player resigned")

    assert resigned.status == "resigned"
    with pytest.raises(InvalidInput, match="says 'outcome won: x' but the game is playing"):
        from_text("F1 6H; R1 2C; R2 3C; R3 4C; R4 5C; stock ...; outcome won: x")
