"""The commands a game takes, as values: each names the game (or, for a creation, what it is made from), who
calls, the versions it may land on and its Idempotency-Key. A use case handles one (`handle`); the game decides
what it makes (deciding.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from ..log.events import Event
from ..rules import Action, GameState, Rules
from .callers import Caller

Versions = frozenset[int] | None
"""The versions of a game a command may be taken on, as the request states them; None: whichever it is at."""
Credential = str | Caller
"""What opens a game to a command: the game's own player token, or its owner calling with an API token."""


@dataclass(frozen=True, slots=True)
class Idempotency:
    """A request's Idempotency-Key, and a digest of the request (method, path, body), to tell a retry from another
    request with the same key."""

    key: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class OnGame:
    """What every command on a game carries."""

    game_id: UUID
    caller: Credential
    versions: Versions = field(default=None, kw_only=True)
    idempotency: Idempotency | None = field(default=None, kw_only=True)


@dataclass(frozen=True, slots=True)
class Act(OnGame):
    """Any action, as the game's legal actions name it, or a resignation."""

    action: Action


@dataclass(frozen=True, slots=True)
class Draw(OnGame):
    """Deal, or redeal when the stock is empty and a redeal is allowed."""


@dataclass(frozen=True, slots=True)
class Resign(OnGame):
    """Give the game up: it ends, and its seeds are revealed."""


@dataclass(frozen=True, slots=True)
class Hint(OnGame):
    """The best action by what the player has seen, appended to the log as hint_given (solver.hints)."""


@dataclass(frozen=True, slots=True)
class Undo(OnGame):
    """Take back the game's latest action not taken back yet: appended to the log as action_undone."""


@dataclass(frozen=True, slots=True)
class TakeBack:
    """An undo asked as `asked`, read at the game's `version`: the latest action not taken back then (its own event),
    and the position before it; None and None when none is left. Taken only if the game is still at `version`."""

    asked: Undo
    version: int
    undone: Event | None
    before: GameState | None


@dataclass(frozen=True, slots=True)
class GiveHint:
    """A hint worked out for `asked` on the game at `version`: given only if the game is still there (not even another
    hint landed meanwhile: a position is hinted once)."""

    asked: Hint
    version: int
    hint: dict[str, Any]


@dataclass(frozen=True, slots=True)
class End:
    """The server's own end of a game: resigned if still on (a competition game's: timed out), then revealed, unless
    it is a contest's game whose contest is not `closing` (its creation enters the public log at the close too);
    `abandoned`: a player's game left without an action."""

    game_id: UUID
    closing: bool = False
    abandoned: bool = False


Command = Act | Draw | Resign | GiveHint | TakeBack | End
"""What `decide` takes."""


@dataclass(frozen=True, slots=True)
class FreshDeal:
    """A fresh secret server seed, revealed when the game is over."""


@dataclass(frozen=True, slots=True)
class NumberedDeal:
    """A public deal anyone can replay: its seed follows from its number."""

    number: int


@dataclass(frozen=True, slots=True)
class FromSealedDeal:
    """A sealed deal's server seed (POST /deals), committed to before the server saw the client's seed."""

    deal_id: UUID
    client_seed: str = ""


@dataclass(frozen=True, slots=True)
class TodaysDeal:
    """Today's daily deal of the game's preset (service/daily.py): its owner's one attempt."""


DealSource = FreshDeal | NumberedDeal | FromSealedDeal | TodaysDeal


@dataclass(frozen=True, slots=True)
class NewGame:
    """What a game is created from. `winnable`: the first of the seeds' candidate deals the solver proves winnable
    (solver.winnable). `owner`: the player calling with their API token, whose game it is."""

    rules: Rules
    deal: DealSource = FreshDeal()
    winnable: bool = False
    owner: Caller | None = None
    idempotency: Idempotency | None = field(default=None, kw_only=True)
