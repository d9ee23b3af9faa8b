"""What a command makes of a game: one `Change`, written whole in one statement, answered to the client, and told
to the live hub, all from the same values (the events are encoded once)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..log.events import Event
from ..rules import GameState, from_text
from .competitions import Finish
from .records import GameRecord, GameSecret, PlayerResult, PublicEntry


@dataclass(frozen=True, slots=True)
class Game:
    """A game as a command is decided on: its row, its secret, and its position already parsed."""

    record: GameRecord
    secret: GameSecret
    state: GameState


def stored_game(record: GameRecord, secret: GameSecret) -> Game:
    """A game as the store gives it back: its position parsed from the text it keeps."""
    return Game(record, secret, from_text(secret.state_text))


@dataclass(frozen=True, slots=True)
class Reply:
    """How the client is answered: the status and body text, kept for a retry with the same Idempotency-Key.
    A created game's reply never holds its player token, which is kept apart, wrapped (service/games/idempotency.py)."""

    status: int
    text: str


@dataclass(frozen=True, slots=True)
class Change:
    """A game as a command leaves it, and everything that follows from it."""

    after: Game
    events: tuple[Event, ...]
    """The events the command appends (a creation: game_created), chained after the game's head."""
    events_json: str
    """`events` as one JSON array, the text the write, the reply and the live hub carry alike."""
    reply: Reply
    snapshot: bool = False
    """Keep the new position as the snapshot at the new version, for time travel."""
    result: PlayerResult | None = None
    """A player's game under a preset revealed by this change: its result, recorded with the player's statistics."""
    public_entries: tuple[PublicEntry, ...] = ()
    """The entries this change adds to the public log, in order: a game's creation or end; a daily game's creation
    and end, when its day closes."""
    hint: dict[str, Any] | None = None
    player_token: str | None = None
    """A created game's player token: shown this once, never in `reply` (only its hash is kept)."""
    finish: Finish | None = None
    """A competition game's end, as its entrant's row of the standings keeps it."""

    @property
    def game(self) -> GameRecord:
        return self.after.record

    @property
    def state_text(self) -> str:
        return self.after.secret.state_text
