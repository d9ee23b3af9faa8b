"""The Merkle algorithms against published known answers and against the RFC's definitions run on lists."""

import base64
import hashlib
import json
import random
from pathlib import Path

import pytest

from server.transparency.merkle import (
    EMPTY_ROOT,
    ProofError,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    node_hash,
    subtrees_of,
    tree_hash,
    verify_consistency,
    verify_inclusion,
)

VECTORS = json.loads((Path(__file__).parents[1] / "data" / "merkle-vectors.json").read_text())
LEAF_INPUTS = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"]
ROOTS = [  # RFC 6962's eight leaves, the roots of their trees of size 1 to 8 (transparency-dev/merkle testonly)
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def b64(text):
    return base64.b64decode(text) if text is not None else None


def reference_root(leaves):
    """MTH of RFC 9162 2.1.1, word for word."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(reference_root(leaves[:k]), reference_root(leaves[k:]))


def reference_path(m, leaves):
    """PATH(m, D[n]) of RFC 9162 2.1.3.1, word for word."""
    if len(leaves) == 1:
        return []
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    if m < k:
        return [*reference_path(m, leaves[:k]), reference_root(leaves[k:])]
    return [*reference_path(m - k, leaves[k:]), reference_root(leaves[:k])]


def reference_subproof(m, leaves, whole):
    """SUBPROOF(m, D[n], b) of RFC 9162 2.1.4.1, word for word."""
    if m == len(leaves):
        return [] if whole else [reference_root(leaves)]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    if m <= k:
        return [*reference_subproof(m, leaves[:k], whole), reference_root(leaves[k:])]
    return [*reference_subproof(m - k, leaves[k:], False), reference_root(leaves[:k])]


def test_the_rfc_leaves_give_the_published_roots():
    leaves = [leaf_hash(bytes.fromhex(text)) for text in LEAF_INPUTS]
    subtree = subtrees_of(leaves)
    assert (
        tree_hash(0, subtree)
        == EMPTY_ROOT
        == bytes.fromhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    )
    assert [tree_hash(size, subtree).hex() for size in range(1, 9)] == ROOTS


@pytest.mark.parametrize("case", VECTORS["inclusion"], ids=lambda case: case["file"])
def test_inclusion_known_answers(case):
    def check():
        verify_inclusion(
            case["leafIdx"],
            case["treeSize"],
            b64(case["leafHash"]),
            [b64(p) for p in case["proof"] or []],
            b64(case["root"]),
        )

    if case["wantErr"]:
        with pytest.raises(ProofError):
            check()
    else:
        check()


@pytest.mark.parametrize("case", VECTORS["consistency"], ids=lambda case: case["file"])
def test_consistency_known_answers(case):
    def check():
        verify_consistency(
            case["size1"], case["size2"], b64(case["root1"]), b64(case["root2"]), [b64(p) for p in case["proof"] or []]
        )

    if case["wantErr"]:
        with pytest.raises(ProofError):
            check()
    else:
        check()


def test_the_known_answer_proofs_are_the_ones_made_here():
    """The vectors' valid proofs are exactly what inclusion_proof and consistency_proof make of the RFC's leaves."""
    leaves = [leaf_hash(bytes.fromhex(text)) for text in LEAF_INPUTS]
    subtree = subtrees_of(leaves)
    checked = 0
    for case in VECTORS["inclusion"]:
        if not case["wantErr"] and case["desc"] == "happy path" and case["treeSize"] <= 8:
            assert inclusion_proof(case["leafIdx"], case["treeSize"], subtree) == [b64(p) for p in case["proof"] or []]
            checked += 1
    for case in VECTORS["consistency"]:
        if not case["wantErr"] and case["desc"] == "happy path" and case["size2"] <= 8 and case["size1"] > 0:
            assert consistency_proof(case["size1"], case["size2"], subtree) == [b64(p) for p in case["proof"] or []]
            checked += 1
    assert checked == 10


def test_every_tree_up_to_300_leaves_matches_the_rfc_definitions():
    rng = random.Random(9162)
    leaves = [leaf_hash(rng.randbytes(rng.randrange(0, 40))) for _ in range(300)]
    subtree = subtrees_of(leaves)
    for size in range(1, 301):
        root = tree_hash(size, subtree)
        assert root == reference_root(leaves[:size])
        for index in {0, size - 1, rng.randrange(size), rng.randrange(size)}:
            proof = inclusion_proof(index, size, subtree)
            assert proof == reference_path(index, leaves[:size])
            verify_inclusion(index, size, leaves[index], proof, root)
        for old in {1, size, rng.randrange(1, size + 1), rng.randrange(1, size + 1)}:
            proof = consistency_proof(old, size, subtree)
            assert proof == ([] if old == size else reference_subproof(old, leaves[:size], True))
            verify_consistency(old, size, reference_root(leaves[:old]), root, proof)


def test_every_pair_of_sizes_below_40_proves_consistent_and_refuses_a_changed_hash():
    rng = random.Random(6962)
    leaves = [leaf_hash(bytes([i])) for i in range(40)]
    subtree = subtrees_of(leaves)
    for new in range(1, 40):
        for old in range(1, new):
            proof = consistency_proof(old, new, subtree)
            old_root, new_root = tree_hash(old, subtree), tree_hash(new, subtree)
            verify_consistency(old, new, old_root, new_root, proof)
            broken = list(proof)
            spot = rng.randrange(len(broken))
            broken[spot] = bytes([broken[spot][0] ^ 1]) + broken[spot][1:]
            with pytest.raises(ProofError):
                verify_consistency(old, new, old_root, new_root, broken)
            with pytest.raises(ProofError):
                verify_consistency(
                    old, new, old_root, tree_hash(new - 1, subtree) if new - 1 > old else b"\0" * 32, proof
                )


def test_a_proof_for_another_leaf_fails():
    leaves = [leaf_hash(bytes([i])) for i in range(13)]
    subtree = subtrees_of(leaves)
    root = tree_hash(13, subtree)
    proof = inclusion_proof(5, 13, subtree)
    with pytest.raises(ProofError, match="does not lead to the root"):
        verify_inclusion(6, 13, leaves[6], proof, root)
    with pytest.raises(ProofError, match="not below the tree size"):
        verify_inclusion(13, 13, leaves[5], proof, root)
    with pytest.raises(ProofError, match="shorter"):
        verify_inclusion(5, 13, leaves[5], proof[:-1], root)
    with pytest.raises(ProofError, match="longer"):
        verify_inclusion(5, 13, leaves[5], [*proof, root], root)
