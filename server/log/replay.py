"""Replay exports (`osmosis-replay/1`): the document of a game and its whole log, and its verification, which
audits the log (audit.py) and checks every other field of the document against it, so that "VALID" vouches
for the whole document. Pure, so it runs offline as well.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..rules import DEAL_ALGORITHM, GameState, Rules, RulesError
from ..transparency.notes import Verifier
from .audit import Audit, is_hex, is_int, same_json, verify_log
from .events import Event, ReplayError
from .public_proofs import check_proofs, check_shape

REPLAY_FORMAT = "osmosis-replay/1"
FIELDS = (
    "format",
    "game_id",
    "variant",
    "rules",
    "deal_algorithm",
    "deal",
    "commitment",
    "status",
    "head_hash",
    "events",
)
OPTIONAL_FIELDS = ("transparency", "transparency_unavailable")
"""Proofs of the game's entries in the public log (public_proofs.py): an export made before the log has none; and
why an export has none when the log could not prove anything then."""
EVENT_FIELDS = ("seq", "kind", "data", "hash")


def export(game: Mapping[str, Any], events: Sequence[Event]) -> dict[str, Any]:
    """The replay document of a game (a game body as the API shows it) and its whole log."""
    return {
        "format": REPLAY_FORMAT,
        "game_id": game["id"],
        "variant": game["variant"],
        "rules": game["rules"],
        "deal_algorithm": DEAL_ALGORITHM,
        "deal": game["deal"],
        "commitment": game["commitment"],
        "status": game["status"],
        "head_hash": game["head_hash"],
        "events": [event.to_dict() for event in events],
    }


def verify(document: Mapping[str, Any], budget: int | None = None) -> Audit:
    """Check a replay document; the seeds are those its log reveals, if it is finished. `budget`: the solver
    positions the check may search (None: every check runs, however long it takes)."""
    try:
        events, rules, commit = _read(document)
    except ReplayError as error:
        return Audit(False, False, 0, error.seq, error.reason)
    audit, final = verify_log(rules, commit, events, seeds=None, game_id=document["game_id"], budget=budget)
    if not audit.valid:
        return audit
    try:
        _check_fields(document, events, final)
    except ReplayError as error:
        return Audit(False, False, len(events), error.seq, error.reason)
    return audit


def verify_in_log(document: Mapping[str, Any], key: Verifier) -> tuple[str, list[str]]:
    """Check an export that verify() found valid against the public log's key: its transparency section proves
    the game's entries are in a checkpoint the key signed. Where the game is in the log, and what is not proven
    yet; raises ReplayError naming what failed."""
    events, _, _ = _read(document)
    return check_proofs(document, events, key)


def _read(document: Mapping[str, Any]) -> tuple[list[Event], Rules, str]:
    """The document's events, rules and commitment, each of the shape the format gives it."""
    if not isinstance(document, Mapping) or document.get("format") != REPLAY_FORMAT:
        raise ReplayError(None, f"not an {REPLAY_FORMAT} document")
    unknown = sorted(str(name) for name in set(document) - set(FIELDS) - set(OPTIONAL_FIELDS))
    if unknown:
        raise ReplayError(None, f"the document has fields the format does not: {', '.join(unknown)}")
    missing = [name for name in FIELDS if name not in document]
    if missing:
        raise ReplayError(None, f"the document lacks {', '.join(missing)}")
    raw_events = document["events"]
    if not isinstance(raw_events, list) or not raw_events:
        raise ReplayError(None, "the document has no events")
    events = []
    for position, raw in enumerate(raw_events, start=1):
        if (
            not isinstance(raw, Mapping)
            or set(raw) != set(EVENT_FIELDS)
            or not is_int(raw["seq"])
            or not isinstance(raw["kind"], str)
            or not isinstance(raw["data"], dict)
            or not isinstance(raw["hash"], str)
        ):
            raise ReplayError(position, "an event is exactly an integer seq, a kind, an object data and a hash")
        events.append(Event(raw["seq"], raw["kind"], raw["data"], raw["hash"]))
    if not isinstance(document["rules"], Mapping):
        raise ReplayError(None, "the document's rules are not an object")
    try:
        rules = Rules.from_mapping(document["rules"])
    except (RulesError, TypeError) as error:
        raise ReplayError(None, f"the document's rules are not valid: {error}") from None
    if "transparency" in document:
        check_shape(document["transparency"])
    if not isinstance(document.get("transparency_unavailable", ""), str):
        raise ReplayError(None, "the document's transparency_unavailable is not text")
    commit = document["commitment"]
    if not is_hex(commit, 64):
        raise ReplayError(None, "the document's commitment is not 64 hexadecimal digits")
    if not isinstance(document["game_id"], str):
        raise ReplayError(None, "the document's game_id is not text")
    return events, rules, commit


def _check_fields(document: Mapping[str, Any], events: Sequence[Event], final: GameState | None) -> None:
    """The document's own fields say what its log says: the head, the status, the variant and the deal."""
    last = events[-1]
    if document["head_hash"] != last.hash:
        raise ReplayError(last.seq, "the document's head_hash is not the hash of its last event")
    status = final.status.value if final is not None else "playing"
    if document["status"] != status:
        raise ReplayError(
            last.seq,
            f"the document's status is {document['status']!r}, but its log ends with the "
            f"game {status if status == 'playing' else 'over: ' + status}",
        )
    created = events[0].data
    if not same_json(document["variant"], created.get("variant")):
        raise ReplayError(
            1, f"the document's variant is {document['variant']!r}, but game_created names {created.get('variant')!r}"
        )
    if document["deal_algorithm"] != DEAL_ALGORITHM:
        raise ReplayError(1, f"the document's deal_algorithm is {document['deal_algorithm']!r}, not {DEAL_ALGORITHM}")
    deal = dict(created["deal"])
    if final is not None:
        seeds = last.data
        deal.update(server_seed=seeds["server_seed"], client_seed=seeds["client_seed"])
    if not same_json(document["deal"], deal):
        raise ReplayError(
            1,
            "the document's deal is not game_created's deal"
            + (" with the revealed seeds" if final is not None else ""),
        )
