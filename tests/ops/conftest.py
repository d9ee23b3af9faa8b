"""What the tests of real processes share."""

import shutil
import uuid
from pathlib import Path

import pytest

from server.store import embedded, migrate


@pytest.fixture
def own_postgres():
    """An embedded PostgreSQL of this test's own (so stopping it harms nothing else), in a short path: it holds a
    Unix socket."""
    data_dir = Path("/tmp") / f"osmosis-own-{uuid.uuid4().hex[:8]}"
    url = embedded.start(data_dir)
    migrate.upgrade(url)
    yield data_dir, url
    embedded.stop(data_dir)
    shutil.rmtree(data_dir, ignore_errors=True)
