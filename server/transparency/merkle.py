"""The Merkle tree of RFC 9162 section 2.1 (RFC 6962's, with SHA-256): hashes, proofs and their checks.

Every algorithm reads the tree through one function, `subtree(height, index)`: the hash of the complete
subtree of 2**height leaves that starts at leaf index * 2**height. A list of leaf hashes answers it
(`subtrees_of`), and so do a log's tiles (tiles.py), which hold exactly those hashes at every eighth height.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()
"""The root of the tree with no leaves: the hash of the empty string."""

Subtree = Callable[[int, int], bytes]
"""(height, index) -> the hash of the complete subtree of 2**height leaves starting at leaf index * 2**height."""


class ProofError(ValueError):
    """A proof that does not prove what it is said to: the message names what failed."""


def leaf_hash(entry: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def subtrees_of(leaves: Sequence[bytes]) -> Subtree:
    """The subtrees of a tree whose leaf hashes are all in memory (a small tree, or a tile's)."""

    def subtree(height: int, index: int) -> bytes:
        start = index << height
        if start + (1 << height) > len(leaves):
            raise IndexError(f"no complete subtree of height {height} at index {index} in {len(leaves)} leaves")
        level = list(leaves[start : start + (1 << height)])
        while len(level) > 1:
            level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
        return level[0]

    return subtree


def _split(size: int) -> int:
    """The largest power of two smaller than `size` (size >= 2): where RFC 9162 splits a tree."""
    return 1 << ((size - 1).bit_length() - 1)


def range_hash(start: int, end: int, subtree: Subtree) -> bytes:
    """MTH(D[start:end]) for a range the RFC's recursion reaches: complete subtrees come whole from `subtree`."""
    size = end - start
    if size <= 0:
        raise ValueError(f"an empty range [{start}, {end})")
    if size & (size - 1) == 0 and start % size == 0:
        return subtree(size.bit_length() - 1, start // size)
    k = _split(size)
    return node_hash(range_hash(start, start + k, subtree), range_hash(start + k, end, subtree))


def tree_hash(size: int, subtree: Subtree) -> bytes:
    """The root of the tree of the first `size` leaves."""
    return EMPTY_ROOT if size == 0 else range_hash(0, size, subtree)


def inclusion_proof(index: int, size: int, subtree: Subtree) -> list[bytes]:
    """PATH(index, D[0:size]) of RFC 9162 2.1.3.1: the hashes that lead from leaf `index` to the root."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size}")
    proof: list[bytes] = []
    start, end = 0, size
    while end - start > 1:
        k = _split(end - start)
        if index < start + k:
            proof.append(range_hash(start + k, end, subtree))
            end = start + k
        else:
            proof.append(range_hash(start, start + k, subtree))
            start += k
    proof.reverse()
    return proof


def consistency_proof(old_size: int, new_size: int, subtree: Subtree) -> list[bytes]:
    """PROOF(old_size, D[0:new_size]) of RFC 9162 2.1.4.1: empty when either size is 0 or they are equal."""
    if not 0 <= old_size <= new_size:
        raise ValueError(f"no consistency proof from a tree of {old_size} to one of {new_size}")
    if old_size in (0, new_size):
        return []
    proof: list[bytes] = []
    start, end, m, whole = 0, new_size, old_size, True
    while m != end - start:
        k = _split(end - start)
        if m <= k:
            proof.append(range_hash(start + k, end, subtree))
            end = start + k
        else:
            proof.append(range_hash(start, start + k, subtree))
            start, m, whole = start + k, m - k, False
    if not whole:
        proof.append(range_hash(start, end, subtree))
    proof.reverse()
    return proof


def _check_hashes(*hashes: bytes) -> None:
    if any(len(h) != HASH_SIZE for h in hashes):
        raise ProofError(f"a hash in a proof, a leaf or a root is {HASH_SIZE} bytes")


def _climb(fn: int, sn: int, start: bytes, path: Sequence[bytes], proof: str) -> tuple[bytes, bytes]:
    """RFC 9162's walk up from node `fn` of a level whose last node is `sn`, `start` its hash, shared by both
    verifications: the hash of the path's left siblings over `start` (a consistency proof's old root) and of the
    whole path (the root)."""
    fr = sr = start
    for c in path:
        if sn == 0:
            raise ProofError(f"the {proof} proof is longer than the tree is high")
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError(f"the {proof} proof is shorter than the tree is high")
    return fr, sr


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes], root: bytes) -> None:
    """RFC 9162 2.1.3.2: raises ProofError unless `proof` leads from leaf hash `leaf` at `index` to `root`."""
    if not 0 <= index < size:
        raise ProofError(f"leaf index {index} is not below the tree size {size}")
    _check_hashes(leaf, root, *proof)
    _, r = _climb(index, size - 1, leaf, proof, "inclusion")
    if r != root:
        raise ProofError(f"the inclusion proof of leaf {index} does not lead to the root of the tree of size {size}")


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> None:
    """RFC 9162 2.1.4.2: raises ProofError unless the tree of `old_size` is a prefix of the one of `new_size`.

    Sizes start at 1: every tree extends the empty one, which needs no proof (and has none here)."""
    if not 0 < old_size <= new_size:
        raise ProofError(f"no consistency proof from a tree of {old_size} to one of {new_size}")
    if old_size == new_size:
        if proof:
            raise ProofError("a proof between trees of the same size must be empty")
        if old_root != new_root:
            raise ProofError(f"two different roots for the tree of size {old_size}")
        return
    _check_hashes(old_root, new_root, *proof)
    path = list(proof)
    if old_size & (old_size - 1) == 0:
        path.insert(0, old_root)
    if not path:
        raise ProofError("the consistency proof is empty")
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr, sr = _climb(fn, sn, path[0], path[1:], "consistency")
    if fr != old_root:
        raise ProofError(f"the consistency proof does not lead to the old root (size {old_size})")
    if sr != new_root:
        raise ProofError(f"the consistency proof does not lead to the new root (size {new_size})")
