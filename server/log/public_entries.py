"""The entries of the public transparency log: one when a deal is sealed, one when a game is created, one
when it ends. Each is canonical JSON (keys sorted, no white space, UTF-8), so anyone can rebuild an entry
from a game's export and find its leaf hash in the log (docs/transparency.md).

A sealed deal is logged when sealed, so that a server cannot seal many and hand out those it likes; a day's
deal of a preset when the day opens, so that every player's daily game of it can be held to one commitment; a
game's
creation names its deal's public inputs and its commitment; its end names how it ended, its event count and
head hash (which commit to every move) and the seeds it revealed, which the commitment must match.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from uuid import UUID, uuid5

from . import competition_entries
from .events import canonical_json

DEAL_SEALED = "deal_sealed"
DAILY_DEAL_OPENED = "daily_deal_opened"
GAME_CREATED = "game_created"
GAME_ENDED = "game_ended"
PLAYER_JOINED = "player_joined"
LOG_RETIRED = "log_retired"
ENTRY_KINDS = (
    DEAL_SEALED,
    DAILY_DEAL_OPENED,
    GAME_CREATED,
    GAME_ENDED,
    PLAYER_JOINED,
    LOG_RETIRED,
    *competition_entries.KINDS,
)
JOINED_BEFORE = "players-joined-before"
"""A day's deal whose opening entry says `"ranks": "players-joined-before"` ranks on its boards only the players
whose player_joined entry comes before that opening in the log: an account made to scout the day's deal does not
rank that day (docs/security.md, "The daily deal and the boards")."""

_FIELDS = {
    DEAL_SEALED: {"kind", "sealed_deal_id", "commitment"},
    DAILY_DEAL_OPENED: {"kind", "daily_deal_id", "day", "variant", "commitment"},
    GAME_CREATED: {"kind", "game_id", "variant", "rules", "deal", "commitment"},
    GAME_ENDED: {"kind", "game_id", "status", "events", "head_hash", "score", "server_seed", "client_seed"},
    PLAYER_JOINED: {"kind", "player_id", "player"},
    LOG_RETIRED: {"kind", "log_id", "origin", "verifier_key", "final_checkpoint"},
    **competition_entries.FIELDS,
}
_OPTIONAL = {GAME_CREATED: {"player"}, DAILY_DEAL_OPENED: {"ranks"}}
REVEALED = ("server_seed", "client_seed")
"""What a game's `deal` gains when it ends: not part of its creation's entry."""


def deal_sealed(sealed_deal_id: UUID, commitment: str) -> bytes:
    return canonical_json({"kind": DEAL_SEALED, "sealed_deal_id": str(sealed_deal_id), "commitment": commitment})


_DAILY_DEALS = UUID("8a3f0c52-7d41-5e96-b0a2-6c1e4f9d3b07")


def daily_deal_id(day: str, variant: str) -> UUID:
    """The id of a day's deal of a preset, the same wherever it is worked out: a daily game's deal record names
    only its day, and its variant is the game's."""
    return uuid5(_DAILY_DEALS, f"{day}/{variant}")


def daily_deal_opened(daily_deal_id: UUID, day: str, variant: str, commitment: str) -> bytes:
    """A day's deal of a preset, committed to before any game of it is made: every player's daily game of that
    preset and day must name this commitment; its boards rank only the players who joined before it."""
    return canonical_json(
        {
            "kind": DAILY_DEAL_OPENED,
            "daily_deal_id": str(daily_deal_id),
            "day": day,
            "variant": variant,
            "commitment": commitment,
            "ranks": JOINED_BEFORE,
        }
    )


_LOGS = UUID("5d1f7c3e-2b84-5a0f-9e63-47c8b1a2d590")


def log_id(origin: str) -> UUID:
    """The id a log of that origin goes by among the entries' subjects."""
    return uuid5(_LOGS, origin)


SUCCESSOR = "successor "
"""How a retired log's final checkpoint names the log after it: an extension line, `successor <verifier key>`."""


def successor_named(extensions: tuple[str, ...]) -> str | None:
    """The verifier key a checkpoint's extension lines name as the log's successor (a retired log's final one)."""
    return next((line[len(SUCCESSOR) :] for line in extensions if line.startswith(SUCCESSOR)), None)


def log_retired(origin: str, verifier_key: str, final_checkpoint: str) -> bytes:
    """The first entry of a log that succeeds a retired one (its entries lost for good): the retired log's origin,
    its key, and its final checkpoint, signed by that key and naming this log's key as its successor."""
    return canonical_json(
        {
            "kind": LOG_RETIRED,
            "log_id": str(log_id(origin)),
            "origin": origin,
            "verifier_key": verifier_key,
            "final_checkpoint": final_checkpoint,
        }
    )


def player_joined(player_id: UUID, name: str, kind: str) -> bytes:
    """A player signed up: where this stands in the log tells which days' boards may rank them."""
    return canonical_json({"kind": PLAYER_JOINED, "player_id": str(player_id), "player": {"name": name, "kind": kind}})


def game_created(
    game_id: UUID | str,
    variant: str | None,
    rules: Mapping[str, Any],
    deal: Mapping[str, Any],
    commitment: str,
    player: Mapping[str, Any] | None = None,
) -> bytes:
    """`player`: the game's owner as its game_created event names them (so that a board of players' results can
    be recomputed from the log); a game with no player has no such field."""
    public_deal = {key: value for key, value in deal.items() if key not in REVEALED}
    owner = {} if player is None else {"player": player}
    return canonical_json(
        {
            "kind": GAME_CREATED,
            "game_id": str(game_id),
            "variant": variant,
            "rules": rules,
            "deal": public_deal,
            "commitment": commitment,
            **owner,
        }
    )


def game_ended(
    game_id: UUID, status: str, events: int, head_hash: str, score: int, server_seed: bytes, client_seed: str
) -> bytes:
    return canonical_json(
        {
            "kind": GAME_ENDED,
            "game_id": str(game_id),
            "status": status,
            "events": events,
            "head_hash": head_hash,
            "score": score,
            "server_seed": server_seed.hex(),
            "client_seed": client_seed,
        }
    )


def subject_of(entry: Mapping[str, Any]) -> str:
    """The game, sealed deal or daily deal an entry is about."""
    if entry["kind"] == DEAL_SEALED:
        return str(entry["sealed_deal_id"])
    if entry["kind"] == DAILY_DEAL_OPENED:
        return str(entry["daily_deal_id"])
    if entry["kind"] == PLAYER_JOINED:
        return str(entry["player_id"])
    if entry["kind"] == LOG_RETIRED:
        return str(entry["log_id"])
    if entry["kind"] in competition_entries.FIELDS:
        return str(entry["competition_id"])
    return str(entry["game_id"])


def parse_entry(entry: bytes) -> dict[str, Any]:
    """An entry as logged, checked to be one of the kinds, canonical and complete; ValueError if not."""
    try:
        value = json.loads(entry.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("the entry is not JSON in UTF-8") from None
    if not isinstance(value, dict) or value.get("kind") not in _FIELDS:
        raise ValueError(f"the entry is not one of the kinds {', '.join(ENTRY_KINDS)}")
    required, optional = _FIELDS[value["kind"]], _OPTIONAL.get(value["kind"], set())
    if not required <= set(value) <= required | optional:
        also = f" (and {', '.join(sorted(optional))} if it has one)" if optional else ""
        raise ValueError(f"a {value['kind']} entry has exactly the fields {', '.join(sorted(required))}{also}")
    if canonical_json(value) != entry:
        raise ValueError("the entry is not in canonical JSON")
    try:
        UUID(subject_of(value))
    except ValueError:
        raise ValueError("the entry's game or sealed deal id is not a UUID") from None
    return value
