"""The process's own threads (the public log's sequencer, the upkeep) take a turn when work wakes them, keep turning
while work remains, and cost nothing while there is none."""

import time
from datetime import UTC, datetime, timedelta

from server.runtime.sequencer import Sequencer
from server.runtime.turns import Turns
from server.runtime.upkeep import Upkeep
from tests.waiting import until


class Counted(Turns):
    def __init__(self, wait, idle_wait, busy_turns=0):
        super().__init__("test-turns", wait, idle_wait)
        self.turns: list[float] = []
        self.busy_turns = busy_turns

    def turn(self):
        self.turns.append(time.monotonic())
        self.busy_turns -= 1
        return self.busy_turns >= 0


def test_idle_turns_wait_for_work_and_a_wake_brings_one_turn_soon():
    turns = Counted(wait=0.05, idle_wait=60)
    turns.start()
    try:
        until(lambda: len(turns.turns) == 1)  # the first turn looks for work left from before
        time.sleep(0.4)
        assert len(turns.turns) == 1, "turned with no work on the clock's word alone"
        for _ in range(20):  # a burst of work is one turn's
            turns.wake()
        until(lambda: len(turns.turns) == 2)
        time.sleep(0.3)
        assert len(turns.turns) == 2
    finally:
        turns.stop()


def test_turns_go_on_a_wait_apart_while_work_remains_then_rest():
    turns = Counted(wait=0.05, idle_wait=60, busy_turns=4)
    turns.start()
    try:
        until(lambda: len(turns.turns) == 5)
        time.sleep(0.3)
        assert len(turns.turns) == 5
    finally:
        turns.stop()
    gaps = [later - earlier for earlier, later in zip(turns.turns, turns.turns[1:], strict=False)]
    assert min(gaps) >= 0.045


def test_with_nothing_waking_it_an_idle_thread_still_looks_after_its_idle_wait():
    turns = Counted(wait=0.01, idle_wait=0.2)
    turns.start()
    try:
        until(lambda: len(turns.turns) >= 3, seconds=3)
    finally:
        turns.stop()


def test_stop_ends_an_idle_wait_at_once():
    turns = Counted(wait=0.05, idle_wait=60)
    turns.start()
    until(lambda: turns.turns)
    started = time.monotonic()
    turns.stop()
    assert time.monotonic() - started < 1


class LogOf:
    """A public log whose pending entries a test sets."""

    def __init__(self):
        self.pending = 0
        self.sequenced = 0

    def sequence(self):
        self.sequenced += 1
        if not self.pending:
            return None
        self.pending = max(0, self.pending - 2)
        return object()

    def has_pending(self):
        return self.pending > 0

    def caught_up(self):
        return True  # every checkpoint it signed was handed out


def test_the_sequencer_turns_until_nothing_is_pending_then_waits_to_be_woken():
    public_log = LogOf()
    public_log.pending = 5
    sequencer = Sequencer(public_log, interval=0.04)
    sequencer.start()
    try:
        until(lambda: public_log.pending == 0)
        time.sleep(0.3)
        after_the_work = public_log.sequenced
        assert after_the_work <= 5, "kept sequencing with nothing pending"
        public_log.pending = 1
        sequencer.wake()
        until(lambda: public_log.pending == 0)
    finally:
        sequencer.stop()


class Chores:
    """The service's upkeep as a test scripts it: how much each batch did, or an error."""

    def __init__(self, *batches):
        self.batches = list(batches)

    def turn(self):
        batch = self.batches.pop(0) if self.batches else 0
        if isinstance(batch, Exception):
            raise batch
        return batch


def test_the_upkeep_drains_its_batches_in_one_turn_then_rests():
    chores = Chores(100, 100, 3, 0)
    assert Upkeep(chores).turn() is False
    assert chores.batches == []


def test_an_upkeep_turn_that_fails_asks_to_be_tried_again():
    assert Upkeep(Chores(5, RuntimeError("the database went away"))).turn() is True
    assert Upkeep(Chores(RuntimeError("down"))).run_once() == 0


def test_the_upkeep_rests_no_longer_than_the_turn_of_the_day():
    upkeep = Upkeep(Chores(), idle_wait=10 * 86400)
    now = datetime.now(UTC)
    to_midnight = (datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), UTC) - now).total_seconds()
    assert to_midnight <= upkeep.resting() <= to_midnight + 2
    assert Upkeep(Chores(), idle_wait=0.5).resting() <= 0.5
