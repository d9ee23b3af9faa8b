"""Boards benchmark: the boards and a player's page at 100,000 players and 1,000,000 games, and what recording a
finished game into the statistics costs play.

Run: .venv/bin/python bench/boards.py [--players 100000] [--games 1000000] [--reads 300]
                                      [--clients 8] [--seconds 4] [--rounds 6] [--part scale|recording]
Uses DATABASE_URL if set, else the embedded PostgreSQL (in var/bench).

1. At scale: --players players (one in ten a bot) and --games finished daily games of osmosis with their
   results and sums, written straight into the tables (one player in ten, all human, plays 46 days in a row, the
   rest 6, so that days 1 to 6 have every player on their boards and the all-time boards a tenth of the players).
   Through gunicorn, --reads reads of each: a day's board (first page, and the page after rank 50,000), the
   all-time board, a player's page, a player's games; p50 and p99 (goal: a board's first page well under 50 ms),
   and the plans of the two board queries (index scans, no sort).
2. Recording: clients play games (create, then random legal actions to the game's end, as a bot plays)
   anonymously and, in the other phase, as players (each game's result recorded by the write that ends it, then
   verified and counted by the upkeep in the same server): actions a second in each, in alternating rounds; the
   median of the rounds' ratios (goal >= 0.95), and the actions a game took.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import psycopg

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
import run_data  # noqa: E402, F401 -- first: this run's own OSMOSIS_DATA_DIR, and the guard of var/

from bench.load import (  # noqa: E402
    CpuMeter,
    Http,
    Measurement,
    free_port,
    prepare_database,
    random_action,
    run_phase,
    start_gunicorn,
    stop_servers,
    timed,
)
from server.config import Settings  # noqa: E402
from server.store import embedded, player_sql  # noqa: E402

DAY0 = "2026-01-01"
GAMES_BEGUN = {False: 0, True: 0}
APP = "server.runtime.app:create_app()"


def populate(url: str, players: int, games: int) -> None:
    """Players, their finished daily games, results and sums, as the server would have them."""
    regular = max(1, round((games / players - 4.6) / 0.9))  # 1 in 10 plays 46 days, the rest `regular`
    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            """
            INSERT INTO players (id, name, name_key, kind, created_at)
            SELECT md5('p' || n)::uuid, 'pl' || lpad(n::text, 7, '0'),
                   'pl' || translate(lpad(n::text, 7, '0'), '01', 'ol'),
                   CASE WHEN n %% 10 = 5 THEN 'bot' ELSE 'human' END, now()
            FROM generate_series(1, %(players)s) AS n
        """,
            {"players": players},
        )
        conn.execute(
            """
            INSERT INTO games (id, created_at, updated_at, rules, variant, deal, commitment, version, status, score,
                               head_hash, hints, document, player_id, daily, private_until)
            SELECT md5('g' || n || '/' || d)::uuid, day, day, '{}', 'osmosis',
                   jsonb_build_object('kind', 'daily', 'day', day::date, 'server_seed', '00', 'client_seed', ''),
                   repeat('0', 64), 90, 'lost', 0, repeat('0', 64), 0, '{}', md5('p' || n)::uuid, day::date,
                   (day::date + 1)::timestamp AT TIME ZONE 'UTC'
            FROM generate_series(1, %(players)s) AS n,
                 LATERAL generate_series(0, CASE WHEN n %% 10 = 0 THEN 45 ELSE %(regular)s - 1 END) AS d,
                 LATERAL (SELECT %(day0)s::date + d AS day) AS days
        """,
            {"players": players, "regular": regular, "day0": DAY0},
        )
        conn.execute("""
            INSERT INTO player_results (game_id, player_id, kind, variant, daily, won, score, hints, actions,
                                        started_at, ended_at, first_action_at, last_action_at, verified)
            SELECT g.id, g.player_id, p.kind, 'osmosis', g.daily, r.won, CASE WHEN r.won THEN 52 ELSE r.score END,
                   r.hints, r.actions, g.created_at, g.created_at, g.created_at,
                   g.created_at + make_interval(secs => r.seconds), true
            FROM games g JOIN players p ON p.id = g.player_id,
                 LATERAL (SELECT random() < 0.15 AS won, (random() * 51)::int AS score,
                                 (random() < 0.2)::int AS hints, 60 + (random() * 120)::int AS actions,
                                 60 + random() * 1200 AS seconds, g.id AS tie) AS r
        """)
        conn.execute(player_sql.SUM_RESULTS)
        conn.execute("ANALYZE")
        (count,) = conn.execute("SELECT count(*) FROM player_results").fetchone() or (0,)
    print(f"populated: {players:,} players, {count:,} finished games in {time.perf_counter() - started:.0f} s")


def plans(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        for name, query, parameters in (
            (
                "day's board",
                player_sql.DAILY_BOARD,
                {
                    "day": DAY0,
                    "variant": "osmosis",
                    "kind": "human",
                    "lost": False,
                    "minus_score": -53,
                    "hints": 0,
                    "actions": 0,
                    "duration": "-1 second",
                    "game_id": "00000000-0000-0000-0000-000000000000",
                    "limit": 21,
                },
            ),
            (
                "all-time board",
                player_sql.ALL_TIME_BOARD,
                {
                    "variant": "osmosis",
                    "kind": "human",
                    "min_games": 20,
                    "minus_bound": -2.0,
                    "minus_games": 0,
                    "player_id": "00000000-0000-0000-0000-000000000000",
                    "limit": 21,
                },
            ),
        ):
            rows = conn.execute("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) " + query, parameters)
            lines = [row[0] for row in rows.fetchall()]
            scans = [line.strip() for line in lines if "Scan" in line or "Sort" in line]
            print(f"plan of the {name}: {'; '.join(scans)}; {lines[-1].strip()}")


def ready(port: int) -> None:
    """Wait until every worker of the server answers: a phase must not time the workers' start."""
    client = Http(port)
    deadline = time.monotonic() + 60
    while client.call("GET", "/readyz")[0] != 200 or time.monotonic() < deadline - 55:
        if time.monotonic() > deadline:
            raise SystemExit("the server did not become ready")
        time.sleep(0.2)


def reads(port: int, count: int) -> None:
    client = Http(port)
    _, page = timed(lambda: client.call("GET", f"/boards/daily/{DAY0}?limit=20"))
    deep_cursor = None
    walked = 0
    cursor = page["next_cursor"]
    while walked < 50_000 and cursor:
        deep_cursor = cursor
        _, deep = timed(lambda cursor=cursor: client.call("GET", f"/boards/daily/{DAY0}?limit=100&cursor={cursor}"))
        walked += 100
        cursor = deep["next_cursor"]
    cases: list[tuple[str, str]] = [
        ("day's board, first page", f"/boards/daily/{DAY0}?limit=20"),
        ("day's board, rank 50,000+", f"/boards/daily/{DAY0}?limit=20&cursor={deep_cursor}"),
        ("all-time board, first page", "/boards/osmosis?limit=20"),
        ("all-time board, bots", "/boards/osmosis?kind=bot&limit=20"),
        ("a player's page", "/players/pl0000010"),
        ("a player's games", "/players/pl0000010/games?limit=20"),
    ]
    for name, path in cases:
        latencies = [timed(lambda path=path: client.call("GET", path))[0] for _ in range(count)]
        latencies.sort()
        print(
            f"{name:<28} p50 {statistics.median(latencies) * 1000:6.2f} ms   "
            f"p99 {latencies[int(len(latencies) * 0.99) - 1] * 1000:6.2f} ms   n={count}"
        )


def play_work(port: int, as_players: bool) -> Callable[[int], Callable[[], float | None]]:
    def make(index: int) -> Callable[[], float | None]:
        client, rng = Http(port), random.Random(index)
        api_token = None
        if as_players:
            name = f"bench-{uuid.uuid4().hex[:16]}"
            _, made = timed(lambda: client.call("POST", "/players", {"name": name, "kind": "bot"}), 201)
            api_token = made["token"]
        game: dict = {"status": "over"}
        token = ""

        def work() -> float | None:
            nonlocal game, token
            if game["status"] != "playing":
                _, game = timed(lambda: client.call("POST", "/games", {"variant": "osmosis"}, api_token), 201)
                token = game["player_token"]
                GAMES_BEGUN[as_players] += 1
                return None
            latency, result = random_action(client, rng, game, token)
            game = result["game"]
            return latency

        return work

    return make


def recording(url: str, clients: int, seconds: float, rounds: int) -> None:
    port = free_port()
    servers = {"server": start_gunicorn(APP, url, port, None)}
    try:
        ready(port)
        meter = CpuMeter(servers)
        anonymous, players = Measurement("anonymous games"), Measurement("players' games")
        ratios = []
        for number in range(rounds):
            order = [(anonymous, False), (players, True)] if number % 2 == 0 else [(players, True), (anonymous, False)]
            rates = {}
            for measurement, as_players in order:
                before = meter.read()
                latencies = run_phase(clients, seconds, play_work(port, as_players))
                after = meter.read()
                measurement.add(latencies, seconds, {party: after[party] - before[party] for party in after})
                rates[as_players] = len(latencies) / seconds
            ratios.append(rates[True] / rates[False])
        anonymous.report()
        players.report()
        print(
            f"actions a game: {len(anonymous.latencies) / max(1, GAMES_BEGUN[False]):.0f} anonymous, "
            f"{len(players.latencies) / max(1, GAMES_BEGUN[True]):.0f} as players"
        )
        print(
            f"players' / anonymous actions a second: median of {rounds} rounds {statistics.median(ratios):.3f} "
            f"(rounds: {', '.join(f'{r:.3f}' for r in ratios)}; overall {players.rate / anonymous.rate:.3f})"
        )
        with psycopg.connect(url, autocommit=True) as conn:
            waiting, counted = conn.execute(
                "SELECT count(*) FILTER (WHERE verified IS NULL), count(*) FILTER (WHERE verified) "
                "FROM player_results WHERE daily IS NULL"
            ).fetchone() or (0, 0)
        print(f"results of the players' games: {counted} verified and counted, {waiting} waiting at the end")
    finally:
        stop_servers(servers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--part", choices=["scale", "recording"], help="run one part only")
    args = parser.parse_args()
    settings = Settings.from_env()
    if settings.database_url is not None:
        run(settings.database_url, args)
        return
    with embedded.running(PROJECT / "var" / "bench") as server_url:
        run(server_url, args)


def run(server_url: str, args: argparse.Namespace) -> None:
    url = prepare_database(server_url)
    if args.part != "recording":
        populate(url, args.players, args.games)
        plans(url)
        port = free_port()
        servers = {"server": start_gunicorn(APP, url, port, None)}
        try:
            ready(port)
            reads(port, args.reads)
        finally:
            stop_servers(servers)
    if args.part != "scale":
        recording(prepare_database(server_url), args.clients, args.seconds, args.rounds)


if __name__ == "__main__":
    main()
