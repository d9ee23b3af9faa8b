"""The Readiness port: a store with its schema at head says it is ready."""


def test_a_store_at_head_is_ready(port_store):
    assert port_store.readiness() is None
