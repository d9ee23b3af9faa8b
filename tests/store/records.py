"""Records as the use cases hand them to a store, made up for the ports' contract tests."""

import json
import secrets
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

from server.game.callers import ApiTokenRecord, PlayerRecord
from server.game.change import Change, Game, Reply
from server.game.records import GameRecord, GameSecret, PublicEntry
from server.log.events import Event, events_json
from server.rules import layout, opening, preset, shuffled_deck
from server.service.records import StoredResponse

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def a_game(
    created_at: datetime = EPOCH, status: str = "playing", variant: str | None = "osmosis"
) -> tuple[GameRecord, GameSecret, list[Event]]:
    game_id = uuid4()
    record = GameRecord(
        id=game_id,
        created_at=created_at,
        updated_at=created_at,
        rules={"draw": 3, "max_passes": None},
        variant=variant,
        deal={"kind": "random"},
        commitment="c" * 64,
        version=1,
        status=status,
        score=0,
        head_hash="1" * 64,
        hints=0,
        document=json.dumps({"id": str(game_id), "version": 1, "spaced": [1, 2]}, separators=(", ", " : ")),
    )
    secret = GameSecret(secrets.token_bytes(32), "client seed", "opening position", "token hash")
    return record, secret, [Event(1, "game_created", {"game_id": str(game_id), "nested": {"list": [1, "2"]}}, "1" * 64)]


def a_creation(
    record: GameRecord, secret: GameSecret, events: list[Event], public_entry: PublicEntry | None = None
) -> Change:
    """A creation's change, as the creating use case hands it to a store."""
    return Change(
        Game(record, secret, OPENING),
        tuple(events),
        events_json(events),
        Reply(201, "{}"),
        public_entries=(public_entry,) if public_entry else (),
    )


OPENING = opening(preset("osmosis"), layout(shuffled_deck(b"\x00" * 32), preset("osmosis")))
"""A position for the changes made up here: the store keeps only its text, made up too."""


def an_action(record: GameRecord, snapshot: bool = False, **moved: Any) -> Change:
    """The game's next change, of one event: made up so that an event's seq is the version it made. `moved`: other
    fields of the game's row it changes."""
    version = record.version + 1
    events = (Event(version, "cards_dealt", {"cards": ["AS"], "at": version}, f"{version:064x}"),)
    secret = GameSecret(b"", "", f"position at {version}", "")
    moved = replace(
        record,
        version=version,
        updated_at=record.updated_at + timedelta(seconds=1),
        document=json.dumps({"id": str(record.id), "version": version}),
        **moved,
    )
    return Change(Game(moved, secret, OPENING), events, events_json(events), Reply(200, "{}"), snapshot=snapshot)


def a_response(scope: str = "games", body: str = '{"a" :1,  "b":[true]}', wrapped: str | None = None) -> StoredResponse:
    return StoredResponse(scope, secrets.token_hex(32), "fingerprint", 201, body, wrapped)


def a_player(kind: str = "human") -> tuple[PlayerRecord, str, ApiTokenRecord]:
    """A player with a unique name, its name's key, and a first token of every scope."""
    name = f"p{secrets.token_hex(8)}"
    player = PlayerRecord(uuid4(), name, kind, EPOCH)
    return player, name.lower(), a_token(player)


def a_token(
    player: PlayerRecord, scopes: tuple[str, ...] = ("play", "account"), created_at: datetime = EPOCH
) -> ApiTokenRecord:
    return ApiTokenRecord(uuid4(), player.id, secrets.token_hex(32), scopes, "a token", created_at)
