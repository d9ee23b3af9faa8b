"""A race from outside: bots over HTTP against gunicorn as deployed, on the server's real clock, then `osmosis audit
--competition` run as a stranger runs it. One deal and one commitment for all, no card before the start, the field
by log order, one game per entrant under twenty concurrent calls, the clock enforced, and the audit agreeing with the
served results."""

import subprocess
import sys
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.processes import call

OSMOSIS = Path(sys.executable).with_name("osmosis")
LIMIT_S = 5


def sign_up(base, kind="bot"):
    status, made, _ = call("POST", f"{base}/players", {"name": f"o{uuid.uuid4().hex[:10]}", "kind": kind})
    assert status == 201, made
    return made["token"]


def until_logged(request):
    """The answer once the player's sign-up is in the public log (409 not-yet-logged until then)."""
    for _ in range(100):
        status, body, headers = request()
        if not (status == 409 and body.get("code") == "not-yet-logged"):
            return status, body, headers
        time.sleep(0.1)
    raise AssertionError("the sign-up never reached the public log")


def test_bots_race_on_one_deal_and_a_stranger_audits_the_results(live_server):
    base = live_server
    organizer = sign_up(base, "human")
    bots = [sign_up(base) for _ in range(3)]
    time.sleep(1)
    starts_at = datetime.now(UTC) + timedelta(seconds=4)
    body = {"name": "outside", "format": "race", "variant": "osmosis-draw-one", "entrants": "bot"}
    status, race, headers = call(
        "POST", f"{base}/competitions", {**body, "starts_at": starts_at.isoformat(), "limit_s": LIMIT_S}, organizer
    )
    assert status == 201 and headers["Location"] == f"/competitions/{race['id']}", race
    cid = race["id"]
    late = sign_up(base)  # joined after the announcement: not in the field, whatever it tries
    for bot in bots:
        status, entered, _ = until_logged(lambda bot=bot: call("POST", f"{base}/competitions/{cid}/entries", None, bot))
        assert status == 201, entered
    status, refused, _ = until_logged(lambda: call("POST", f"{base}/competitions/{cid}/entries", None, late))
    assert (status, refused["code"]) == (403, "not-eligible")

    # Before the start: no card anywhere, and the game waits with Retry-After.
    status, early, headers = call("POST", f"{base}/competitions/{cid}/game", None, bots[0])
    assert (status, early["code"]) == (409, "not-started") and 1 <= int(headers["Retry-After"]) <= 5
    for path in ("", "/standings"):
        _, seen, _ = call("GET", f"{base}/competitions/{cid}{path}")
        assert "state" not in str(seen) and "opening" not in str(seen)

    while datetime.now(UTC) < starts_at:
        time.sleep(0.05)
    with ThreadPoolExecutor(20) as pool:
        fetched = list(pool.map(lambda _: call("POST", f"{base}/competitions/{cid}/game", None, bots[0]), range(20)))
    assert sorted(status for status, _, _ in fetched) == [200] * 19 + [201]
    assert len({game["id"] for _, game, _ in fetched}) == 1
    games = [fetched[0][1]] + [call("POST", f"{base}/competitions/{cid}/game", None, bot)[1] for bot in bots[1:]]
    assert len({str(game["state"]) for game in games}) == 1 and {g["commitment"] for g in games} == {race["commitment"]}

    # Each bot plays its first legal action until its game ends or its clock runs out: then nothing more is taken.
    stopped = []
    for bot, game in zip(bots, games, strict=True):
        while game["status"] == "playing":
            status, answer, _ = call(
                "POST", f"{base}/games/{game['id']}/actions", {"action": game["legal_actions"][0]}, bot
            )
            if status == 409 and answer["code"] == "clock-expired":
                stopped.append("clock")
                break
            assert status == 200, answer
            game = answer["game"]
            time.sleep(0.05)
        else:
            stopped.append(game["status"])
    assert all(reason in ("clock", "won", "lost") for reason in stopped)

    for _ in range(200):
        status, results, _ = call("GET", f"{base}/competitions/{cid}/results")
        if status == 200:
            break
        time.sleep(0.1)
    assert status == 200, results
    assert [row["rank"] for row in results["results"]] == [1, 2, 3]
    assert all(row["elapsed_ms"] <= LIMIT_S * 1000 for row in results["results"])
    for row in results["results"]:
        _, verdict, _ = call("GET", f"{base}{row['links']['verification']}")
        assert verdict["valid"] and verdict["complete"], verdict

    with urllib.request.urlopen(f"{base}/log/key") as response:
        key = response.read().decode().strip()
    for _ in range(40):  # the close's entry into a signed checkpoint: the sequencer's next turn
        audited = subprocess.run(
            [str(OSMOSIS), "audit", base, "--log-key", key, "--competition", cid],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if "has not closed in the log" not in audited.stdout:
            break
        time.sleep(0.25)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert audited.stdout.startswith(f"OK: competition {cid}: 3 entrants, 3 games verified")
    assert results["standings_root"] in audited.stdout
