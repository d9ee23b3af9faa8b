"""scripts/test-times, by which docs/testing.md's tables are made: a test's phases summed, folders and the slowest
in order."""

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "test-times"

RUN = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="tests.api.test_games" name="test_create[embedded]" time="1.5" />
<testcase classname="tests.api.test_games" name="test_create[embedded]" time="0.25" />
<testcase classname="tests.api.test_games" name="test_read" time="0.5" />
<testcase classname="tests.ops.test_backups" name="test_restore" time="40" />
<testcase classname="tests.test_docs" name="test_links" time="0.125" />
<testcase classname="tests.rules.test_engine.TestMoves" name="test_ace" time="2" />
</testsuite></testsuites>
"""


def test_the_tables_sum_each_tests_phases_by_folder_and_list_the_slowest_first(tmp_path):
    junit = tmp_path / "run.xml"
    junit.write_text(RUN)

    printed = subprocess.run(
        [sys.executable, str(SCRIPT), str(junit), "--slowest", "3"], capture_output=True, text=True, check=True
    ).stdout

    assert printed.startswith("5 tests, 44 s in all\n")
    rows = [line for line in printed.splitlines() if line.startswith(("| tests", "| `tests"))]
    assert rows[:4] == [
        "| tests/ops | 1 | 40 | 90% |",
        "| tests/api | 2 | 2 | 5% |",
        "| tests/rules | 1 | 2 | 5% |",
        "| tests | 1 | 0 | 0% |",
    ]
    assert rows[4:] == [
        "| `tests/ops/test_backups.py::test_restore` | 40.0 |",
        "| `tests/rules/test_engine.py::TestMoves::test_ace` | 2.0 |",
        "| `tests/api/test_games.py::test_create[embedded]` | 1.8 |",
    ]


def test_a_run_without_tests_is_an_error(tmp_path):
    junit = tmp_path / "run.xml"
    junit.write_text('<?xml version="1.0"?><testsuites><testsuite name="pytest" /></testsuites>')

    result = subprocess.run([sys.executable, str(SCRIPT), str(junit)], capture_output=True, text=True)

    assert result.returncode == 1 and "no tests" in result.stderr
