"""The tree as C2SP tlog-tiles serves it: tiles of 256 hashes at every eighth height, and entry bundles.

A log keeps its tiles (full ones, and the partial tile of each level at the right edge) and grows them as
entries arrive (`grown`); every root and proof is computed from them (`tile_subtrees`). Paths follow the
spec to the byte: `tile/<L>/<N>[.p/<W>]` and `tile/entries/<N>[.p/<W>]`, N in 3-digit elements, all but
the last prefixed with `x`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .merkle import HASH_SIZE, Subtree, leaf_hash, subtrees_of

TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT
FULL_TILE_BYTES = TILE_WIDTH * HASH_SIZE
MAX_LEVEL = 63
MAX_INDEX = 1 << 63
MAX_ENTRY_BYTES = 0xFFFF
"""An entry's length is written as a big-endian uint16 in its bundle."""

ENTRIES = -1
"""The level that names entry bundles (`tile/entries/...`), below the level of the leaf hashes."""

_INDEX_ELEMENT = re.compile(r"x[0-9]{3}")
_LAST_ELEMENT = re.compile(r"[0-9]{3}")
_WIDTH = re.compile(r"[1-9][0-9]{0,2}")
_LEVEL = re.compile(r"0|[1-9][0-9]?")


class TilePathError(ValueError):
    """A tile path the spec does not allow."""


@dataclass(frozen=True, slots=True)
class TileAddress:
    level: int
    """0 to 63 for a tile of hashes, ENTRIES for an entry bundle."""
    index: int
    width: int | None = None
    """1 to 255 for a partial tile; None for a full one."""

    @property
    def path(self) -> str:
        return tile_path(self.level, self.index, self.width)


def tile_path(level: int, index: int, width: int | None = None) -> str:
    digits = f"{index:d}"
    digits = "0" * (-len(digits) % 3) + digits
    elements = [digits[i : i + 3] for i in range(0, len(digits), 3)]
    encoded = "/".join([*("x" + element for element in elements[:-1]), elements[-1]])
    name = "entries" if level == ENTRIES else str(level)
    return f"tile/{name}/{encoded}" + (f".p/{width}" if width is not None else "")


def parse_tile_path(path: str) -> TileAddress:
    """The address named by `<L>/<N>[.p/<W>]` or `entries/<N>[.p/<W>]` (the part after `tile/`)."""
    parts = path.split("/")
    width: int | None = None
    if len(parts) >= 3 and parts[-2].endswith(".p"):
        if not _WIDTH.fullmatch(parts[-1]) or int(parts[-1]) >= TILE_WIDTH:
            raise TilePathError(f"a partial tile's width is 1 to 255 with no leading zero, not {parts[-1]!r}")
        width = int(parts[-1])
        parts = [*parts[:-2], parts[-2].removesuffix(".p")]
    if len(parts) < 2:
        raise TilePathError("a tile path is <level>/<index>, the index in 3-digit elements")
    level_text, elements = parts[0], parts[1:]
    if level_text == "entries":
        level = ENTRIES
    elif _LEVEL.fullmatch(level_text) and int(level_text) <= MAX_LEVEL:
        level = int(level_text)
    else:
        raise TilePathError(f"a tile's level is 0 to 63 with no leading zero, or 'entries', not {level_text!r}")
    if not _LAST_ELEMENT.fullmatch(elements[-1]) or not all(_INDEX_ELEMENT.fullmatch(e) for e in elements[:-1]):
        raise TilePathError("a tile's index is written in 3-digit elements, all but the last prefixed with x")
    if len(elements) > 7:
        raise TilePathError("a tile's index has at most 7 elements (it is below 2**63)")
    index = int("".join(element.lstrip("x") for element in elements))
    if index >= MAX_INDEX:
        raise TilePathError("a tile's index is below 2**63")
    if tile_path(level, index, width) != "tile/" + path:
        raise TilePathError("a tile's index is written without extra leading elements")
    return TileAddress(level, index, width)


def tile_width(size: int, level: int) -> tuple[int, int]:
    """(the number of full tiles, the width of the partial tile) at `level` for a tree of `size` leaves."""
    hashes = size >> (TILE_HEIGHT * level)
    return hashes >> TILE_HEIGHT, hashes & (TILE_WIDTH - 1)


def partial_tiles(size: int) -> list[TileAddress]:
    """The partial tile of every level of a tree of `size` (levels whose partial tile is empty have none)."""
    found = []
    level = 0
    while size >> (TILE_HEIGHT * level):
        full, width = tile_width(size, level)
        if width:
            found.append(TileAddress(level, full, width))
        level += 1
    return found


def tile_root(tile: bytes) -> bytes:
    """The root of a full tile: the hash at the next level up."""
    hashes = [tile[i : i + HASH_SIZE] for i in range(0, len(tile), HASH_SIZE)]
    return subtrees_of(hashes)(TILE_HEIGHT, 0)


def grown(
    size: int, partial: Mapping[int, bytes], entries: Sequence[bytes]
) -> tuple[dict[TileAddress, bytes], dict[int, bytes]]:
    """The tiles and entry bundles that change when `entries` are appended to a tree of `size`.

    `partial` holds, by level, the hashes of that tree's partial tiles, and level -1 its partial entry bundle
    (the levels without one are absent). Returns the tiles as they become (full ones, then the new partial
    ones, each under its full address, width None) and the entry bundles by index, likewise.
    """
    full_bundles, bundle_width = tile_width(size, 0)
    bundles: dict[int, bytes] = {}
    bundle, index = partial.get(-1, b""), full_bundles
    count = bundle_width
    for entry in entries:
        if len(entry) > MAX_ENTRY_BYTES:
            raise ValueError(f"an entry of {len(entry)} bytes does not fit in a bundle")
        bundle += len(entry).to_bytes(2, "big") + entry
        count += 1
        bundles[index] = bundle
        if count == TILE_WIDTH:
            bundle, index, count = b"", index + 1, 0

    tiles: dict[TileAddress, bytes] = {}
    added = [leaf_hash(entry) for entry in entries]
    level = 0
    while added:
        full, width = tile_width(size, level)
        buffer = partial.get(level, b"") + b"".join(added)
        if len(buffer) != (width + len(added)) * HASH_SIZE:
            raise ValueError(f"the partial tile at level {level} has the wrong width for a tree of {size}")
        added = []
        for offset in range(0, len(buffer), FULL_TILE_BYTES):
            tile = buffer[offset : offset + FULL_TILE_BYTES]
            tiles[TileAddress(level, full + offset // FULL_TILE_BYTES)] = tile
            if len(tile) == FULL_TILE_BYTES:
                added.append(tile_root(tile))
        level += 1
    return tiles, bundles


def tile_subtrees(read: Callable[[int, int], bytes]) -> Subtree:
    """The tree's subtrees from its tiles: `read(level, index)` returns the hashes the tile holds so far
    (a full tile's 8,192 bytes, or the stored prefix of a partial one)."""
    cache: dict[tuple[int, int], bytes] = {}

    def subtree(height: int, index: int) -> bytes:
        level, within = divmod(height, TILE_HEIGHT)
        first = index << within
        tile_index, offset = divmod(first, TILE_WIDTH)
        if (level, tile_index) not in cache:
            cache[(level, tile_index)] = read(level, tile_index)
        tile = cache[(level, tile_index)]
        hashes = [tile[i * HASH_SIZE : (i + 1) * HASH_SIZE] for i in range(offset, offset + (1 << within))]
        if len(hashes[-1]) != HASH_SIZE:
            raise IndexError(f"tile {level}/{tile_index} does not yet hold the subtree ({height}, {index})")
        return subtrees_of(hashes)(within, 0)

    return subtree


def bundle_entries(bundle: bytes) -> list[bytes]:
    """The entries of an entry bundle, each as logged; ValueError for a truncated bundle."""
    entries: list[bytes] = []
    offset = 0
    while offset < len(bundle):
        if offset + 2 > len(bundle):
            raise ValueError(f"the entry bundle is truncated at byte {offset}")
        length = int.from_bytes(bundle[offset : offset + 2], "big")
        if offset + 2 + length > len(bundle):
            raise ValueError(f"the entry bundle is truncated in its entry {len(entries)}")
        entries.append(bundle[offset + 2 : offset + 2 + length])
        offset += 2 + length
    return entries


def bundle_prefix(bundle: bytes, width: int) -> bytes:
    """The first `width` entries of a bundle, as the partial bundle of that width was served."""
    offset = 0
    for _ in range(width):
        offset += 2 + int.from_bytes(bundle[offset : offset + 2], "big")
    return bundle[:offset]
