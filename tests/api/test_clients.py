"""Who a client is, for every count kept per client (server/api/clients.py)."""

import pytest

from server.api.clients import CLIENT, client, client_of


@pytest.mark.parametrize(
    "written",
    [
        "203.0.113.9",
        "::ffff:203.0.113.9",
        "::FFFF:CB00:7109",
        "203.0.113.9:51234",
        "[::ffff:203.0.113.9]:443",
        " 203.0.113.9",
    ],
)
def test_an_ipv4_address_is_one_client_however_it_is_written(written):
    assert client_of(written, 64) == "203.0.113.9"


def test_an_ipv6_client_is_the_network_of_its_prefix():
    assert {client_of(f"2001:db8:1:2::{n:x}", 64) for n in range(1, 61)} == {"2001:db8:1:2::/64"}
    assert client_of("2001:db8:1:3::1", 64) == "2001:db8:1:3::/64"
    assert client_of("[2001:DB8:1:2:ffff::1]:8443", 64) == "2001:db8:1:2::/64"
    assert client_of("2001:db8:1:2::1", 48) == "2001:db8:1::/48"
    assert client_of("2001:db8:1:2::1", 128) == "2001:db8:1:2::1/128"


def test_what_is_no_address_counts_as_its_own_text_cut_short():
    assert client_of("", 64) == "unknown"
    assert client_of("unix:/run/osmosis.sock", 64) == "unix:/run/osmosis.sock"
    assert client_of("x" * 500, 64) == "x" * 64


def test_a_request_s_client_is_what_the_middleware_noted_else_its_address():
    assert client({CLIENT: "2001:db8::/64", "REMOTE_ADDR": "2001:db8::1"}) == "2001:db8::/64"
    assert client({"REMOTE_ADDR": "192.0.2.1"}) == "192.0.2.1"
    assert client({}) == "unknown"
