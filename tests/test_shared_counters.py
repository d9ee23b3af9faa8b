"""The counters every worker of a server shares: fixed-window counts that expire, one table for all the
processes that map its file, and a table that forgets rather than fails when it is full."""

import multiprocessing
import time

from limits.storage import storage_from_string

from server.runtime import shared_counters
from server.runtime.shared_counters import PROBES, CounterTable, SharedCounters


def test_a_count_grows_expires_and_is_cleared(tmp_path):
    table = CounterTable(shared_counters.create(tmp_path))

    assert [table.incr("a", 60) for _ in range(3)] == [1, 2, 3]
    assert table.get("a") == 3 and table.get("b") == 0
    assert time.time() + 59 < table.expiry("a") <= time.time() + 60
    table.clear("a")
    assert table.get("a") == 0
    assert table.incr("short", 0.05) == 1
    time.sleep(0.1)
    assert table.get("short") == 0 and table.incr("short", 60) == 1


def test_an_expiry_is_set_when_a_count_starts_and_kept_while_it_grows(tmp_path):
    table = CounterTable(shared_counters.create(tmp_path))
    table.incr("a", 10)
    first = table.expiry("a")

    table.incr("a", 1000)

    assert table.expiry("a") == first


def _add_many(path, key, times):
    table = CounterTable(path)
    for _ in range(times):
        table.incr(key, 60)


def test_processes_that_map_one_file_share_every_count_exactly(tmp_path):
    path = shared_counters.create(tmp_path)
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_add_many, args=(path, "shared", 500)) for _ in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join()

    assert CounterTable(path).get("shared") == 2000


def test_a_full_table_forgets_the_count_nearest_its_end_and_finds_every_other(tmp_path, monkeypatch):
    monkeypatch.setattr(shared_counters, "SLOTS", 8)  # every key probes the same eight slots
    monkeypatch.setattr(shared_counters, "SIZE", 8 * 32)
    table = CounterTable(shared_counters.create(tmp_path))
    for index in range(8):
        table.incr(f"key{index}", 100 + index)

    table.incr("newcomer", 1000)

    assert PROBES >= 8
    assert table.get("newcomer") == 1 and table.get("key0") == 0
    assert all(table.get(f"key{index}") == 1 for index in range(1, 8))


def test_it_is_the_limits_storage_osmosis_shared_and_the_default_of_the_settings():
    from server.config import Settings

    storage = storage_from_string(Settings().rate_limit_storage_uri)

    assert isinstance(storage, SharedCounters) and Settings().rate_limit_storage_uri == shared_counters.URI
    storage.incr("limits-key", 60, amount=2)
    assert storage.get("limits-key") == 2 and storage.get_expiry("limits-key") > time.time()
    storage.clear("limits-key")
    assert storage.get("limits-key") == 0 and storage.check()
