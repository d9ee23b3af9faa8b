"""schemathesis's own command line, over real HTTP against gunicorn as `osmosis serve` runs it, with every
check and every phase (stateful included): the document says what the server enforces, and the server
keeps to what the document says. What JSON Schema cannot state is told to it in hooks.py and
schemathesis.toml, each with its reason."""

import os
import subprocess
import sys
from pathlib import Path

from tests.apps import free_port
from tests.databases import drop_database, migrated_database
from tests.processes import call, start_gunicorn, stop

HERE = Path(__file__).parent
SCHEMATHESIS = Path(sys.executable).with_name("st")


def test_schemathesis_with_every_check_and_phase_finds_no_failure(embedded_server_url, tmp_path):
    url = migrated_database(embedded_server_url)
    port = free_port()
    process = start_gunicorn(url, port)
    base = f"http://127.0.0.1:{port}"
    try:
        finished = call("POST", f"{base}/games", {"variant": "peek", "deal_number": 7})[1]
        call("POST", f"{base}/games/{finished['id']}/resign", token=finished["player_token"])
        played = call("POST", f"{base}/games", {"variant": "osmosis-draw-one", "deal_number": 3})[1]
        cursor = call("GET", f"{base}/games?limit=1")[1]["next_cursor"]
        result = subprocess.run(
            [
                SCHEMATHESIS,
                "--config-file",
                HERE / "schemathesis.toml",
                "run",
                f"{base}/openapi.json",
                "--checks",
                "all",
                "--phases",
                "examples,coverage,fuzzing,stateful",
                # The feed of every game never ends by design (tests/ops/test_feed_order.py follows it).
                "--exclude-operation-id",
                "streamEvents",
                "-H",
                f"Authorization: Bearer {played['player_token']}",
                "--max-examples",
                "100",
                "--seed",
                "20261124",
                "--request-timeout",
                "15",
                "--workers",
                "1",
                "--no-color",
            ],
            env={
                **os.environ,
                "SCHEMATHESIS_HOOKS": "tests.contract.hooks",
                "PYTHONPATH": str(HERE.parents[1]),
                "OSMOSIS_FINISHED_GAME": finished["id"],
                "OSMOSIS_PLAYED_GAME": played["id"],
                "OSMOSIS_CURSOR": cursor,
            },
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=900,
        )
        moves = call("GET", f"{base}/games/{played['id']}")[1]["version"]
    finally:
        stop(process)
        drop_database(embedded_server_url, url)

    summary = result.stdout[result.stdout.rfind("SUMMARY") :]
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in summary, summary
    assert " passed" in summary and "failure" not in summary and "error" not in summary, summary
    assert moves > 1  # the actions reached the rules with a real game and its token
