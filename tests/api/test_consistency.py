"""The log's guarantees: races, the projection equal to the fold, the chain, append-only, read-only GETs."""

import hashlib
import random
from contextlib import contextmanager
from uuid import UUID

import psycopg
import pytest

from server.game.commands import Draw
from server.game.errors import VersionConflict
from server.log.events import Event, chain_hash, fold
from server.rules import layout, opening, parse_rules, public_view, shuffled_deck, to_text
from server.runtime.app import create_app
from server.runtime.composition import compose
from server.store import PostgresStore, migrate, open_pool
from tests.api.helpers import create, play, run_together


def test_of_two_racing_actions_on_the_same_version_exactly_one_wins(app, db):
    client = app.test_client()
    for attempt in range(10):
        game, token = create(client, deal_number=attempt)

        url = f"/games/{game['id']}/draw"
        statuses = run_together(
            2,
            lambda i, url=url, token=token: (
                app.test_client().post(url, json={"expected_version": 1}, headers=token).status_code
            ),
        )

        assert sorted(statuses) == [200, 412]
        seqs = [
            row[0] for row in db.execute("SELECT seq FROM game_events WHERE game_id = %s ORDER BY seq", (game["id"],))
        ]
        assert seqs == [1, 2]


def test_racing_actions_without_a_version_all_land_with_no_gap_and_no_duplicate(app, db):
    client = app.test_client()
    game, token = create(client, variant="osmosis-draw-one", deal_number=11)

    statuses = run_together(6, lambda i: app.test_client().post(f"/games/{game['id']}/draw", headers=token).status_code)

    assert statuses == [200] * 6
    seqs = [row[0] for row in db.execute("SELECT seq FROM game_events WHERE game_id = %s ORDER BY seq", (game["id"],))]
    assert seqs == list(range(1, 8))
    assert client.get(f"/games/{game['id']}").get_json()["state"]["stock_count"] == 35 - 6


def test_racing_retries_with_one_idempotency_key_append_once(app, db):
    client = app.test_client()
    game, token = create(client)
    headers = {**token, "Idempotency-Key": "race-key"}

    bodies = run_together(4, lambda i: app.test_client().post(f"/games/{game['id']}/draw", headers=headers).get_json())

    assert all(body == bodies[0] for body in bodies)
    assert db.execute("SELECT max(seq) FROM game_events WHERE game_id = %s", (game["id"],)).fetchone()[0] == 2


class RacedStore:
    """The real store, except that another request's action lands right after the first read: between this
    action's read and its write, the one moment an optimistic write can lose. `decided_at` has the version of
    every game the action was decided on, read or locked."""

    def __init__(self, store, race):
        self._store = store
        self._race = race
        self.decided_at = []

    def __getattr__(self, name):
        return getattr(self._store, name)

    def load_for_action(self, game_id):
        game, secret = self._store.load_for_action(game_id)
        if not self.decided_at:
            self._race()
        self.decided_at.append(game.version)
        return game, secret

    @contextmanager
    def locked_game(self, game_id):
        with self._store.locked_game(game_id) as locked:
            self.decided_at.append(locked.game.version)
            yield locked


def test_an_action_that_loses_the_race_without_a_version_decides_again_and_lands_after_the_winner(app, store, db):
    client = app.test_client()
    game, token = create(client, variant="osmosis-draw-one", deal_number=11)
    bearer = token["Authorization"].removeprefix("Bearer ")
    raced = RacedStore(store, lambda: client.post(f"/games/{game['id']}/draw", headers=token))

    result = compose(raced).acting.handle(Draw(UUID(game["id"]), bearer))

    assert raced.decided_at == [1, 2]
    assert result.outcome.game.version == 3
    assert [event.seq for event in result.outcome.events] == [3]
    seqs = [row[0] for row in db.execute("SELECT seq FROM game_events WHERE game_id = %s ORDER BY seq", (game["id"],))]
    assert seqs == [1, 2, 3]
    assert client.get(f"/games/{game['id']}").get_json()["state"]["stock_count"] == 35 - 2


def test_an_action_that_loses_the_race_with_its_version_stated_is_refused_and_writes_nothing(app, store, db):
    client = app.test_client()
    game, token = create(client, variant="osmosis-draw-one", deal_number=12)
    bearer = token["Authorization"].removeprefix("Bearer ")
    raced = RacedStore(store, lambda: client.post(f"/games/{game['id']}/draw", headers=token))

    with pytest.raises(VersionConflict, match="at version 2, not 1"):
        compose(raced).acting.handle(Draw(UUID(game["id"]), bearer, versions=frozenset({1})))

    assert raced.decided_at == [1, 2]
    seqs = [row[0] for row in db.execute("SELECT seq FROM game_events WHERE game_id = %s ORDER BY seq", (game["id"],))]
    assert seqs == [1, 2]


def stored_game(db, game_id):
    events = [
        Event(*row)
        for row in db.execute(
            "SELECT seq, kind, data, hash FROM game_events WHERE game_id = %s ORDER BY seq", (game_id,)
        )
    ]
    seed, client_seed, state_text = db.execute(
        "SELECT server_seed, client_seed, state FROM game_secrets WHERE game_id = %s", (game_id,)
    ).fetchone()
    document, head_hash, version, commitment = db.execute(
        "SELECT document, head_hash, version, commitment FROM games WHERE id = %s", (game_id,)
    ).fetchone()
    return events, bytes(seed), client_seed, state_text, document, head_hash, version, commitment


@pytest.mark.parametrize(
    "variant",
    ["osmosis", "osmosis-strict-waste", "osmosis-ablage", "peek-till-dawn", "bridesmaids", "osmosis-three-passes"],
)
def test_the_projection_always_equals_the_fold_of_the_log(client, db, variant):
    rng = random.Random(variant)
    for _ in range(3):
        game, token = create(client, variant=variant)
        game = play(client, game, token, rng, steps=rng.randint(5, 400))

        events, seed, client_seed, state_text, document, head_hash, version, _ = stored_game(db, game["id"])
        rules = parse_rules(variant)
        folded = fold(opening(rules, layout(shuffled_deck(seed, client_seed), rules)), events)

        assert to_text(folded) == state_text
        assert public_view(folded) == document["state"] == game["state"]
        assert document == game
        assert version == events[-1].seq == game["version"]
        assert head_hash == events[-1].hash


def test_the_events_form_a_hash_chain_from_the_commitment(client, db):
    game, token = create(client, variant="peek", deal_number=5)
    play(client, game, token, random.Random(5), steps=60)

    events, *_, commitment = stored_game(db, game["id"])

    previous = commitment
    for event in events:
        assert event.hash == chain_hash(previous, event.seq, event.kind, event.data)
        previous = event.hash


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE game_events SET kind = 'x' WHERE game_id = %s",
        "DELETE FROM game_events WHERE game_id = %s",
    ],
)
def test_the_event_log_refuses_update_and_delete(client, db, statement):
    game, _ = create(client)

    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
        db.execute(statement, (game["id"],))


def test_the_event_log_refuses_truncate(db):
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
        db.execute("TRUNCATE game_events CASCADE")


def database_digest(db):
    digest = hashlib.sha256()
    for table in (
        "games",
        "game_secrets",
        "game_events",
        "game_snapshots",
        "sealed_deals",
        "idempotency_keys",
        "alembic_version",
    ):
        for (row,) in db.execute(f"SELECT row_to_json(t)::text FROM {table} t ORDER BY 1"):
            digest.update(row.encode())
    return digest.hexdigest()


def test_no_get_changes_anything(client, db):
    game, token = create(client, deal_number=9)
    play(client, game, token, random.Random(9), steps=20)
    before = database_digest(db)

    for path in (
        "/variants",
        "/healthz",
        "/readyz",
        "/openapi.json",
        "/games",
        "/games?limit=1",
        f"/games/{game['id']}",
        f"/games/{game['id']}/events",
        f"/games/{game['id']}/events?after=3",
        "/games/00000000-0000-4000-8000-000000000000",
    ):
        client.get(path)
        client.head(path)
    client.get(f"/games/{game['id']}", headers={"If-None-Match": '"2"'})

    assert database_digest(db) == before


def test_a_game_goes_on_after_the_server_restarts(database_url, client):
    game, token = create(client, variant="osmosis-draw-one", deal_number=21)
    game = play(client, game, token, random.Random(21), steps=15)
    assert game["status"] == "playing"

    pool = open_pool(database_url, min_size=1, max_size=2, timeout=5, statement_timeout_ms=5000)
    try:
        restarted = create_app(store=PostgresStore(pool, migrate.head_revision())).test_client()
        assert restarted.get(f"/games/{game['id']}").get_json() == game
        after = play(restarted, game, token, random.Random(22), steps=15)
    finally:
        pool.close()

    assert after["version"] > game["version"]


def test_a_snapshot_is_kept_each_time_the_version_passes_a_multiple_of_32(client, db):
    game, token = create(client, variant="osmosis-draw-one", deal_number=0)
    for _ in range(70):
        game = client.post(f"/games/{game['id']}/draw", headers=token).get_json()["game"]
        if game["status"] != "playing":
            break

    seqs = [
        row[0] for row in db.execute("SELECT seq FROM game_snapshots WHERE game_id = %s ORDER BY seq", (game["id"],))
    ]

    assert seqs == [32 * k for k in range(1, game["version"] // 32 + 1)]
    state_at = {
        row[0]: row[1] for row in db.execute("SELECT seq, state FROM game_snapshots WHERE game_id = %s", (game["id"],))
    }
    events, seed, client_seed, *_ = stored_game(db, game["id"])
    rules = parse_rules("osmosis-draw-one")
    for seq, text in state_at.items():
        assert to_text(fold(opening(rules, layout(shuffled_deck(seed, client_seed), rules)), events, upto=seq)) == text
