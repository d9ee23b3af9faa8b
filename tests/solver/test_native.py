"""The compiled copy of the search (server/solver/native.py): installed by the project's own build, used only
when built from the sources in the checkout, and the same answers as the pure modules, position for
position."""

import importlib
import random

import pytest

from server.rules import apply, legal_actions, numbered_opening
from server.solver import depth_first as pure
from server.solver import native, search_engine, use_compiled_search
from server.solver.native import compiled_search
from server.solver.search import Searcher

from .test_solver import ALL_RULES


@pytest.fixture(scope="module")
def compiled():
    module, why = compiled_search()
    assert module is not None, f"the solver would run as {why}: `make test` builds the copy"
    return module


def positions(rules, count, rng):
    """Openings, and positions some random actions into a game, so that mid-game positions are compared too."""
    for number in range(count):
        state = numbered_opening(rules, number)
        yield state
        for _ in range(rng.randrange(5, 60)):
            actions = legal_actions(state)
            if not actions:
                break
            state = apply(state, rng.choice(actions))
        if state.outcome is None:
            yield state


def compiled_searcher(state):
    return importlib.import_module(f"{native.NATIVE_PACKAGE}.search").Searcher(state)


def test_the_solver_runs_the_compiled_copy(compiled):
    assert search_engine().startswith("compiled")
    assert compiled.__name__ == f"{native.NATIVE_PACKAGE}.depth_first"


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL_RULES)
@pytest.mark.parametrize("reach", [True, False], ids=["osmosis-solver/2", "osmosis-solver/1"])
def test_the_compiled_copy_answers_as_the_pure_modules(compiled, name, reach):
    rules = ALL_RULES[name]
    rng = random.Random(f"native {name}")
    compared = 0
    for state in positions(rules, 40, rng):
        here = pure.search(state, 4_000, reach)
        there = compiled.search(state, 4_000, reach)
        assert (there.won, there.witness, there.nodes) == (here.won, here.witness, here.nodes), (name, state)
        if reach and here.won is None:
            hopeless = Searcher(state).hopeless(Searcher(state).start)
            searcher = compiled_searcher(state)
            assert searcher.hopeless(searcher.start) == hopeless
        compared += 1
    assert compared > 40


def test_a_copy_built_from_other_sources_is_not_used(compiled, monkeypatch):
    monkeypatch.setattr(native, "source_digest", lambda: "0" * 64)
    module, why = compiled_search()
    assert module is None and "built from other sources" in why
    assert native.chosen_search()[0] is pure


def test_without_a_compiled_copy_the_pure_modules_run(monkeypatch):
    real_import = importlib.import_module

    def no_compiled_copy(name, *args):
        if name.startswith(native.NATIVE_PACKAGE):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args)

    monkeypatch.setattr(importlib, "import_module", no_compiled_copy)
    module, why = native.chosen_search()
    assert module is pure and "no compiled search is installed" in why


@pytest.mark.slow
def test_the_pure_modules_can_be_chosen_and_give_the_same_verdicts(compiled):
    state = numbered_opening(ALL_RULES["osmosis-ablage"], 2)
    from server.solver import solve

    try:
        assert use_compiled_search(False) == "pure Python"
        slow = solve(state, 20_000)
    finally:
        assert use_compiled_search(True).startswith("compiled")
    fast = solve(state, 20_000)
    assert fast == slow
