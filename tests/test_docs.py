"""The documents a third party builds on say what the code does."""

import json
import re
import subprocess
from pathlib import Path

from server.log.events import EVENT_KINDS
from server.rules import LOST_FRUITLESS_PASS, LOST_NO_ACTION, RESIGNED, WON

DOCS = Path(__file__).parents[1] / "docs"


def test_the_replay_format_names_every_event_kind_and_the_exact_end_reasons():
    text = " ".join((DOCS / "replay-format.md").read_text().split())

    for kind in EVENT_KINDS:
        assert f"`{kind}`" in text
    for outcome in (WON, LOST_NO_ACTION, LOST_FRUITLESS_PASS, RESIGNED):
        assert f'"{outcome.reason}"' in text


def test_the_api_guide_lists_every_operation():
    document = json.loads((Path(__file__).parents[1] / "openapi" / "openapi.json").read_text())
    guide = (DOCS / "api.md").read_text()

    for item in document["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and "operationId" in operation:
                assert f"`{operation['operationId']}`" in guide


def test_the_readme_examples_leave_no_files_in_the_checkout():
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    blocks = readme.split("```sh")[1:]
    commands = "\n".join(block.split("```")[0] for block in blocks)

    assert "curl" in commands
    assert re.search(r"\btee\b|>\s*[\w.-]+\.json|-o\s+[\w.-]+", commands) is None, commands


def test_what_the_api_guide_s_sdk_generators_write_in_the_checkout_is_ignored_by_git():
    """The guide runs both generators in the checkout: their output is the reader's, never a change to commit."""
    root = Path(__file__).parents[1]
    guide = (root / "docs" / "api.md").read_text()
    written = ["osmosis-game-server-client/osmosis_game_server_client/client.py", "api.d.ts"]
    assert "openapi-python-client generate --path openapi/openapi.json --meta setup" in guide
    assert "npx openapi-typescript openapi/openapi.json --output api.d.ts" in guide
    checked = subprocess.run(["git", "check-ignore", *written], cwd=root, capture_output=True, text=True)
    assert checked.stdout.split() == written, checked.stdout
