"""docs/transparency.md's worked example is what the code computes, so a reader checking it by hand can trust it."""

import hashlib
from pathlib import Path
from uuid import UUID

from server.log import public_entries as pe
from server.transparency.merkle import inclusion_proof, leaf_hash, node_hash, subtrees_of, tree_hash
from server.transparency.notes import ED25519, Checkpoint, Signer, sign_note

DOC = (Path(__file__).parents[2] / "docs" / "transparency.md").read_text()


def test_the_worked_example_is_what_the_code_computes():
    signer = Signer("log.example/osmosis", ED25519, hashlib.sha256(b"osmosis example log key").digest())
    game = UUID("65eee5b0-03b5-49e9-b1e2-863d2e8084cd")
    entries = [
        pe.deal_sealed(UUID("0d5a6c55-9d0e-4b8a-9d55-2f9f7d7d3a10"), "ab" * 32),
        pe.game_created(game, "osmosis", {"draw": 3}, {"kind": "number", "deal_number": 4711}, "cd" * 32),
        pe.game_ended(game, "won", 61, "ef" * 32, 52, b"\x01" * 32, ""),
    ]
    leaves = [leaf_hash(entry) for entry in entries]
    subtrees = subtrees_of(leaves)
    root = tree_hash(3, subtrees)
    for value in [*leaves, node_hash(leaves[0], leaves[1]), root]:
        assert f"`{value.hex()}`" in DOC
    assert inclusion_proof(1, 3, subtrees) == [leaves[0], leaves[2]]
    note = sign_note(Checkpoint(signer.name, 3, root).text, signer)
    assert "\n".join("    " + line if line else "" for line in note.splitlines()) in DOC
    assert f"`{signer.verifier.vkey}`" in DOC
    shortened = entries[1].decode().replace("cd" * 32, "cdcd…cdcd")
    assert shortened in DOC
