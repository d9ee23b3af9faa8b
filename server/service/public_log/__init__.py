"""The public transparency log's use cases: the log itself (`log.py`: sequencing, checkpoints, tiles, proofs), the
guard that keeps it from signing a fork (`guard.py`), its recovery from its tiles and its retirement, and the tiles
a directory missed."""
