"""The use cases' unit tier: the use cases composed on the store's ports kept in memory (tests/memory_store.py, held to
PostgreSQL's behaviour by tests/store/), with no database and no HTTP."""

import pytest

from server.runtime.composition import compose
from server.service.use_cases import UseCases
from tests.memory_store import MemoryStore


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def cases(store: MemoryStore) -> UseCases:
    return compose(store)
