"""Failover drills on a real cluster: three PostgreSQL nodes under Patroni with strict synchronous replication, etcd,
and gunicorn as deployed on the libpq multi-host URL. Each drill plays under load, makes a fault, and then checks
what the clients were told against what the new primary has: no acknowledged action lost, every game verifying, no
answer but 503 from the server's side, no two checkpoints the log's own consistency proofs cannot join.

The cluster starts once for the module; a drill leaves it healthy again for the next.
"""

import json
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import psycopg
import pytest

from server.client.api import Api, ApiError, Unreachable
from server.client.sse import messages
from server.runtime.app import REPLICA_CONNECTION_LIFETIME
from server.store import migrate
from server.transparency.notes import generate_signer
from tests.apps import free_port
from tests.load import Checkpoints, Load, assert_every_2xx_is_in_the_log, assert_every_game_verifies, text_of
from tests.patroni_cluster import LEASE_SECONDS, PatroniCluster
from tests.processes import call, start_gunicorn, stop
from tests.waiting import until

pytestmark = [pytest.mark.cluster, pytest.mark.drill]

STATEMENT_TIMEOUT_MS = 2000
LOG_TURN_SECONDS = 0.2
"""How often the server's log sequences and signs (its LOG_INTERVAL_MS)."""
ETCD_OUTAGE_SECONDS = 30
LOG_KEY = generate_signer("drill.example/log").skey
APP = "osmosis_app"
"""The servers' role, as deployed: it reads and writes the tables, and changes no schema."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[PatroniCluster]:
    cluster = PatroniCluster()
    try:
        cluster.start()
        cluster.create_database_as_deployed()  # deploy/patroni/roles.sql: an owner migrates, the servers only write
        migrate.upgrade(cluster.database_url("osmosis", user="osmosis_owner"))
        yield cluster
    finally:
        cluster.stop()
        cluster.remove()


@pytest.fixture(scope="module")
def server(cluster: PatroniCluster) -> Iterator[str]:
    port = free_port()
    process = start_gunicorn(
        cluster.database_url("osmosis", user=APP),
        port,
        STATEMENT_TIMEOUT_MS=str(STATEMENT_TIMEOUT_MS),
        POOL_TIMEOUT_MS="1000",
        LOG_INTERVAL_MS=str(int(LOG_TURN_SECONDS * 1000)),
        LOG_SIGNING_KEY=LOG_KEY,
        READ_DATABASE_URL=cluster.database_url("osmosis", attrs="prefer-standby", user=APP),
    )
    yield f"http://127.0.0.1:{port}"
    stop(process)


@pytest.fixture(autouse=True)
def healthy_again(cluster: PatroniCluster) -> Iterator[None]:
    """Every node running and streaming before a drill, and again after it."""
    cluster.wait_until_healthy()
    yield
    if cluster.etcd is not None and cluster.etcd.poll() is not None:
        cluster.start_etcd()
    for node in cluster.nodes:
        if node.process is None or node.process.poll() is not None:
            cluster.start_node(node)
    cluster.wait_until_healthy(seconds=120)


def test_the_servers_role_reads_and_writes_the_tables_and_changes_no_schema(cluster, server):
    app_url = cluster.database_url("osmosis", user=APP)
    migrate.upgrade(app_url)  # at head: a look at the version, nothing to change (deploy/entrypoint.sh runs it)
    with psycopg.connect(app_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone() is not None
        assert conn.execute(
            "SELECT rolsuper OR rolcreatedb OR rolcreaterole FROM pg_roles WHERE rolname = current_user"
        )
        for statement in (
            "CREATE TABLE intruder (id int)",
            "DROP TABLE games",
            "ALTER TABLE game_events DISABLE TRIGGER ALL",
            "TRUNCATE game_events",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        privileged = conn.execute(
            "SELECT rolsuper OR rolcreatedb OR rolcreaterole FROM pg_roles WHERE rolname = current_user"
        ).fetchone()
        assert privileged == (False,)
    assert call("GET", f"{server}/readyz")[1]["writes"] == "ok", "pg_monitor: it sees its synchronous standby"


class KeyedPlayer:
    """A client as the project's own clients are (server/client: every POST with an Idempotency-Key, a 503 sent
    again after its Retry-After with the same key), creating games of a variant no other client here plays while it
    runs, and keeping every answer it was given."""

    VARIANT = "bridesmaids"

    def __init__(self, base: str) -> None:
        self.api = Api(base, timeout=10, patience=60)
        self.games: set[str] = set()
        self.answered: list[tuple[str, int, str]] = []  # (game id, seq, hash) of events it was answered
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._play)

    def _play(self) -> None:
        game: dict = {"status": "over"}
        while not self._stop.is_set():
            try:
                if game["status"] != "playing":
                    game = self.api.post("/games", {"variant": self.VARIANT})
                    self.games.add(game["id"])
                    continue
                # A few draws, then a resignation: many short games, so that many creations meet the fault.
                kind = "resign" if game["version"] >= 4 else "draw"
                answer = self.api.post(f"/games/{game['id']}/{kind}", {}, game["player_token"])
                token, game = game["player_token"], answer["game"]
                game["player_token"] = token
                self.answered += [(game["id"], event["seq"], event["hash"]) for event in answer["events"]]
            except ApiError as error:
                self.failures.append(f"{error.status} {error.code}")
                game = {"status": "over"}
            except Unreachable as error:
                self.failures.append(str(error))
            time.sleep(0.05)

    def __enter__(self) -> "KeyedPlayer":
        self.since = datetime.now(UTC)  # the server's clock is this machine's
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=120)

    def assert_each_answer_landed_once(self, url: str) -> None:
        """Every game it was answered exists, and no other of its variant: a creation retried with its key after
        its first outcome was lost made one game, never two; every event it was answered is in the log."""
        assert not self.failures, self.failures[:5]
        assert len(self.games) > 1, "too little was played to tell"
        with psycopg.connect(url) as conn:
            query = "SELECT id FROM games WHERE variant = %s AND created_at >= %s"
            made = {str(row[0]) for row in conn.execute(query, (self.VARIANT, self.since))}
            assert made == self.games, (
                f"{len(made - self.games)} made but never answered, {len(self.games - made)} lost"
            )
            for game_id, seq, hash_ in self.answered:
                row = conn.execute(
                    "SELECT hash FROM game_events WHERE game_id = %s AND seq = %s", (game_id, seq)
                ).fetchone()
                assert row is not None and row[0] == hash_, f"event {seq} of {game_id} answered but not in the log"


def back_after(load: Load, fault: float) -> float:
    """Seconds from the fault to the first 2xx answer to a request sent after it."""
    deadline = time.monotonic() + 60
    while True:
        with load.lock:
            answered = [when + seconds for when, seconds, status, _ in load.answers if when >= fault and status < 300]
        if answered:
            return min(answered) - fault
        assert time.monotonic() < deadline, f"the service did not come back: {load.answers[-10:]}, {load.errors[-5:]}"
        time.sleep(0.2)


def assert_only_503s_went_wrong(load: Load) -> None:
    assert not load.errors, f"requests without an answer (a hang past the client's timeout?): {load.errors[:5]}"
    wrong = sorted({(status, code) for _, _, status, code in load.answers if status >= 500 and status != 503})
    assert not wrong, f"answers other than 503 from the server's side: {wrong}"
    longest = max(seconds for _, seconds, _, _ in load.answers)
    assert longest < 10, f"a request took {longest:.1f} s"


def assert_nothing_lost(cluster: PatroniCluster, base: str, load: Load) -> None:
    assert sum(1 for answer in load.answers if answer[2] == 200) > 20, "too little was played to tell"
    url = cluster.database_url("osmosis")
    assert_every_2xx_is_in_the_log(url, load)
    assert_every_game_verifies(base, url)


def survive(cluster: PatroniCluster, base: str, fault: Callable[[], object], within: float) -> None:
    """Play under load (and with a keyed client), make the fault, and check what every client was told: the
    service back within `within` seconds, nothing but 503s gone wrong, nothing lost, nothing made twice, and every
    checkpoint published a prefix of the newest."""
    with Checkpoints(base) as checkpoints, Load(base) as load, KeyedPlayer(base) as keyed:
        time.sleep(3)
        started = time.monotonic()
        fault()
        back = back_after(load, started)
        time.sleep(3)
    assert back < within, f"the service came back {back:.1f} s after the fault"
    assert_only_503s_went_wrong(load)
    assert_nothing_lost(cluster, base, load)
    keyed.assert_each_answer_landed_once(cluster.database_url("osmosis"))
    checkpoints.assert_consistent()


def test_the_primary_s_postmaster_killed_under_load(cluster, server):
    # Patroni starts it again in place (crash recovery), keeping its lease.
    survive(cluster, server, lambda: cluster.kill_postmaster(cluster.leader()), within=10)


def test_the_primary_s_machine_gone_under_load_fails_over_to_the_synchronous_standby(cluster, server):
    leader = cluster.leader()
    # Patroni waits out the old leader's lease before another node may take it: the failover's floor.
    survive(cluster, server, lambda: cluster.kill_node(leader), within=LEASE_SECONDS + 7)
    assert cluster.leader() is not leader


def test_a_planned_switchover_costs_no_more_than_503s(cluster, server):
    leader, candidate = cluster.leader(), cluster.sync_standbys()[0]

    def switchover() -> None:
        cluster.switchover(leader, candidate)
        assert cluster.wait_for_new_leader(leader) is candidate

    survive(cluster, server, switchover, within=10)


def test_with_no_standby_left_writes_get_503_and_nothing_unreplicated_is_acknowledged(cluster, server):
    leader = cluster.leader()
    standbys = [node for node in cluster.nodes if node is not leader]
    game = call("POST", f"{server}/games", {"variant": "osmosis-draw-one"})[1]
    with Checkpoints(server) as checkpoints, Load(server) as load:
        time.sleep(2)
        for node in standbys:
            cluster.kill_node(node)
        alone = time.monotonic()
        time.sleep(3 * STATEMENT_TIMEOUT_MS / 1000)
        reads = [call("GET", f"{server}/games/{game['id']}")[0] for _ in range(5)]
        readiness = call("GET", f"{server}/readyz")
        creation = call("POST", f"{server}/games", {"variant": "peek"})
        # The draw commits on the primary with its reply kept, and no standby confirms it: its retries with the same
        # key must not be answered that kept reply (issue 50: a barrier that waited for nothing answered 200).
        keyed = {"Idempotency-Key": "drawn-while-alone"}
        draw = f"{server}/games/{game['id']}/draw"
        draws = [call("POST", draw, {}, game["player_token"], headers=keyed) for _ in range(3)]
        back = time.monotonic()
        for node in standbys:
            cluster.start_node(node)
        cluster.wait_until_healthy(seconds=120)
        time.sleep(2)
    # A commit in flight when the standbys went may have reached one: from a margin after, none can, until they are
    # started again (a request still waiting then is acknowledged once they have it).
    unreplicated = [
        (status, round(when - alone, 1), round(seconds, 1))
        for when, seconds, status, _ in load.answers
        if alone + 1 < when and when + seconds < back and status < 300
    ]
    assert not unreplicated, f"acknowledged with no standby to replicate to: {unreplicated[:5]}"
    assert creation[0] == 503 and creation[2].get("Retry-After"), creation[:2]
    assert [draw[0] for draw in draws] == [503] * 3, [draw[:2] for draw in draws]
    settled = call("POST", draw, {}, game["player_token"], headers=keyed)
    assert settled[0] == 200 and settled[1]["game"]["version"] == 2, settled[:2]
    assert reads == [200] * 5, "reads stop with the standbys"
    assert readiness[0] == 200, readiness[1]
    assert readiness[1]["writes"].startswith("waiting for a synchronous standby"), readiness[1]
    assert_only_503s_went_wrong(load)
    assert_nothing_lost(cluster, server, load)
    checkpoints.assert_consistent()


def served_size(base: str) -> int:
    status, text = text_of(f"{base}/log/checkpoint")
    return int(text.split("\n")[1]) if status == 200 else 0


def test_a_checkpoint_committed_while_no_standby_confirms_it_is_handed_out_once_they_are_back(cluster, server):
    """The sequencer's commit that no standby confirmed (the statement timeout ends the wait, PostgreSQL has committed
    it all the same) is an unknown outcome: once a standby has it, the log hands it out within two of its turns, with
    nothing else written to set it going."""
    leader = cluster.leader()
    standbys = [node for node in cluster.nodes if node is not leader]
    with psycopg.connect(cluster.database_url("osmosis"), autocommit=True) as conn:

        def latest() -> int:
            return conn.execute("SELECT coalesce(max(size), 0) FROM log_checkpoints").fetchone()[0]

        def pending() -> int:
            return conn.execute("SELECT count(*) FROM log_pending").fetchone()[0]

        until(lambda: pending() == 0 and served_size(server) == latest(), seconds=10)
        for node in standbys:
            cluster.kill_node(node)
        for variant in ("peek", "bridesmaids"):  # committed on the primary alone, answered 503
            assert call("POST", f"{server}/games", {"variant": variant}, timeout=30)[0] == 503
        until(lambda: pending() == 0 and latest() > served_size(server), seconds=30)  # signed, not handed out
        held = latest()
        for node in standbys:
            cluster.start_node(node)
        cluster.wait_until_healthy(seconds=120)
        back = time.monotonic()
        until(lambda: served_size(server) >= held, seconds=30)
        handed_out = time.monotonic() - back
        readiness = call("GET", f"{server}/readyz")

    assert handed_out <= 2 * LOG_TURN_SECONDS + 1.0, f"handed out {handed_out:.1f} s after the standbys were back"
    assert readiness[0] == 200 and readiness[1]["log"] == "ok", readiness[1]


def test_etcd_gone_for_30_seconds_keeps_the_primary_and_the_server_serving(cluster, server):
    leader = cluster.leader()
    with Checkpoints(server) as checkpoints, Load(server) as load:
        time.sleep(2)
        cluster.stop_etcd()
        gone = time.monotonic()
        readiness = []
        while time.monotonic() < gone + ETCD_OUTAGE_SECONDS:
            status, body, _ = call("GET", f"{server}/readyz")
            readiness.append((status, body.get("writes")))
            time.sleep(1)
        back = time.monotonic()
        cluster.start_etcd()
        cluster.wait_until_healthy(seconds=120)
        time.sleep(2)
    # failsafe_mode: a primary that reaches every other node's Patroni stays the primary without etcd.
    assert cluster.leader() is leader
    played = [status for when, _, status, _ in load.answers if gone + 1 < when < back - 1]
    assert played.count(200) > 20 and set(played) <= {200, 201, 409, 503}, sorted(set(played))
    assert readiness == [(200, "ok")] * len(readiness), readiness
    assert_only_503s_went_wrong(load)
    assert_nothing_lost(cluster, server, load)
    checkpoints.assert_consistent()


def test_replicas_whose_replay_is_paused_serve_nothing_stale(cluster, server):
    leader = cluster.leader()
    standbys = [node for node in cluster.nodes if node is not leader]
    played = call("POST", f"{server}/games", {"variant": "osmosis-draw-one"})[1]
    # A drill before may have left the replica pool on the primary (prefer-standby, while no standby answered):
    # its connections are renewed every 30 s.
    deadline = time.monotonic() + REPLICA_CONNECTION_LIFETIME + 30
    while not any(_reading_clients(node) for node in standbys):
        assert time.monotonic() < deadline, "the server reads nothing from its replicas"
        call("GET", f"{server}/games/{played['id']}/events")
        call("GET", f"{server}/games?limit=5")
        time.sleep(0.5)

    cluster.maintenance(on=True)  # or Patroni resumes the replay within its loop
    for node in standbys:
        _sql(node, "SELECT pg_wal_replay_pause()")
    try:
        # A pause is taken at the next WAL record replayed: one is written, and both standbys stop before it.
        deadline = time.monotonic() + 30
        while any(_sql(node, "SELECT pg_get_wal_replay_pause_state()") != "paused" for node in standbys):
            assert time.monotonic() < deadline, "replay did not pause"
            _sql(leader, "SELECT pg_current_xact_id()")
            time.sleep(0.2)
        game = call("POST", f"{server}/games", {"variant": "osmosis-draw-one"})[1]
        token = game["player_token"]
        for _ in range(3):
            game = call("POST", f"{server}/games/{game['id']}/draw", {}, token)[1]["game"]
        version = game["version"]

        events = call("GET", f"{server}/games/{game['id']}/events?limit=100")[1]
        state = call("GET", f"{server}/games/{game['id']}/states/{version}")
        replay = call("GET", f"{server}/games/{game['id']}/replay")[1]
        listed = call("GET", f"{server}/games?limit=5")[1]
        verdict = call("GET", f"{server}/games/{game['id']}/verification")[1]
        readiness = call("GET", f"{server}/readyz")[1]
        stale = _sql(standbys[0], "SELECT count(*) FROM games WHERE id = %s", game["id"])
    finally:
        for node in standbys:
            _sql(node, "SELECT pg_wal_replay_resume()")
        cluster.maintenance(on=False)

    assert stale == 0, "the replica was not behind: the drill proves nothing"
    assert [event["seq"] for event in events["events"]] == list(range(1, version + 1))
    assert state[0] == 200, state[1]
    assert len(replay["events"]) == version
    assert listed["games"][0]["id"] == game["id"]
    assert verdict["valid"] is True
    assert readiness["reads"] == "primary: the replicas are behind", readiness


def test_replicas_whose_replay_stalls_list_nothing_older_than_what_their_reader_wrote(cluster, server):
    """Issue 50: a standby whose replay is held back (here its startup process stopped: the stream goes on, received
    and flushed, so synchronous commits go on too) still streams and looks a few bytes behind; lists read there were
    stale for seconds. Every list now reads every write acknowledged before it."""
    leader = cluster.leader()
    standbys = [node for node in cluster.nodes if node is not leader]
    _reading_from_the_replicas(server, standbys)
    replayers = [
        int(_sql(node, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'startup'")) for node in standbys
    ]
    stale = []
    for pid in replayers:
        os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(0.5)
        for _ in range(3):
            game = call("POST", f"{server}/games", {"variant": "osmosis-draw-one"})[1]
            listed = call("GET", f"{server}/games?limit=5")[1]["games"]
            if not listed or listed[0]["id"] != game["id"]:
                stale.append(("created", game["id"], [g["id"] for g in listed[:1]]))
            assert call("POST", f"{server}/games/{game['id']}/resign", {}, game["player_token"])[0] == 200
            listed = call("GET", f"{server}/games?limit=5")[1]["games"]
            if not listed or listed[0]["status"] != "resigned":
                stale.append(("resigned", game["id"], [g["status"] for g in listed[:1]]))
        readiness = call("GET", f"{server}/readyz")[1]
        metrics = text_of(f"{server}/metrics")[1]
        lacking = _sql(standbys[0], "SELECT count(*) FROM games WHERE id = %s", game["id"])
        behind_by = _sql(standbys[0], "SELECT pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())")
    finally:
        for pid in replayers:
            os.kill(pid, signal.SIGCONT)

    assert lacking == 0, "the replica had replayed the writes: the drill proves nothing"
    assert behind_by < 1 << 20, f"replay {behind_by} bytes behind: more than REPLICA_MAX_LAG_BYTES, caught before"
    assert not stale, stale
    assert readiness["reads"].startswith("primary: the replicas have not replayed the latest writes"), readiness
    assert 'osmosis_reads_on_the_primary_total{read="list_games"}' in metrics


def _reading_from_the_replicas(server: str, standbys: list) -> None:
    """Until the server's replica pool reads from a standby: a drill before may have left it on the primary
    (prefer-standby, while no standby answered); its connections are renewed every 30 s."""
    deadline = time.monotonic() + REPLICA_CONNECTION_LIFETIME + 30
    while not any(_reading_clients(node) for node in standbys):
        assert time.monotonic() < deadline, "the server reads nothing from its replicas"
        call("GET", f"{server}/games?limit=5")
        time.sleep(0.5)


def _sql(node, query: str, *params: object) -> object:
    with psycopg.connect(node.url("osmosis"), autocommit=True, connect_timeout=5) as conn:
        return conn.execute(query, params or None).fetchone()[0]


def _reading_clients(node) -> int:
    return int(
        _sql(node, "SELECT count(*) FROM pg_stat_activity WHERE datname = 'osmosis' AND pid <> pg_backend_pid()")
    )


class Follower:
    """A reader of a server-sent event stream that reconnects with Last-Event-ID whenever the stream breaks, as an
    EventSource does, and keeps every event message it read."""

    def __init__(self, base: str, path: str) -> None:
        self.api = Api(base, timeout=10)
        self.path = path
        self.received: list[dict] = []
        self.reconnects = 0
        self._last_id: str | None = None
        self._stream = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow)

    def _follow(self) -> None:
        while not self._stop.is_set():
            try:
                headers = {} if self._last_id is None else {"Last-Event-ID": self._last_id}
                self._stream = self.api.open_stream(self.path, headers)
                for message in messages(self._stream):
                    if message.event != "game":
                        self.received.append(json.loads(message.data))
                        self._last_id = message.id
            except Exception:  # the stream broke, or was refused (503) while the database changed primary
                pass
            if not self._stop.is_set():
                self.reconnects += 1
                time.sleep(0.5)

    def __enter__(self) -> "Follower":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._stream is not None:
            self._stream.close()
        self._thread.join(timeout=30)


def test_followers_of_a_game_and_of_every_game_miss_and_repeat_nothing_across_a_failover(cluster, server):
    leader = cluster.leader()
    game = call("POST", f"{server}/games", {"variant": "osmosis-draw-one"})[1]
    token = game["player_token"]
    with (
        Follower(server, "/events/stream") as everything,
        Follower(server, f"/games/{game['id']}/events/stream") as one,
    ):
        time.sleep(1)
        with Load(server) as load:
            time.sleep(2)
            cluster.kill_node(leader)
            cluster.wait_for_new_leader(leader)
            back_after(load, time.monotonic())
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:  # the followed game goes on after the failover too
                status, body, _ = call("POST", f"{server}/games/{game['id']}/draw", {}, token)
                if status == 200 and body["game"]["status"] != "playing":
                    break
                time.sleep(0.2)
        time.sleep(3)  # the last events reach the followers

    with psycopg.connect(cluster.database_url("osmosis")) as conn:
        versions = dict(conn.execute("SELECT id::text, version FROM games").fetchall())
    followed = [event["seq"] for event in one.received]
    assert followed == list(range(1, versions[game["id"]] + 1)), f"{one.reconnects} reconnects: {followed}"

    seen: dict[str, list[int]] = {}
    for event in everything.received:
        seen.setdefault(event["game_id"], []).append(event["seq"])
    assert len(seen) > 3, "too little was played to tell"
    for game_id, seqs in seen.items():
        assert seqs == list(range(seqs[0], versions[game_id] + 1)), f"{game_id}: {seqs} of {versions[game_id]}"


def test_behind_haproxy_the_server_fails_over_with_the_cluster(cluster):
    primary_port, replicas_port = cluster.start_haproxy()
    port = free_port()
    process = start_gunicorn(
        f"postgresql://{APP}@127.0.0.1:{primary_port}/osmosis?connect_timeout=2",
        port,
        STATEMENT_TIMEOUT_MS=str(STATEMENT_TIMEOUT_MS),
        POOL_TIMEOUT_MS="1000",
        LOG_INTERVAL_MS="200",
        LOG_SIGNING_KEY=LOG_KEY,  # every instance signs the one log with the one key
        READ_DATABASE_URL=f"postgresql://{APP}@127.0.0.1:{replicas_port}/osmosis?connect_timeout=2",
    )
    base = f"http://127.0.0.1:{port}"
    try:
        leader = cluster.leader()
        survive(cluster, base, lambda: cluster.kill_node(leader), within=LEASE_SECONDS + 7)
    finally:
        stop(process)
