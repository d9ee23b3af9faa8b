"""The README's examples, run as a new user runs them: every curl line of "Playing with curl" against gunicorn on
a fresh database, top to bottom, each answered with a 2xx (curl --fail-with-body), the stream cut after a while."""

import subprocess
from pathlib import Path

from tests.apps import gunicorn_on_a_new_database

PROJECT = Path(__file__).resolve().parents[2]

CURL_FAILS = """
curl() {
  local status=0
  command curl --fail-with-body --max-time 20 "$@" || status=$?
  # A stream runs until it is stopped: cut after its time, it has shown what it shows.
  if [ "$status" -eq 28 ] && [[ " $* " == *" -sN "* ]]; then return 0; fi
  if [ "$status" -ne 0 ]; then echo "curl $* failed ($status)" >&2; fi
  return "$status"
}
"""


def curl_examples() -> str:
    readme = (PROJECT / "README.md").read_text()
    section = readme.split("## Playing with curl", 1)[1].split("\n## ", 1)[0]
    return section.split("```sh\n", 1)[1].split("```", 1)[0]


def test_the_curl_examples_run_top_to_bottom_and_every_request_succeeds(embedded_server_url, tmp_path):
    with gunicorn_on_a_new_database(embedded_server_url, LOG_INTERVAL_MS="100") as (base, _):
        examples = curl_examples().replace("localhost:8000", base.removeprefix("http://"))
        # A pasted block must come back by itself: each stream says how long it runs.
        assert all("--max-time" in line for line in examples.splitlines() if "curl -sN" in line), examples
        script = tmp_path / "readme.sh"
        script.write_text("set -euo pipefail\n" + CURL_FAILS + examples)
        done = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=600, cwd=PROJECT)

    assert done.returncode == 0, f"{done.stderr[-3000:]}\n{done.stdout[-3000:]}"
    assert "VALID" in done.stdout
