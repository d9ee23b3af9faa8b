"""Competitions benchmark: a race of bots at its start, the standings and results read at scale, and the close.

Run: .venv/bin/python bench/competition.py [--entrants 1000] [--clients 32] [--limit 30] [--reads 300]
                                           [--large 10000] [--workers 2] [--lead SECONDS]
Uses DATABASE_URL if set, else the embedded PostgreSQL (in var/bench); a database of its own, through gunicorn.

1. The start: --entrants bots sign up, enter a race (limit --limit s) and, from its start, each of --clients
   threads takes its share of them: fetch the entrant's game, take its first legal action. Printed: how long after
   the start each entrant's first action was answered (p50, p99, the last), how many within 1, 2 and 5 s.
2. The close: the race's games all on at its end; how long from its end until its results are served (every game
   timed out and revealed, every entry logged, the standings rooted).
3. Reads: the standings while it runs and the results after, --reads of each, p50 and p99, for the race above and
   for a competition of --large entrants written straight into the tables (finished games, as the close leaves
   them), running then closed: read afresh (the standings are read once a second per competition and process, and
   every reader in that second shares the reading; the results are ranked once a standings root), and shared.
"""

from __future__ import annotations

import argparse
import http.client
import sys
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
import run_data  # noqa: E402, F401 -- first: this run's own OSMOSIS_DATA_DIR, and the guard of var/

from bench.load import Http, free_port, postgres_server, prepare_database, start_gunicorn, stop_servers  # noqa: E402

APP = "server.runtime.app:create_app()"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def in_threads(count: int, work: Callable[[int], None]) -> None:
    threads = [threading.Thread(target=work, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def sign_up(port: int, count: int, clients: int, kind: str) -> list[str]:
    tokens: list[str] = [""] * count

    def work(index: int) -> None:
        http = Http(port)
        for n in range(index, count, clients):
            status, body = http.call("POST", "/players", {"name": f"b{uuid.uuid4().hex[:12]}", "kind": kind})
            assert status == 201, body
            tokens[n] = body["token"]

    in_threads(clients, work)
    return tokens


def race(port: int, args: argparse.Namespace) -> str:
    http = Http(port)
    organizer = sign_up(port, 1, 1, "human")[0]
    bots = sign_up(port, args.entrants, args.clients, "bot")
    lead = args.lead or max(10.0, args.entrants / 100)
    starts_at = datetime.now(UTC) + timedelta(seconds=lead)
    status, made = http.call(
        "POST",
        "/competitions",
        {
            "name": "bench race",
            "format": "race",
            "variant": "osmosis",
            "entrants": "bot",
            "starts_at": starts_at.isoformat(),
            "limit_s": args.limit,
            "max_entrants": max(args.entrants, 1),
        },
        organizer,
    )
    assert status == 201, made
    cid = made["id"]

    def enter(index: int) -> None:
        client = Http(port)
        for token in bots[index :: args.clients]:
            answered, body = client.call("POST", f"/competitions/{cid}/entries", None, token)
            while answered == 409 and body["code"] == "not-yet-logged":  # the sign-up is not in the log yet
                time.sleep(0.2)
                answered, body = client.call("POST", f"/competitions/{cid}/entries", None, token)
            assert answered == 201, body

    began = time.perf_counter()
    in_threads(args.clients, enter)
    print(f"entries: {args.entrants:,} in {time.perf_counter() - began:.1f} s")
    if datetime.now(UTC) >= starts_at:
        raise SystemExit("the entries took longer than the lead: raise it")
    answered_at: list[float] = []
    lock = threading.Lock()
    start_mono = time.monotonic() + (starts_at - datetime.now(UTC)).total_seconds()

    def play(index: int) -> None:
        client = Http(port)
        while time.monotonic() < start_mono:
            time.sleep(0.01)
        for token in bots[index :: args.clients]:
            status, game = client.call("POST", f"/competitions/{cid}/game", None, token)
            assert status == 201, game
            action = game["legal_actions"][0]
            status, body = client.call("POST", f"/games/{game['id']}/actions", {"action": action}, token)
            assert status == 200, body
            with lock:
                answered_at.append(time.monotonic() - start_mono)

    in_threads(args.clients, play)
    within = {s: sum(t <= s for t in answered_at) for s in (1, 2, 5)}
    print(
        f"first actions answered after the start (s)  p50 {percentile(answered_at, 0.5):.2f}  "
        f"p99 {percentile(answered_at, 0.99):.2f}  last {max(answered_at):.2f}"
    )
    print(
        f"entrants whose first action was answered  within 1 s {within[1]:,}  within 2 s {within[2]:,}  "
        f"within 5 s {within[5]:,}  of {len(answered_at):,}"
    )
    reads(port, f"/competitions/{cid}/standings", args.reads, f"standings, {args.entrants:,} entrants, running")
    ends_at = starts_at + timedelta(seconds=args.limit)
    while datetime.now(UTC) < ends_at:
        time.sleep(0.05)
    ended, http = time.perf_counter(), Http(port)
    while True:
        status, _ = http.call("GET", f"/competitions/{cid}/results")
        if status == 200:
            break
        time.sleep(0.1)
    print(f"the close of {args.entrants:,} games (s)  {time.perf_counter() - ended:.1f}")
    reads(port, f"/competitions/{cid}/results", args.reads, f"results, {args.entrants:,} entrants")
    return cid


def reads(port: int, path: str, count: int, name: str, spaced: float = 0.0) -> None:
    """`count` reads one after another (`spaced` seconds apart), each timed to its body's last byte (not parsed: the
    client's own cost)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times, size = [], 0
    for _ in range(count):
        time.sleep(spaced)
        began = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        times.append(time.perf_counter() - began)
        assert response.status == 200, body[:300]
        size = len(body)
    print(
        f"{name} (ms)  p50 {1000 * percentile(times, 0.5):.1f}  p99 {1000 * percentile(times, 0.99):.1f}  "
        f"body {size / 1000:,.0f} kB"
    )


def large_field(url: str, entrants: int, closed: bool) -> str:
    """A competition of `entrants` bots with finished games, written straight into the tables."""
    cid = uuid.uuid4()
    with psycopg.connect(url, autocommit=True) as conn:
        organizer = conn.execute("SELECT id FROM players LIMIT 1").fetchone()
        assert organizer is not None
        conn.execute(
            """
            INSERT INTO competitions (id, organizer_id, name, format, variant, rules, entrants, starts_at, ends_at,
                                      limit_ms, winnable, max_entrants, hints, review_s, server_seed, commitment, deal,
                                      announced_at, entrants_count, closed_at, standings_root)
            SELECT %(id)s, %(organizer)s, 'large', 'race', 'osmosis', r.rules, 'bot', now() - interval '1 hour',
                   now() - interval '50 minutes', 600000, false, 10000, 'off', 0, decode(repeat('00', 32), 'hex'),
                   repeat('0', 64), jsonb_build_object('kind', 'competition', 'competition_id', %(id)s::text),
                   now() - interval '2 hours', %(n)s, CASE WHEN %(closed)s THEN now() END,
                   CASE WHEN %(closed)s THEN repeat('0', 64) END
            FROM (SELECT rules FROM competitions LIMIT 1) AS r
            """,
            {"id": cid, "organizer": organizer[0], "n": entrants, "closed": closed},
        )
        conn.execute(
            """
            INSERT INTO players (id, name, name_key, kind, created_at)
            SELECT md5(%(id)s::text || n)::uuid, 'l' || left(md5(%(id)s::text || n), 14),
                   'l' || left(md5(%(id)s::text || n), 14), 'bot', now()
            FROM generate_series(1, %(n)s) AS n
            """,
            {"id": cid, "n": entrants},
        )
        conn.execute(
            """
            INSERT INTO competition_entries (competition_id, player_id, entered_at, finished_status, finished_score,
                                             finished_actions, finished_elapsed_ms, finished_leaf)
            SELECT %(id)s, md5(%(id)s::text || n)::uuid, now() - interval '90 minutes',
                   CASE WHEN n %% 7 = 0 THEN 'won' ELSE 'timed_out' END, CASE WHEN n %% 7 = 0 THEN 52 ELSE n %% 40 END,
                   50 + n %% 90, 1000 * (n %% 600), sha256(convert_to(%(id)s::text || n, 'UTF8'))
            FROM generate_series(1, %(n)s) AS n
            """,
            {"id": cid, "n": entrants},
        )
        conn.execute("ANALYZE competition_entries")
    return str(cid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--large", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fresh", type=int, default=10, help="standings read afresh, a second apart")
    parser.add_argument("--lead", type=float, help="seconds from the announcement to the start (default: enough)")
    args = parser.parse_args()
    with postgres_server() as server_url:
        url = prepare_database(server_url)
        port = free_port()
        servers = {"gunicorn": start_gunicorn(APP, url, port, None, WEB_CONCURRENCY=str(args.workers))}
        try:
            race(port, args)
            for closed in (False, True):
                cid = large_field(url, args.large, closed)
                path = f"/competitions/{cid}/{'results' if closed else 'standings'}"
                what = f"{path.rsplit('/', 1)[1]}, {args.large:,} entrants"
                # Read afresh: the first reading of the results (ranked once a root), the standings once a second.
                reads(port, path, 1 if closed else args.fresh, f"{what}, read afresh", 0.0 if closed else 1.05)
                reads(port, path, args.reads, f"{what}, readers sharing a reading")
        finally:
            stop_servers(servers)


if __name__ == "__main__":
    main()
