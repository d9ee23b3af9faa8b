"""The use cases' unit tier: GameService on the store's ports kept in memory (tests/memory_store.py, held to
PostgreSQL's behaviour by tests/store/), with no database and no HTTP."""

import pytest

from server.service.games import GameService
from tests.memory_store import MemoryStore


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def service(store: MemoryStore) -> GameService:
    return GameService(store)
