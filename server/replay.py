"""Replay exports (`osmosis-replay/1`) and their verification: pure, so it runs offline as well.

A verifier trusts nothing but the document and the rules: it recomputes the deal from the revealed seeds,
checks them against the commitment, replays every event under the rules, checks every hash, and checks
every other field of the document against the log, so that "VALID" vouches for the whole document. The
reasons it gives never describe a hidden card, so the server can run it on a game still in progress.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import events as ev
from .events import Event, ReplayError
from .rules import (
    DEAL_ALGORITHM,
    GameState,
    Rules,
    RulesError,
    commitment,
    deal_number_seed,
    parse_server_seed,
    public_view,
    to_text,
)
from .rules.deal import MAX_DEAL_NUMBER
from .solver.winnable import check_winnable, game_opening

REPLAY_FORMAT = "osmosis-replay/1"
FIELDS = ("format", "game_id", "variant", "rules", "deal_algorithm", "deal", "commitment", "status", "head_hash",
          "events")
EVENT_FIELDS = ("seq", "kind", "data", "hash")
_ENDED = {ev.GAME_WON: "won", ev.GAME_LOST: "lost", ev.GAME_RESIGNED: "resigned"}
_DEAL_FIELDS = {"number": {"kind", "deal_number"}, "random": {"kind"}, "sealed": {"kind", "sealed_deal_id"}}


@dataclass(frozen=True, slots=True)
class Verdict:
    valid: bool
    complete: bool
    """True when every check ran: the seeds were known, so the deal and every move were checked."""
    checked_events: int
    first_bad_seq: int | None = None
    reason: str | None = None

    @property
    def summary(self) -> str:
        if not self.valid:
            where = f"event {self.first_bad_seq}" if self.first_bad_seq is not None else "the game"
            return f"INVALID at {where}: {self.reason}"
        if not self.complete:
            return (f"VALID so far: the hash chain of {self.checked_events} events and the fields of the document "
                    "are intact; the deal and the moves can be checked once the game is over and its seeds are "
                    "revealed")
        return (f"VALID: {self.checked_events} events, deal matches the commitment, every move legal, chain intact, "
                "every field of the document as the log says")

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "complete": self.complete,
            "checked_events": self.checked_events,
            "first_bad_seq": self.first_bad_seq,
            "reason": self.reason,
            "summary": self.summary,
        }


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


def verify(document: Mapping[str, Any]) -> Verdict:
    """Check a replay document; the seeds are those its log reveals, if it is finished."""
    try:
        events, rules, commit = _read(document)
    except ReplayError as error:
        return Verdict(False, False, 0, error.seq, error.reason)
    verdict, final = verify_log(rules, commit, events, seeds=None, game_id=document["game_id"])
    if not verdict.valid:
        return verdict
    try:
        _check_fields(document, events, final)
    except ReplayError as error:
        return Verdict(False, False, len(events), error.seq, error.reason)
    return verdict


def verify_log(
    rules: Rules,
    commit: str,
    events: Sequence[Event],
    seeds: tuple[bytes, str] | None,
    game_id: str,
    snapshots: Mapping[int, str] | None = None,
) -> tuple[Verdict, GameState | None]:
    """Check a log; `seeds` are the server's own (to check a game in progress), else the revealed ones;
    `snapshots` (seq: full position as text) must each be the position at the end of an action.

    Returns the verdict and, when the deal could be checked, the position the log folds to.
    """
    checked = len(events)
    try:
        _check_sequence_and_chain(commit, events)
        _check_created(events[0], rules, commit, game_id)
        revealed = _revealed_seeds(events)
        seeds = seeds or revealed
        if seeds is None:
            _check_not_ended(events)
            return Verdict(True, False, checked), None
        if revealed is not None and revealed != seeds:
            raise ReplayError(events[-1].seq, "the revealed seeds are not the game's")
        start = _checked_opening(events[0], rules, commit, *seeds)
        final = _fold_checking_snapshots(start, events, snapshots or {})
        if final.is_over and revealed is None:
            raise ReplayError(events[-1].seq, "the game is over but its seeds were not revealed after it")
    except ReplayError as error:
        return Verdict(False, False, checked, error.seq, error.reason), None
    return Verdict(True, True, checked), final


def _read(document: Mapping[str, Any]) -> tuple[list[Event], Rules, str]:
    """The document's events, rules and commitment, each of the shape the format gives it."""
    if not isinstance(document, Mapping) or document.get("format") != REPLAY_FORMAT:
        raise ReplayError(None, f"not an {REPLAY_FORMAT} document")
    unknown = sorted(str(name) for name in set(document) - set(FIELDS))
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
        if (not isinstance(raw, Mapping) or set(raw) != set(EVENT_FIELDS) or not _is_int(raw["seq"])
                or not isinstance(raw["kind"], str) or not isinstance(raw["data"], dict)
                or not isinstance(raw["hash"], str)):
            raise ReplayError(position, "an event is exactly an integer seq, a kind, an object data and a hash")
        events.append(Event(raw["seq"], raw["kind"], raw["data"], raw["hash"]))
    if not isinstance(document["rules"], Mapping):
        raise ReplayError(None, "the document's rules are not an object")
    try:
        rules = Rules.from_mapping(document["rules"])
    except (RulesError, TypeError) as error:
        raise ReplayError(None, f"the document's rules are not valid: {error}") from None
    commit = document["commitment"]
    if not _is_hex(commit, 64):
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
        raise ReplayError(last.seq, f"the document's status is {document['status']!r}, but its log ends with the "
                                    f"game {status if status == 'playing' else 'over: ' + status}")
    created = events[0].data
    if document["variant"] != created.get("variant"):
        raise ReplayError(1, f"the document's variant is {document['variant']!r}, but game_created names "
                             f"{created.get('variant')!r}")
    if document["deal_algorithm"] != DEAL_ALGORITHM:
        raise ReplayError(1, f"the document's deal_algorithm is {document['deal_algorithm']!r}, not {DEAL_ALGORITHM}")
    deal = dict(created["deal"])
    if final is not None:
        seeds = last.data
        deal.update(server_seed=seeds["server_seed"], client_seed=seeds["client_seed"])
    if document["deal"] != deal:
        raise ReplayError(1, "the document's deal is not game_created's deal"
                             + (" with the revealed seeds" if final is not None else ""))


def _check_sequence_and_chain(commit: str, events: Sequence[Event]) -> None:
    previous = commit
    for expected_seq, event in enumerate(events, start=1):
        if event.seq != expected_seq:
            raise ReplayError(expected_seq, f"event {expected_seq} is missing: seq {event.seq} stands in its place")
        if event.kind not in ev.EVENT_KINDS:
            raise ReplayError(event.seq, f"unknown event kind {event.kind!r}")
        if not isinstance(event.data, dict):
            raise ReplayError(event.seq, "the event's data is not an object")
        try:
            expected_hash = ev.chain_hash(previous, event.seq, event.kind, event.data)
        except UnicodeEncodeError:
            raise ReplayError(event.seq, "the event holds text that is not Unicode (a lone surrogate)") from None
        except (ValueError, RecursionError):
            raise ReplayError(event.seq, "the event's data cannot be written as canonical JSON") from None
        if event.hash != expected_hash:
            raise ReplayError(event.seq, "the hash does not match the event and the hash before it")
        previous = event.hash


def _check_created(created: Event, rules: Rules, commit: str, game_id: str) -> None:
    if created.kind != ev.GAME_CREATED:
        raise ReplayError(created.seq, "the log does not begin with game_created")
    data = created.data
    if data.get("rules") != rules.to_dict():
        raise ReplayError(created.seq, "game_created names other rules than the game's")
    if data.get("commitment") != commit:
        raise ReplayError(created.seq, "game_created names another commitment than the game's")
    if data.get("deal_algorithm") != DEAL_ALGORITHM:
        raise ReplayError(created.seq, f"unknown deal algorithm {data.get('deal_algorithm')!r}")
    if data.get("variant") != rules.preset_name:
        raise ReplayError(created.seq, f"game_created names the variant {data.get('variant')!r}, but its rules are "
                                       + (f"the preset {rules.preset_name!r}" if rules.preset_name else "custom"))
    # Logs written before game_created named its game have no game_id: for them the id is not checked.
    if "game_id" in data and data["game_id"] != game_id:
        raise ReplayError(created.seq, f"game_created names the game {data['game_id']!r}, not the game_id {game_id!r}")
    _check_deal(created.seq, data.get("deal"))


def _check_deal(seq: int, deal: Any) -> None:
    """How the deal is made: a public number, a fresh secret, or a sealed deal; and nothing else."""
    if not isinstance(deal, dict) or deal.get("kind") not in _DEAL_FIELDS \
            or set(deal) - {"winnable"} != _DEAL_FIELDS[deal["kind"]]:
        raise ReplayError(seq, "game_created's deal is not one of the three kinds of deal the format gives")
    if "winnable" in deal and not isinstance(deal["winnable"], dict):
        raise ReplayError(seq, "game_created's deal.winnable is not an object")
    if deal["kind"] == "number" and not (_is_int(deal["deal_number"]) and 0 <= deal["deal_number"] <= MAX_DEAL_NUMBER):
        raise ReplayError(seq, "game_created's deal number is not a whole number from 0 to 2^53 - 1")
    if deal["kind"] == "sealed" and not isinstance(deal["sealed_deal_id"], str):
        raise ReplayError(seq, "game_created's sealed_deal_id is not text")


def _revealed_seeds(events: Sequence[Event]) -> tuple[bytes, str] | None:
    for event in events:
        if event.kind == ev.SEEDS_REVEALED:
            if event is not events[-1]:
                raise ReplayError(event.seq, "events follow the reveal of the seeds")
            if set(event.data) != {"server_seed", "client_seed"}:
                raise ReplayError(event.seq, "seeds_revealed holds exactly server_seed and client_seed")
            server_seed, client_seed = event.data["server_seed"], event.data["client_seed"]
            if not _is_hex(server_seed, 64):
                raise ReplayError(event.seq, "the revealed server seed is not 32 bytes of hexadecimal")
            if not isinstance(client_seed, str):
                raise ReplayError(event.seq, "the revealed client seed is not text")
            return parse_server_seed(server_seed), client_seed
    return None


def _check_not_ended(events: Sequence[Event]) -> None:
    """A log without its seeds must be of a game still on: an ended game reveals them at once."""
    for event in events:
        if event.kind in _ENDED:
            raise ReplayError(events[-1].seq, f"the game ended at event {event.seq} ({event.kind}) but its seeds "
                                              "were not revealed after it")


def _checked_opening(created: Event, rules: Rules, commit: str, server_seed: bytes, client_seed: str) -> GameState:
    if commitment(server_seed) != commit:
        raise ReplayError(created.seq, "the server seed does not match the commitment: the deal was not the one "
                                       "committed to")
    deal = created.data["deal"]
    if deal["kind"] == "number" and (deal_number_seed(deal["deal_number"]) != server_seed or client_seed != ""):
        raise ReplayError(created.seq, f"the seeds are not those of deal number {deal['deal_number']}")
    if deal["kind"] == "random" and client_seed != "":
        raise ReplayError(created.seq, "a random deal has no client seed")
    try:
        if "winnable" in deal:
            wrong = check_winnable(rules, server_seed, client_seed, deal["winnable"])
            if wrong is not None:
                raise ReplayError(created.seq, f"the deal is not the seeds' winnable deal: {wrong}")
        start = game_opening(rules, server_seed, client_seed, deal)
    except UnicodeEncodeError:
        raise ReplayError(created.seq, "the client seed is not Unicode text (a lone surrogate)") from None
    if public_view(start) != created.data.get("opening"):
        raise ReplayError(created.seq, "the opening shown is not the opening of the committed deal")
    return start


def _fold_checking_snapshots(start: GameState, events: Sequence[Event], snapshots: Mapping[int, str]) -> GameState:
    """The position the log folds to, checking on the way that each snapshot is the position at its seq
    and was taken where the server takes them: at the end of an action."""
    beyond = [seq for seq in snapshots if not 1 <= seq <= events[-1].seq]
    if beyond:
        raise ReplayError(min(beyond), "a snapshot is kept for an event the log does not have")
    final = start
    for index, (event, state) in enumerate(ev.replayed(start, events)):
        final = state
        snapshot = snapshots.get(event.seq)
        if snapshot is not None and (not ev.ends_a_step(events, index) or snapshot != to_text(state)):
            raise ReplayError(event.seq, "the snapshot kept at this event is not the position at the end of an "
                                         "action here")
    return final


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_hex(value: object, digits: int) -> bool:
    return isinstance(value, str) and len(value) == digits and all(c in "0123456789abcdef" for c in value)
