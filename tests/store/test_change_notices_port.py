"""The ChangeNotices port: what one process publishes, every process listening is told, in order."""

import threading
import time


def test_a_listener_is_told_every_change_published_while_it_listens_in_order(port_store):
    heard: list[str] = []
    listening, stopped = threading.Event(), threading.Event()
    mine = f"test-{time.monotonic_ns()}"

    def on_change(payload: str) -> None:
        if payload.startswith(mine):
            heard.append(payload)

    listener = threading.Thread(target=port_store.listen_for_changes, args=(on_change, listening.set, stopped))
    listener.start()
    try:
        assert listening.wait(10)
        port_store.publish_changes([f"{mine}-1", f"{mine}-2"])
        port_store.publish_changes([f"{mine}-3"])
        deadline = time.monotonic() + 10
        while len(heard) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stopped.set()
        listener.join(timeout=10)

    assert heard == [f"{mine}-1", f"{mine}-2", f"{mine}-3"]
    assert not listener.is_alive()
