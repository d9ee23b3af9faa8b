"""The transparency log's algorithms and formats, pure: RFC 9162's Merkle tree (merkle.py), C2SP tlog-tiles
(tiles.py), C2SP signed notes, checkpoints and cosignatures (notes.py). No I/O, no clock."""
