"""The public log's tiles and entry bundles as a store holds them: one read as C2SP tlog-tiles addresses it, the
tree size a tile needs, and every tile and bundle that changed between two tree sizes (what a tiles directory that
missed a checkpoint writes to catch up)."""

from __future__ import annotations

from ...transparency.tiles import ENTRIES, TILE_WIDTH, TileAddress, bundle_entries, bundle_prefix
from ..ports import TileReads


def stored_tile(tiles: TileReads, address: TileAddress) -> tuple[bytes, int]:
    """The tile or bundle as `tiles` has it, and how many hashes or entries that is."""
    if address.level == ENTRIES:
        stored = tiles.read_bundle(address.index)
        return stored, len(bundle_entries(stored)) if stored else 0
    stored = tiles.read_tile(address.level, address.index)
    return stored, len(stored) // 32


def covered(address: TileAddress, width: int) -> int:
    """The tree size that a tile of `width` at `address` needs."""
    return int((address.index * TILE_WIDTH + width) * TILE_WIDTH ** max(address.level, 0))


def tiles_between(tiles: TileReads, start: int, end: int) -> tuple[dict[tuple[int, int], bytes], dict[int, bytes]]:
    """The tiles (by (level, index)) and entry bundles (by index) the tree of size `end` has that the tree of size
    `start` lacks or has narrower, each as wide as the tree of `end` makes it."""
    changed: dict[tuple[int, int], bytes] = {}
    level, low, high = 0, start, end  # the hashes at a level: those of whole subtrees of TILE_WIDTH ** level leaves
    while high > 0:
        for index in range(low // TILE_WIDTH, (high - 1) // TILE_WIDTH + 1) if low < high else ():
            width = min(TILE_WIDTH, high - index * TILE_WIDTH)
            changed[level, index] = tiles.read_tile(level, index)[: 32 * width]
        level, low, high = level + 1, low // TILE_WIDTH, high // TILE_WIDTH
    bundles = {
        index: bundle_prefix(tiles.read_bundle(index), min(TILE_WIDTH, end - index * TILE_WIDTH))
        for index in (range(start // TILE_WIDTH, (end - 1) // TILE_WIDTH + 1) if start < end else ())
    }
    return changed, bundles
