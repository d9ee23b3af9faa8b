"""Replay exports (`osmosis-replay/1`) and their verification: pure, so it runs offline as well.

A verifier trusts nothing but the document and the rules: it recomputes the deal from the revealed seeds,
checks them against the commitment, replays every event under the rules and checks every hash. The
reasons it gives never describe a hidden card, so the server can run it on a game still in progress.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import events as ev
from .events import Event, ReplayError, fold
from .rules import (
    DEAL_ALGORITHM,
    GameState,
    Rules,
    RulesError,
    commitment,
    deal_number_seed,
    layout,
    opening,
    parse_server_seed,
    public_view,
    shuffled_deck,
)

REPLAY_FORMAT = "osmosis-replay/1"


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
            return (f"VALID so far: the hash chain of {self.checked_events} events is intact; the deal and the "
                    "moves can be checked once the game is over and its seeds are revealed")
        return f"VALID: {self.checked_events} events, deal matches the commitment, every move legal, chain intact"

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
    except _Malformed as error:
        return Verdict(False, False, 0, error.seq, error.reason)
    verdict, _ = verify_log(rules, commit, events, seeds=None)
    if verdict.valid and events[-1].hash != document.get("head_hash"):
        return Verdict(False, verdict.complete, len(events), events[-1].seq,
                       "the document's head_hash is not the hash of its last event")
    return verdict


def verify_log(
    rules: Rules, commit: str, events: Sequence[Event], seeds: tuple[bytes, str] | None
) -> tuple[Verdict, GameState | None]:
    """Check a log; `seeds` are the server's own (to check a game in progress), else the revealed ones.

    Returns the verdict and, when the deal could be checked, the position the log folds to.
    """
    checked = len(events)
    try:
        _check_sequence_and_chain(commit, events)
        _check_created(events[0], rules, commit)
        revealed = _revealed_seeds(events)
        seeds = seeds or revealed
        if seeds is None:
            return Verdict(True, False, checked), None
        if revealed is not None and revealed != seeds:
            raise ReplayError(events[-1].seq, "the revealed seeds are not the game's")
        start = _checked_opening(events[0], rules, commit, *seeds)
        final = fold(start, events)
        if final.is_over and revealed is None:
            raise ReplayError(events[-1].seq, "the game is over but its seeds were not revealed after it")
    except ReplayError as error:
        return Verdict(False, False, checked, error.seq, error.reason), None
    return Verdict(True, True, checked), final


class _Malformed(Exception):
    def __init__(self, seq: int | None, reason: str) -> None:
        super().__init__(reason)
        self.seq = seq
        self.reason = reason


def _read(document: Mapping[str, Any]) -> tuple[list[Event], Rules, str]:
    if not isinstance(document, Mapping) or document.get("format") != REPLAY_FORMAT:
        raise _Malformed(None, f"not an {REPLAY_FORMAT} document")
    raw_events = document.get("events")
    if not isinstance(raw_events, list) or not raw_events:
        raise _Malformed(None, "the document has no events")
    events = []
    for position, raw in enumerate(raw_events, start=1):
        if (not isinstance(raw, Mapping) or not isinstance(raw.get("seq"), int) or not isinstance(raw.get("kind"), str)
                or not isinstance(raw.get("data"), dict) or not isinstance(raw.get("hash"), str)):
            raise _Malformed(position, "an event needs an integer seq, a kind, an object data and a hash")
        events.append(Event(raw["seq"], raw["kind"], raw["data"], raw["hash"]))
    try:
        rules = Rules.from_mapping(document.get("rules") or {})
    except (RulesError, TypeError) as error:
        raise _Malformed(None, f"the document's rules are not valid: {error}") from None
    commit = document.get("commitment")
    if not isinstance(commit, str) or len(commit) != 64:
        raise _Malformed(None, "the document's commitment is not 64 hexadecimal digits")
    return events, rules, commit


def _check_sequence_and_chain(commit: str, events: Sequence[Event]) -> None:
    previous = commit
    for expected_seq, event in enumerate(events, start=1):
        if event.seq != expected_seq:
            raise ReplayError(expected_seq, f"event {expected_seq} is missing: seq {event.seq} stands in its place")
        if event.kind not in ev.EVENT_KINDS:
            raise ReplayError(event.seq, f"unknown event kind {event.kind!r}")
        try:
            expected_hash = ev.chain_hash(previous, event.seq, event.kind, event.data)
        except ValueError:
            raise ReplayError(event.seq, "the previous hash is not hexadecimal") from None
        if event.hash != expected_hash:
            raise ReplayError(event.seq, "the hash does not match the event and the hash before it")
        previous = event.hash


def _check_created(created: Event, rules: Rules, commit: str) -> None:
    if created.kind != ev.GAME_CREATED:
        raise ReplayError(created.seq, "the log does not begin with game_created")
    data = created.data
    if data.get("rules") != rules.to_dict():
        raise ReplayError(created.seq, "game_created names other rules than the game's")
    if data.get("commitment") != commit:
        raise ReplayError(created.seq, "game_created names another commitment than the game's")
    if data.get("deal_algorithm") != DEAL_ALGORITHM:
        raise ReplayError(created.seq, f"unknown deal algorithm {data.get('deal_algorithm')!r}")


def _revealed_seeds(events: Sequence[Event]) -> tuple[bytes, str] | None:
    for event in events:
        if event.kind == ev.SEEDS_REVEALED:
            if event is not events[-1]:
                raise ReplayError(event.seq, "events follow the reveal of the seeds")
            try:
                seed = parse_server_seed(event.data.get("server_seed", ""))
            except RulesError:
                raise ReplayError(event.seq, "the revealed server seed is not 32 bytes of hexadecimal") from None
            client_seed = event.data.get("client_seed")
            if not isinstance(client_seed, str):
                raise ReplayError(event.seq, "the revealed client seed is not text")
            return seed, client_seed
    return None


def _checked_opening(created: Event, rules: Rules, commit: str, server_seed: bytes, client_seed: str) -> GameState:
    if commitment(server_seed) != commit:
        raise ReplayError(created.seq, "the server seed does not match the commitment: the deal was not the one "
                                       "committed to")
    deal = created.data.get("deal") or {}
    if deal.get("kind") == "number" and (
        not isinstance(deal.get("deal_number"), int)
        or deal_number_seed(deal["deal_number"]) != server_seed
        or client_seed != ""
    ):
        raise ReplayError(created.seq, f"the seeds are not those of deal number {deal.get('deal_number')}")
    start = opening(rules, layout(shuffled_deck(server_seed, client_seed), rules))
    if public_view(start) != created.data.get("opening"):
        raise ReplayError(created.seq, "the opening shown is not the opening of the committed deal")
    return start
