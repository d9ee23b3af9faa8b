"""Waiting in tests for what another thread does: polled, with a deadline that fails the test."""

import time


def until(predicate, seconds=5.0):
    """Return once `predicate()` holds; fail the test if it does not within `seconds`."""
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "waited in vain"
        time.sleep(0.005)
