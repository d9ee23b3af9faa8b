import pytest

from server.rules import (
    DECK,
    PRESETS,
    Card,
    InvalidInput,
    InvalidRules,
    Rank,
    Rules,
    StartRule,
    Suit,
    WasteAccess,
    parse_rules,
    rules_text,
)


def test_card_codes_are_rank_then_suit_in_canonical_form():
    clubs = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC"]

    assert [str(card) for card in DECK[:13]] == clubs
    assert str(Card(Rank.TEN, Suit.HEARTS)) == "TH"


def test_a_cards_index_is_suit_index_times_13_plus_rank_index():
    assert [Card.parse(code).index for code in ("AC", "KC", "AD", "KS")] == [0, 12, 13, 51]
    assert all(card.index == i for i, card in enumerate(DECK))


def test_ten_is_accepted_as_10_and_case_does_not_matter_on_input():
    assert Card.parse("10H") is Card.parse("TH") is Card.parse("th")


def test_the_repr_of_a_card_pastes_back_into_a_test():
    assert repr(Card.parse("QS")) == "Card.parse('QS')"


@pytest.mark.parametrize("text", ["QX", "1H", "11S", "", "KHH", "joker"])
def test_an_unknown_card_is_invalid_input(text):
    with pytest.raises(InvalidInput, match="unknown card"):
        Card.parse(text)


def test_a_card_must_be_written_as_a_string():
    with pytest.raises(InvalidInput):
        Card.parse(12)


def test_the_eight_presets_have_the_parameters_of_rules_md():
    table = {
        "osmosis": (4, 3, 3, None, "top", "base_rank", 0),
        "osmosis-draw-one": (4, 3, 1, None, "top", "base_rank", 0),
        "osmosis-three-passes": (4, 3, 1, 3, "top", "base_rank", 0),
        "osmosis-strict-waste": (4, 3, 3, None, "group", "base_rank", 0),
        "osmosis-ablage": (4, 0, 3, 3, "top", "base_rank", 1),
        "peek": (4, 0, 3, None, "top", "base_rank", 0),
        "peek-till-dawn": (4, 0, 3, None, "top", "rank_above", 0),
        "bridesmaids": (0, 0, 3, None, "top", "base_rank", 0),
    }

    assert {name: tuple(rules.to_dict().values()) for name, rules in PRESETS.items()} == table


def test_any_custom_combination_of_the_seven_parameters_is_accepted():
    rules = Rules.from_mapping(
        {
            "reserve_piles": 0,
            "reserve_face_down": 0,
            "draw": 1,
            "max_passes": 7,
            "waste_access": "group",
            "start_rule": "rank_above",
            "free_cells": 1,
        }
    )

    assert rules.waste_access is WasteAccess.GROUP
    assert rules.start_rule is StartRule.RANK_ABOVE
    assert rules.preset_name is None


def test_custom_rules_equal_to_a_preset_are_that_preset():
    assert Rules.from_mapping({"draw": 1, "max_passes": 3}).preset_name == "osmosis-three-passes"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"draw": 2}, "draw must be 1 or 3, not 2"),
        ({"draw": True}, "draw must be 1 or 3, not True"),
        ({"draw": "3"}, "draw must be 1 or 3, not '3'"),
        ({"reserve_piles": 3}, "reserve_piles must be 0 or 4"),
        ({"reserve_face_down": 2}, "reserve_face_down must be 0 or 3"),
        ({"free_cells": 2}, "free_cells must be 0 or 1"),
        ({"max_passes": 0}, "max_passes must be a whole number >= 1"),
        ({"max_passes": 2.5}, "max_passes must be a whole number >= 1"),
        ({"waste_access": "bottom"}, "waste_access must be one of 'top', 'group', not 'bottom'"),
        ({"start_rule": "any"}, "start_rule must be one of 'base_rank', 'rank_above'"),
        ({"reserve_piles": 0}, "reserve_face_down must be 0 when reserve_piles is 0"),
        ({"jokers": 2}, "unknown rule parameter\\(s\\) jokers"),
    ],
)
def test_a_nonsense_rule_set_is_a_clear_error(values, message):
    with pytest.raises(InvalidRules, match=message):
        Rules.from_mapping(values)


def test_rules_have_a_text_form_that_reads_back():
    custom = Rules(draw=1, max_passes=2, free_cells=1)

    assert rules_text(PRESETS["peek"]) == "peek"
    assert parse_rules(rules_text(custom)) == custom
    assert parse_rules("draw=3 max_passes=unlimited") == PRESETS["osmosis"]
