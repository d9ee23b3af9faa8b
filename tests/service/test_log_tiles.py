"""The public log's tiles leave the server only under a checkpoint: what a failover could take back is never served."""

import pytest

from server.rules import preset
from server.runtime.composition import compose
from server.service.creating import NewGame
from server.service.errors import TileNotFound
from server.service.public_log import PublicLog
from server.transparency.notes import generate_signer
from server.transparency.tiles import TileAddress


def test_a_tile_no_checkpoint_covers_is_not_served_even_if_the_store_holds_it(store):
    log = PublicLog(store, store, generate_signer("tiles.example/log"), spacing=0)
    cases = compose(store, public_log=log)
    for _ in range(3):
        cases.creating.create_game(NewGame(preset("peek")))
    assert log.sequence() is not None
    assert log.tile(TileAddress(0, 0, 3))  # under the checkpoint of 3
    # Hashes written by a sequencing whose commit a failover would lose: in the table, under no checkpoint.
    store._tiles[(0, 0)] += b"\0" * 32

    with pytest.raises(TileNotFound):
        log.tile(TileAddress(0, 0, 4))
