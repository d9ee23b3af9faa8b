"""Every benchmark still imports what it uses: a rename in the server that a benchmark missed fails here, in the fast
tier, not only when tests/ops/test_bench.py runs it against a database (mypy checks server/ alone)."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[1] / "bench"

# Each module loaded under its own name, as `python bench/<name>.py` loads its siblings; run in a process of its own,
# since bench/run_data.py gives the process a data directory of its own and the servers' modules import Flask.
LOAD_EVERY_BENCHMARK = """
import importlib.util, sys
bench, *paths = sys.stdin.read().split()
sys.argv[1:] = []  # a module that reads its arguments as it is imported reads none
sys.path[:0] = [bench, str(__import__("pathlib").Path(bench).parent)]
for path in paths:
    name = path.rsplit("/", 1)[-1].removesuffix(".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
"""


OPENS_A_DATABASE = {"ceiling_app.py"}
"""gunicorn's app for the ceilings: it opens its pool on DATABASE_URL as it is imported."""


def test_every_benchmark_module_imports():
    scripts = sorted(str(path) for path in BENCH.glob("*.py") if path.name not in OPENS_A_DATABASE)
    loaded = subprocess.run(
        [sys.executable, "-c", LOAD_EVERY_BENCHMARK],
        input="\n".join([str(BENCH), *scripts]),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert loaded.returncode == 0, loaded.stderr[-3000:]
