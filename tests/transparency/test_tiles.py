"""Tiles grown batch by batch hold the tree: its roots and proofs from tiles equal those from its leaves."""

import random

import pytest

from server.transparency.merkle import consistency_proof, inclusion_proof, leaf_hash, subtrees_of, tree_hash
from server.transparency.tiles import (
    ENTRIES,
    FULL_TILE_BYTES,
    TileAddress,
    TilePathError,
    bundle_entries,
    bundle_prefix,
    grown,
    parse_tile_path,
    partial_tiles,
    tile_path,
    tile_subtrees,
)


class Grower:
    """A log's tile store in a dict: full tiles kept, partial ones overwritten, as the database keeps them."""

    def __init__(self):
        self.size, self.tiles, self.bundles = 0, {}, {}

    def append(self, entries):
        partial = {a.level: self.tiles[(a.level, a.index)] for a in partial_tiles(self.size)}
        if self.size % 256:
            partial[-1] = self.bundles[self.size // 256]
        tiles, bundles = grown(self.size, partial, entries)
        for address, hashes in tiles.items():
            assert address.width is None
            old = self.tiles.get((address.level, address.index), b"")
            assert hashes.startswith(old), "a tile only ever grows"
            assert len(old) < FULL_TILE_BYTES, "a full tile never changes"
            self.tiles[(address.level, address.index)] = hashes
        self.bundles.update(bundles)
        self.size += len(entries)

    def subtrees(self):
        return tile_subtrees(lambda level, index: self.tiles.get((level, index), b""))


@pytest.mark.slow
def test_tiles_grown_in_uneven_batches_give_the_tree_of_the_leaves():
    rng = random.Random(8)
    entries = [rng.randbytes(rng.randrange(1, 30)) for _ in range(70_000)]
    leaves = [leaf_hash(e) for e in entries]
    reference = subtrees_of(leaves)
    grower = Grower()
    while grower.size < len(entries):
        batch = rng.choice([1, 2, 255, 256, 257, 1000, 9000])
        grower.append(entries[grower.size : grower.size + batch])
        size = grower.size
        subtrees = grower.subtrees()
        assert tree_hash(size, subtrees) == tree_hash(size, reference)
        index = rng.randrange(size)
        assert inclusion_proof(index, size, subtrees) == inclusion_proof(index, size, reference)
        old = rng.randrange(1, size + 1)
        assert consistency_proof(old, size, subtrees) == consistency_proof(old, size, reference)
    assert [e for i in sorted(grower.bundles) for e in bundle_entries(grower.bundles[i])] == entries


def test_the_specs_example_of_a_tree_of_70000():
    """ "273 full level 0 tiles, one partial level 0 tile of width 112, one full level 1 tile, one partial
    level 1 tile of width 17, and one partial level 2 tile of width 1" (C2SP tlog-tiles)."""
    grower = Grower()
    grower.append([i.to_bytes(4, "big") for i in range(70_000)])
    full = sorted(key for key, hashes in grower.tiles.items() if len(hashes) == FULL_TILE_BYTES)
    assert [key for key in full if key[0] == 0] == [(0, i) for i in range(273)]
    assert [key for key in full if key[0] == 1] == [(1, 0)]
    assert partial_tiles(70_000) == [TileAddress(0, 273, 112), TileAddress(1, 1, 17), TileAddress(2, 0, 1)]
    assert len(grower.tiles[(0, 273)]) == 112 * 32 and len(grower.tiles[(1, 1)]) == 17 * 32
    assert len(grower.tiles[(2, 0)]) == 32
    assert partial_tiles(256) == [TileAddress(1, 0, 1)]


@pytest.mark.parametrize(
    ("level", "index", "width", "path"),
    [
        (0, 0, None, "tile/0/000"),
        (0, 1234067, None, "tile/0/x001/x234/067"),
        (3, 5, 17, "tile/3/005.p/17"),
        (ENTRIES, 1000, None, "tile/entries/x001/000"),
        (ENTRIES, 7, 255, "tile/entries/007.p/255"),
    ],
)
def test_tile_paths_are_written_and_read_as_the_spec_writes_them(level, index, width, path):
    assert tile_path(level, index, width) == path
    assert parse_tile_path(path.removeprefix("tile/")) == TileAddress(level, index, width)


@pytest.mark.parametrize(
    "path",
    [
        "",
        "0",
        "0/",
        "0/1",
        "0/0001",
        "0/x000",
        "0/1234",
        "00/000",
        "64/000",
        "-1/000",
        "0/x/000",
        "0/x001/x002",
        "0/000.p/0",
        "0/000.p/256",
        "0/000.p/01",
        "0/000.p/",
        "0/000.p",
        "0/x000/001",
        "entry/000",
        "entries/000.p/x",
        "0/x009/x999/x999/x999/x999/x999/999",
        "0/x010/x000/x000/x000/x000/x000/000",
        "0/000/",
        "0/000.p/1/2",
        "0/x001/x234/067\n",
        "0/x001/x234/067 ",
        "0/x001/x234/06\u0667",
    ],
)
def test_malformed_tile_paths_are_refused(path):
    with pytest.raises(TilePathError):
        parse_tile_path(path)


def test_bundles_read_back_and_refuse_truncation():
    bundle = b"".join(len(e).to_bytes(2, "big") + e for e in [b"a", b"", b"xyz"])
    assert bundle_entries(bundle) == [b"a", b"", b"xyz"]
    assert bundle_prefix(bundle, 2) == bundle[:5]
    with pytest.raises(ValueError, match="truncated"):
        bundle_entries(bundle[:-1])
    with pytest.raises(ValueError, match="truncated"):
        bundle_entries(bundle + b"\x00")
