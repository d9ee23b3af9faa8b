"""The daily deal's close on the ports in memory: every game of the day verifies after it, whatever the write
that ended it kept (a snapshot at its end, before the reveal the close appends)."""

import hashlib
from datetime import UTC, datetime, timedelta

from server.rules import Move, apply, commitment, layout, legal_actions, opening, preset, shuffled_deck
from server.service.acting import SNAPSHOT_EVERY
from server.service.games import GameService
from tests.memory_store import MemoryStore

RULES = preset("osmosis-draw-one")


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def first_legal(state):
    actions = legal_actions(state)
    return next((action for action in actions if isinstance(action, Move)), actions[0])


def ends_with_a_snapshot(seed):
    """Whether the action that ends this seed's game, played by first legal action, appends two events across a
    multiple of SNAPSHOT_EVERY: its write then keeps a snapshot at the game's end."""
    state, version = opening(RULES, layout(shuffled_deck(seed), RULES)), 1
    while not state.is_over:
        before, state = version, apply(state, first_legal(state))
        version += 2 if state.is_over else 1
    return before // SNAPSHOT_EVERY != version // SNAPSHOT_EVERY


def test_a_daily_game_whose_end_kept_a_snapshot_verifies_after_the_close():
    seed = next(s for s in (hashlib.sha256(bytes([n])).digest() for n in range(256)) if ends_with_a_snapshot(s))
    clock = Clock(datetime(2026, 3, 1, 12, tzinfo=UTC))
    service = GameService(MemoryStore(), clock=clock, new_server_seed=lambda: seed)
    made = service.accounts.sign_up("closer", "human", None).outcome
    me = service.accounts.authenticate(made.secret)
    game = service.create_game(RULES, owner=me, daily=True).outcome.game
    assert game.commitment == commitment(seed)
    state = opening(RULES, layout(shuffled_deck(seed), RULES))
    while not state.is_over:
        action = first_legal(state)
        state = apply(state, action)
        service.act(game.id, me, action, None, None)

    clock.now += timedelta(days=1)
    while service.upkeep():
        pass

    verdict = service.verification(game.id)
    assert (verdict["valid"], verdict["complete"]) == (True, True), verdict
