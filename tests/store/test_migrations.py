"""Migrations that reshape stored data carry every existing game across, both ways."""

import contextlib
import itertools
import json
from datetime import UTC, datetime
from uuid import UUID

import psycopg
from alembic import command
from alembic.script import ScriptDirectory

from server.game.commands import Draw, Hint, NewGame, NumberedDeal, Resign
from server.rules import preset
from server.runtime.composition import compose
from server.service.sources import Sources
from server.store import PostgresStore, open_pool
from server.store.migrate import alembic_config, head_revision
from tests.api.helpers import body_of
from tests.databases import drop_database, migrated_database


@contextlib.contextmanager
def use_cases_on(url, sources=None):
    """The use cases on the database at `url`, as the server composes them, for the block."""
    pool = open_pool(url, min_size=1, max_size=2, timeout=5, statement_timeout_ms=5000)
    try:
        store = PostgresStore(pool, head_revision())
        yield compose(store) if sources is None else compose(store, sources=sources)
    finally:
        pool.close()


def documents(url):
    with psycopg.connect(url) as conn:
        return dict(conn.execute("SELECT id, document::text FROM games").fetchall())


def test_the_game_document_migration_renders_existing_games_as_the_server_does_and_goes_back(embedded_server_url):
    url = migrated_database(embedded_server_url)
    # Times with and without a fraction of a second, which isoformat() writes differently.
    times = itertools.cycle(
        [datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC), datetime(2026, 3, 1, 12, 0, 1, 250_000, tzinfo=UTC)]
    )
    with use_cases_on(url, Sources(clock=lambda: next(times))) as cases:
        for number in (1, 2, 3):
            game = body_of(cases.creating.handle(NewGame(preset("osmosis-draw-one"), NumberedDeal(number))))
            cases.acting.handle(Draw(UUID(game["id"]), game["player_token"]))
    rendered = documents(url)

    try:
        command.downgrade(alembic_config(url), "0003")
        with psycopg.connect(url) as conn:
            views = dict(conn.execute("SELECT id, view FROM games").fetchall())
        command.upgrade(alembic_config(url), "head")
        migrated = documents(url)
    finally:
        drop_database(embedded_server_url, url)

    assert len(rendered) == 3
    for game_id, text in rendered.items():
        document = json.loads(text)
        assert views[game_id] == {"state": document["state"], "legal_actions": document["legal_actions"]}
        assert json.loads(migrated[game_id]) == document


def test_the_hints_migration_counts_each_games_hints_from_its_log_and_goes_back(embedded_server_url):
    url = migrated_database(embedded_server_url)
    with use_cases_on(url) as cases:
        plain = body_of(cases.creating.handle(NewGame(preset("osmosis"), NumberedDeal(1))))
        hinted = body_of(cases.creating.handle(NewGame(preset("osmosis"), NumberedDeal(2))))
        for _ in range(2):  # a hint at each of two positions (a position is hinted once)
            cases.acting.handle(Hint(UUID(hinted["id"]), hinted["player_token"]))
            cases.acting.handle(Draw(UUID(hinted["id"]), hinted["player_token"]))
    rendered = documents(url)
    # Before 0008 a document ended before its hints (and the undos, 0022, which come after them).
    as_before = rendered[UUID(plain["id"])].replace(',"hints":0,"undos":0,"can_undo":false}', "}")
    assert as_before != rendered[UUID(plain["id"])]

    try:
        command.downgrade(alembic_config(url), "0007")
        with psycopg.connect(url) as conn:
            columns = {
                row[0]
                for row in conn.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'games'")
            }
            # What the server before 0008 wrote for this game, byte for byte.
            conn.execute("UPDATE games SET document = %s::json WHERE id = %s", (as_before, plain["id"]))
        downgraded = documents(url)
        command.upgrade(alembic_config(url), "head")
        migrated = documents(url)
    finally:
        drop_database(embedded_server_url, url)

    assert "hints" not in columns
    assert all("hints" not in json.loads(text) for text in downgraded.values())
    assert migrated[UUID(plain["id"])] == rendered[UUID(plain["id"])]
    assert json.loads(migrated[UUID(hinted["id"])]) == json.loads(rendered[UUID(hinted["id"])])
    assert json.loads(rendered[UUID(hinted["id"])])["hints"] == 2


def test_the_undo_migration_counts_what_each_game_could_take_back_and_goes_back_byte_for_byte(embedded_server_url):
    url = migrated_database(embedded_server_url)
    with use_cases_on(url) as cases:
        dealt = body_of(cases.creating.handle(NewGame(preset("osmosis-draw-one"), NumberedDeal(1))))
        drawn = body_of(cases.creating.handle(NewGame(preset("osmosis-draw-one"), NumberedDeal(2))))
        for _ in range(3):
            cases.acting.handle(Draw(UUID(drawn["id"]), drawn["player_token"]))
        cases.acting.handle(Hint(UUID(drawn["id"]), drawn["player_token"]))
        resigned = body_of(cases.creating.handle(NewGame(preset("osmosis-draw-one"), NumberedDeal(3))))
        cases.acting.handle(Draw(UUID(resigned["id"]), resigned["player_token"]))
        cases.acting.handle(Resign(UUID(resigned["id"]), resigned["player_token"]))
    rendered = documents(url)
    with psycopg.connect(url) as conn:
        counted = dict(conn.execute("SELECT id, undoable FROM games").fetchall())

    try:
        command.downgrade(alembic_config(url), "0021")
        downgraded = documents(url)
        command.upgrade(alembic_config(url), "head")
        migrated = documents(url)
        with psycopg.connect(url) as conn:
            recounted = dict(conn.execute("SELECT id, undoable FROM games").fetchall())
    finally:
        drop_database(embedded_server_url, url)

    assert {str(game_id): count for game_id, count in counted.items()} == {
        dealt["id"]: 0,
        drawn["id"]: 3,
        resigned["id"]: 1,  # the draw: the resignation ended the game, and is no action to take back
    }
    assert recounted == counted
    assert migrated == rendered  # byte for byte
    for game_id, text in downgraded.items():
        assert text == rendered[game_id].rsplit(',"undos":', 1)[0] + "}"
    assert [json.loads(rendered[UUID(game["id"])])["can_undo"] for game in (dealt, drawn, resigned)] == [
        False,
        True,
        False,
    ]


def test_the_newest_revision_is_alembic_s_head():
    """The server names the newest migration without importing alembic (server/store/migrate.py): as alembic does."""
    assert head_revision() == ScriptDirectory.from_config(alembic_config("postgresql://unused")).get_current_head()
