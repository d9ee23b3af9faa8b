"""Front-end benchmark: what the table costs a browser. The page's weight at a first visit (every request, its
bytes on the wire and unpacked), and the main thread while cards move: long tasks (over 50 ms) and the gaps
between frames, over a game played by clicks, with movement and with reduced motion side by side.

Run: .venv/bin/python bench/front_end.py [--moves 60] [--server URL]
Without --server it starts `osmosis serve` (its own embedded PostgreSQL, in /tmp/osmosis-bench-front-end, 2
workers). Drives Debian's chromium (/usr/bin/chromium, headless) with Playwright, at 1280x800. Prints the figures
docs/performance.md records.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT / "bench"))

from load import free_port, serve_osmosis  # noqa: E402

ROOT = Path("/tmp") / "osmosis-bench-front-end"
CHROMIUM = "/usr/bin/chromium"

WEIGHT = """() => {
    const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
    const page = entries.filter((e) => !e.name.includes('/games') && !e.name.includes('/variants'));
    const sum = (key) => page.reduce((total, e) => total + e[key], 0);
    return { requests: page.length, wire: sum('transferSize'), unpacked: sum('decodedBodySize'),
             api: entries.length - page.length };
}"""

# Watches the main thread from now on: long tasks, and the time between frames.
WATCH = """() => {
    window.watched = { long: [], frames: [] };
    new PerformanceObserver((list) => {
        for (const task of list.getEntries()) window.watched.long.push(task.duration);
    }).observe({ type: 'longtask' });
    let last = performance.now();
    const frame = (now) => { window.watched.frames.push(now - last); last = now; requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
}"""


BUSY = """() => setTimeout(() => { const until = performance.now() + 80; while (performance.now() < until); }, 0)"""
"""An 80 ms task, to show that the long-task observer is watching before it is trusted to see none."""


def play(page: Page, moves: int) -> int:
    """Clicks the first lit card, else the stock, `moves` times or until the game ends; the actions taken."""
    taken = 0
    for _ in range(moves):
        version = page.locator("#table").get_attribute("data-version")
        if page.locator("#status.won, #status.lost").count():
            break
        lit = page.locator("#board .playable")
        (lit.first if lit.count() else page.locator("#board button.stock")).click()
        expect(page.locator("#table")).not_to_have_attribute("data-version", version or "")
        page.wait_for_timeout(260)  # the movement runs its course before the next click
        taken += 1
    return taken


def measure(browser, base: str, moves: int, reduced: bool) -> dict[str, float]:
    context = browser.new_context(
        base_url=base, viewport={"width": 1280, "height": 800}, reduced_motion="reduce" if reduced else "no-preference"
    )
    page = context.new_page()
    started = time.perf_counter()
    page.goto("/")
    page.locator("#board .card").first.wait_for()
    first_cards = time.perf_counter() - started
    weight = page.evaluate(WEIGHT)
    page.evaluate(WATCH)
    page.evaluate(BUSY)
    # The observer sees a long task: it is watching (polled from here: the page's policy allows no eval).
    deadline = time.monotonic() + 10
    while not page.evaluate("() => window.watched.long.length > 0"):
        assert time.monotonic() < deadline, "the long-task observer saw nothing"
        page.wait_for_timeout(20)
    page.evaluate("window.watched = { long: [], frames: [] }")
    taken = play(page, moves)
    watched = page.evaluate("window.watched")
    context.close()
    frames = sorted(watched["frames"][1:])
    return {
        **weight,
        "first_cards_ms": first_cards * 1000,
        "actions": taken,
        "long_tasks": len(watched["long"]),
        "longest_task_ms": max(watched["long"], default=0),
        "frame_p50_ms": statistics.median(frames),
        "frame_p99_ms": frames[int(len(frames) * 0.99)],
        "frames_over_50_ms": sum(gap > 50 for gap in frames),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--server", help="a running server's address (default: start one)")
    args = parser.parse_args()

    server = None
    base = args.server
    if base is None:
        shutil.rmtree(ROOT, ignore_errors=True)
        ROOT.mkdir(parents=True)
        port = free_port()
        server = serve_osmosis(ROOT, port)
        base = f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
            results = {
                "moving": measure(browser, base, args.moves, reduced=False),
                "reduced motion": measure(browser, base, args.moves, reduced=True),
            }
            browser.close()
        moving = results["moving"]
        print(
            f"first visit: {moving['requests']} requests for the page, {moving['wire'] / 1024:.1f} KiB on the wire, "
            f"{moving['unpacked'] / 1024:.1f} KiB unpacked (and {moving['api']} API calls); cards shown after "
            f"{moving['first_cards_ms']:.0f} ms"
        )
        for name, result in results.items():
            print(
                f"{name:<15} {result['actions']:>3} actions: {result['long_tasks']} long tasks (longest "
                f"{result['longest_task_ms']:.0f} ms), frame gaps p50 {result['frame_p50_ms']:.1f} ms, p99 "
                f"{result['frame_p99_ms']:.1f} ms, {result['frames_over_50_ms']} over 50 ms"
            )
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=60)
            shutil.rmtree(ROOT, ignore_errors=True)


if __name__ == "__main__":
    main()
