import json
import subprocess
import sys
from pathlib import Path

import pytest

from server.rules import (
    DECK,
    InvalidInput,
    commitment,
    deal_number_seed,
    layout,
    parse_server_seed,
    preset,
    shuffled_deck,
)

VECTORS = json.loads((Path(__file__).parents[1] / "data" / "deal-vectors.json").read_text())


def vector_id(vector):
    return f"deal-{vector['deal_number']}" if "deal_number" in vector else f"seed-{vector['server_seed'][:8]}"


def test_the_deal_vectors_are_present():
    assert len(VECTORS) >= 4


@pytest.mark.parametrize("vector", VECTORS, ids=vector_id)
def test_the_deal_reproduces_every_vector(vector):
    seed = parse_server_seed(vector["server_seed"])

    deck = shuffled_deck(seed, vector["client_seed"])

    assert [str(card) for card in deck] == vector["deck"]
    assert layout(deck, preset("osmosis")).to_dict() == vector["layout"]
    assert commitment(seed) == vector["commitment"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "deal_number" in v], ids=vector_id)
def test_a_deal_number_gives_the_vectors_server_seed(vector):
    assert deal_number_seed(vector["deal_number"]).hex() == vector["server_seed"]
    assert vector["client_seed"] == ""


def test_bridesmaids_takes_the_first_card_as_base_and_the_rest_as_stock():
    deck = shuffled_deck(deal_number_seed(4711))

    deal = layout(deck, preset("bridesmaids"))

    assert deal.reserves == ()
    assert (deal.base, deal.stock) == (deck[0], deck[1:])


def test_every_deal_is_a_permutation_of_the_52_cards():
    for number in range(200):
        assert sorted(shuffled_deck(deal_number_seed(number)), key=lambda card: card.index) == list(DECK)


def test_the_client_seed_changes_the_deal():
    seed = bytes(range(32))

    assert shuffled_deck(seed, "alice") != shuffled_deck(seed, "bob") != shuffled_deck(seed, "")


def test_the_same_inputs_give_the_same_deal_in_another_process():
    script = (
        "from server.rules import shuffled_deck, deal_number_seed;"
        "print(' '.join(map(str, shuffled_deck(deal_number_seed(99), 'x'))))"
    )
    here = " ".join(map(str, shuffled_deck(deal_number_seed(99), "x")))

    for hash_seed in ("1", "2"):
        output = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": hash_seed, "PATH": ""},
            cwd=Path(__file__).parents[2],
        ).stdout.strip()
        assert output == here


@pytest.mark.parametrize("number", [-1, 2**53, 1.5, True, "7"])
def test_a_deal_number_outside_0_to_2_53_is_invalid(number):
    with pytest.raises(InvalidInput, match="deal number"):
        deal_number_seed(number)


def test_the_largest_deal_number_is_accepted():
    assert len(deal_number_seed(2**53 - 1)) == 32


@pytest.mark.parametrize("text", ["00", "zz" * 32, "00" * 33, ""])
def test_a_server_seed_is_exactly_32_bytes_of_hex(text):
    with pytest.raises(InvalidInput, match="server seed"):
        parse_server_seed(text)
