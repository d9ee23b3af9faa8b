"""Interoperability, proven by code nobody here wrote: Go's golang.org/x/mod/sumdb/note and sumdb/tlog (Debian's
golang-golang-x-mod-dev, built offline from GOPATH) open the checkpoint a running server publishes, recompute its
root from the served tiles, check each leaf's inclusion proof and a consistency proof, and derive the same proofs
themselves (interop/tlogcheck.go)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import psycopg
import pytest

from server.transparency.notes import generate_signer
from tests.apps import free_port
from tests.databases import drop_database, migrated_database
from tests.processes import call, start_gunicorn, stop, wait_until_sequenced

CHECKER = Path(__file__).parent / "interop" / "tlogcheck.go"
GOPATH = Path("/usr/share/gocode")
KEY = generate_signer("osmosis.test/go-interop")


@pytest.fixture(scope="module")
def tlogcheck(tmp_path_factory):
    go = shutil.which("go")
    assert go, "go is missing: scripts/install-system-packages installs golang-go"
    assert (GOPATH / "src/golang.org/x/mod/sumdb/tlog").is_dir(), (
        "golang.org/x/mod is missing: scripts/install-system-packages installs golang-golang-x-mod-dev"
    )
    build = tmp_path_factory.mktemp("go")
    env = {
        **os.environ,
        "GOPATH": str(GOPATH),
        "GO111MODULE": "off",
        "GOFLAGS": "",
        "GOPROXY": "off",
        "GOCACHE": str(build / "cache"),
        "HOME": str(build),
    }
    subprocess.run(
        [go, "build", "-o", str(build / "tlogcheck"), str(CHECKER)],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return build / "tlogcheck"


@pytest.fixture(scope="module")
def logged_server(embedded_server_url):
    """A server whose log holds past a full tile: 299 entries of games and a sealed deal, and the day's openings (so
    Go reads full, partial and level-1 tiles)."""
    url = migrated_database(embedded_server_url)
    port = free_port()
    server = start_gunicorn(url, port, LOG_SIGNING_KEY=KEY.skey, LOG_INTERVAL_MS="100")
    base = f"http://127.0.0.1:{port}"
    # Today's daily deals open with the first request that asks (or the upkeep's first turn, whichever comes first):
    # asked here, their entries come before the games', wherever the upkeep's turn falls.
    assert call("GET", f"{base}/daily")[0] == 200
    games = []
    for number in range(165):
        status, game, _ = call("POST", f"{base}/games", {"variant": "osmosis"})
        assert status == 201
        games.append(game["id"])
        if number % 5:
            assert call("POST", f"{base}/games/{game['id']}/resign", {}, game["player_token"])[0] == 200
    status, deal, _ = call("POST", f"{base}/deals", {})
    status, game, _ = call(
        "POST", f"{base}/games", {"variant": "osmosis", "sealed_deal_id": deal["id"], "client_seed": "go"}
    )
    assert status == 201
    games.append(game["id"])
    wait_until_sequenced(url)
    with psycopg.connect(url) as conn:
        size, openings = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE kind = 'daily_deal_opened') FROM log_leaves"
        ).fetchone()
    assert size == openings + 165 + 132 + 2 and openings > 0
    yield base, games, size
    stop(server)
    drop_database(embedded_server_url, url)


@pytest.mark.parametrize(("game", "old_size"), [(0, 1), (1, 2), (120, 256), (164, 257), (-1, 298)])
def test_go_sumdb_verifies_the_served_log(tlogcheck, logged_server, game, old_size):
    base, games, size = logged_server
    done = subprocess.run(
        [str(tlogcheck), base, KEY.verifier.vkey, games[game], str(old_size)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["origin"] == KEY.name and report["size"] == size
    kinds = [leaf.split(":")[1] for leaf in report["leaves"]]
    expected = {
        0: ["game_created"],
        1: ["game_created", "game_ended"],
        120: ["game_created"],
        164: ["game_created", "game_ended"],
        -1: ["deal_sealed", "game_created"],
    }[game]
    assert kinds == expected


def test_go_refuses_the_log_under_another_key(tlogcheck, logged_server):
    base, games, _ = logged_server
    impostor = generate_signer(KEY.name)
    done = subprocess.run(
        [str(tlogcheck), base, impostor.verifier.vkey, games[0], "1"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and "note.Open" in done.stderr
