"""Real Chromium (Debian's, driven by Playwright) on a live server, and pages that fail their test when
they throw or log an error to the console."""

import shutil
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.browser.table import CHROMIUM, FLAGS, SCREENSHOTS, watch_for_errors

AXE = Path(__file__).parent / "axe"

# A parallel run's lanes share two cores below the drills' priority (tests/lanes.py): a table's answer may wait
# seconds for the CPU. No browser test times the server (bench/front_end.py measures the table), so each waits for
# its condition as long as that can take, not Playwright's default five seconds.
expect.set_options(timeout=15_000)


@pytest.fixture(scope="session")
def axe_script():
    """axe-core from npm, at the version the lock file names."""
    npm = shutil.which("npm")
    assert npm, "npm is missing: scripts/install-system-packages installs it"
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=AXE, check=True, timeout=300)
    return AXE / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server, request):
    """A desktop page. A test marked `refused_requests` expects the server to refuse some of the page's
    requests, which Chromium logs as failed resources: those lines, and only those, are allowed."""
    context = browser.new_context(base_url=live_server, viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors = watch_for_errors(page, refused_requests=request.node.get_closest_marker("refused_requests") is not None)
    yield page
    context.close()
    assert not errors, f"the page threw or logged errors: {errors}"


def pytest_terminal_summary(terminalreporter):
    if SCREENSHOTS.is_dir():
        terminalreporter.write_line(f"Screenshots of the front end, for a person to look at: {SCREENSHOTS}")
