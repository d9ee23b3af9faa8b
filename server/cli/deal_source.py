"""Which deal a command is about: a public deal number, or a server seed with its client seed (`deal`, `solve`)."""

from __future__ import annotations

import argparse

from ..rules import deal_number_seed, parse_server_seed


def add_deal_source(command: argparse.ArgumentParser) -> None:
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("--deal-number", type=int, metavar="N", help="a public, shareable deal number")
    source.add_argument("--server-seed", metavar="HEX", help="a game's revealed 32-byte server seed, in hex")
    command.add_argument("--client-seed", default="", metavar="S", help="the client seed (with --server-seed)")


def seeds_of(args: argparse.Namespace) -> tuple[bytes, str]:
    """The deal's server seed and client seed (a deal number's is the empty string)."""
    if args.server_seed is not None:
        return parse_server_seed(args.server_seed), args.client_seed
    return deal_number_seed(args.deal_number), ""
