"""The audit of a game's log: the chain, the deal against its commitment, every move and hint under the rules
(pure: `osmosis verify` runs it offline, the server on its stored games). A budget of solver positions bounds
what an audit may search; what it cannot pay for is listed, never passed over in silence.

The reasons it gives never describe a hidden card, so the server can audit a game in progress.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from ..rules import (
    DEAL_ALGORITHM,
    MAX_DEAL_NUMBER,
    GameState,
    Rules,
    commitment,
    deal_number_seed,
    parse_server_seed,
    public_view,
    to_text,
)
from ..solver import SOLVERS
from ..solver.hints import HINT_BUDGET, hint, recomputation_cost
from ..solver.winnable import check_winnable, rederivation_cost
from . import events as ev
from .clocks import check_clock
from .deal_record import game_opening
from .events import Event, ReplayError, canonical_json
from .shapes import ShapeError, check_event_data

_ENDED = {ev.GAME_WON: "won", ev.GAME_LOST: "lost", ev.GAME_RESIGNED: "resigned", ev.GAME_TIMED_OUT: "resigned"}
_CONTESTS = ("daily", "competition")
"""The deals many play: their games reveal their seeds when the contest closes, and take no undo."""
_DEAL_FIELDS = {
    "number": {"kind", "deal_number"},
    "random": {"kind"},
    "sealed": {"kind", "sealed_deal_id"},
    "daily": {"kind", "day"},
    "competition": {"kind", "competition_id"},
}


@dataclass(frozen=True, slots=True)
class Audit:
    valid: bool
    complete: bool
    """True when every check ran: the seeds were known, so the deal, every move and every hint were checked."""
    checked_events: int
    first_bad_seq: int | None = None
    reason: str | None = None
    unchecked: tuple[str, ...] = ()
    """What a valid log's check left out, in words: the search a check would take beyond its budget, or a
    hint of another solver than this verifier's. Empty when the log is invalid or everything was checked."""

    @property
    def summary(self) -> str:
        if not self.valid:
            where = f"event {self.first_bad_seq}" if self.first_bad_seq is not None else "the game"
            return f"INVALID at {where}: {self.reason}"
        if self.unchecked:
            return (
                f"VALID as far as checked: {self.checked_events} events, deal matches the commitment, every move "
                f"legal, chain intact; not checked: {'; '.join(self.unchecked)}"
            )
        if not self.complete:
            return (
                f"VALID so far: the hash chain of {self.checked_events} events and the fields of the document "
                "are intact; the deal and the moves can be checked once the game is over and its seeds are "
                "revealed"
            )
        return (
            f"VALID: {self.checked_events} events, deal matches the commitment, every move legal, every hint "
            "the solver's, chain intact, every field of the document as the log says"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "unchecked": list(self.unchecked), "summary": self.summary}


@dataclass(slots=True)
class Budget:
    """The solver positions a check may search (None: as many as it takes), and what it left unchecked.

    Two checks search: re-deriving a winnable deal's candidate, and recomputing each recorded hint. Each
    runs only if what is left pays for it in full (a hint's cost is the positions it records and a few for each
    search it started: hints.recomputation_cost; should working it out cost more, the hint is not the solver's and
    the check stops there), so a check never searches more than its budget and one hint.
    """

    positions: int | None = None
    spent: int = 0
    unchecked: list[str] = field(default_factory=list)

    def affords(self, positions: int) -> bool:
        return self.positions is None or self.spent + positions <= self.positions

    def spend(self, positions: int) -> None:
        self.spent += positions

    @property
    def words(self) -> str:
        if self.positions is None:
            return "no budget"
        return f"this check's budget of {self.positions:,} solver positions"


class HintMemory(Protocol):
    """The hints earlier checks found the solver's, by `hint_key`: what a check skips, and where it adds those it
    finds."""

    def __contains__(self, key: object) -> bool: ...

    def add(self, key: str) -> None: ...


def verify_log(
    rules: Rules,
    commit: str,
    events: Sequence[Event],
    seeds: tuple[bytes, str] | None,
    game_id: str,
    snapshots: Mapping[int, str] | None = None,
    budget: int | None = None,
    known_hints: HintMemory | None = None,
) -> tuple[Audit, GameState | None]:
    """Check a log; `seeds` are the server's own (to check a game in progress), else the revealed ones;
    `snapshots` (seq: full position as text) must each be the position at the end of an action; `budget`
    (solver positions, None for no limit) bounds the searches of the check (see Budget); `known_hints`: the hints
    earlier checks found the solver's (by `hint_key`), not worked out again, and where this check adds those it finds.

    Returns the verdict and, when the deal could be checked, the position the log folds to.
    """
    checked = len(events)
    spending = Budget(budget)
    try:
        _check_sequence_and_chain(commit, events)
        _check_created(events[0], rules, commit, game_id)
        check_clock(events)
        revealed = _revealed_seeds(events)
        seeds = seeds or revealed
        daily = events[0].data["deal"]["kind"] in _CONTESTS
        if seeds is None:
            if not daily:
                _check_not_ended(events)
            return Audit(True, False, checked), None
        if revealed is not None and revealed != seeds:
            raise ReplayError(events[-1].seq, "the revealed seeds are not the game's")
        start = _checked_opening(events[0], rules, commit, *seeds, spending)
        final, hinted = _fold_checking_snapshots(start, events, snapshots or {}, daily)
        if final.is_over and revealed is None and not daily:
            raise ReplayError(events[-1].seq, "the game is over but its seeds were not revealed after it")
        _check_hints(hinted, spending, seeds, known_hints)
    except ReplayError as error:
        return Audit(False, False, checked, error.seq, error.reason), None
    unchecked = tuple(spending.unchecked)
    return Audit(True, not unchecked, checked, unchecked=unchecked), final


def _check_sequence_and_chain(commit: str, events: Sequence[Event]) -> None:
    previous = commit
    for expected_seq, event in enumerate(events, start=1):
        if event.seq != expected_seq:
            raise ReplayError(expected_seq, f"event {expected_seq} is missing: seq {event.seq} stands in its place")
        if event.kind not in ev.EVENT_KINDS:
            raise ReplayError(event.seq, f"unknown event kind {event.kind[:40]!r}")
        try:
            check_event_data(event.kind, event.data)
        except ShapeError as error:
            raise ReplayError(event.seq, f"{event.kind}: {error}") from None
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
        raise ReplayError(
            created.seq,
            f"game_created names the variant {data.get('variant')!r}, but its rules are "
            + (f"the preset {rules.preset_name!r}" if rules.preset_name else "custom"),
        )
    # Logs written before game_created named its game have no game_id: for them the id is not checked.
    if "game_id" in data and data["game_id"] != game_id:
        raise ReplayError(created.seq, f"game_created names the game {data['game_id']!r}, not the game_id {game_id!r}")
    _check_deal(created.seq, data.get("deal"))


def _check_deal(seq: int, deal: Any) -> None:
    """How the deal is made: a public number, a fresh secret, a sealed deal, or a day's daily deal; nothing else."""
    if (
        not isinstance(deal, dict)
        or deal.get("kind") not in _DEAL_FIELDS
        or set(deal) - {"winnable"} != _DEAL_FIELDS[deal["kind"]]
    ):
        raise ReplayError(seq, "game_created's deal is not one of the kinds of deal the format gives")
    if "winnable" in deal and not isinstance(deal["winnable"], dict):
        raise ReplayError(seq, "game_created's deal.winnable is not an object")
    if deal["kind"] == "number" and not (is_int(deal["deal_number"]) and 0 <= deal["deal_number"] <= MAX_DEAL_NUMBER):
        raise ReplayError(seq, "game_created's deal number is not a whole number from 0 to 2^53 - 1")
    if deal["kind"] == "sealed" and not isinstance(deal["sealed_deal_id"], str):
        raise ReplayError(seq, "game_created's sealed_deal_id is not text")


def _revealed_seeds(events: Sequence[Event]) -> tuple[bytes, str] | None:
    for event in events:
        if event.kind == ev.SEEDS_REVEALED:
            if event is not events[-1]:
                raise ReplayError(event.seq, "events follow the reveal of the seeds")
            if set(ev.unclocked(event.data)) != {"server_seed", "client_seed"}:
                raise ReplayError(event.seq, "seeds_revealed holds exactly server_seed and client_seed")
            server_seed, client_seed = event.data["server_seed"], event.data["client_seed"]
            if not is_hex(server_seed, 64):
                raise ReplayError(event.seq, "the revealed server seed is not 32 bytes of hexadecimal")
            if not isinstance(client_seed, str):
                raise ReplayError(event.seq, "the revealed client seed is not text")
            return parse_server_seed(server_seed), client_seed
    return None


def _check_not_ended(events: Sequence[Event]) -> None:
    """A log without its seeds must be of a game still on: an ended game reveals them at once (a daily game
    when its day closes, which this check is not asked about)."""
    for event in events:
        if event.kind in _ENDED:
            raise ReplayError(
                events[-1].seq,
                f"the game ended at event {event.seq} ({event.kind}) but its seeds were not revealed after it",
            )


def _checked_opening(
    created: Event, rules: Rules, commit: str, server_seed: bytes, client_seed: str, spending: Budget
) -> GameState:
    if commitment(server_seed) != commit:
        raise ReplayError(
            created.seq, "the server seed does not match the commitment: the deal was not the one committed to"
        )
    deal = created.data["deal"]
    if deal["kind"] == "number" and (deal_number_seed(deal["deal_number"]) != server_seed or client_seed != ""):
        raise ReplayError(created.seq, f"the seeds are not those of deal number {deal['deal_number']}")
    if deal["kind"] in ("random", *_CONTESTS) and client_seed != "":
        raise ReplayError(created.seq, f"a {deal['kind']} deal has no client seed")
    try:
        if "winnable" in deal:
            _check_winnable_choice(created.seq, rules, server_seed, client_seed, deal["winnable"], spending)
        start = game_opening(rules, server_seed, client_seed, deal)
    except UnicodeEncodeError:
        raise ReplayError(created.seq, "the client seed is not Unicode text (a lone surrogate)") from None
    if public_view(start) != created.data.get("opening"):
        raise ReplayError(created.seq, "the opening shown is not the opening of the committed deal")
    return start


def _check_winnable_choice(
    seq: int, rules: Rules, server_seed: bytes, client_seed: str, record: Mapping[str, Any], spending: Budget
) -> None:
    """That the winnable deal is the first candidate the solver proves winnable, if the budget pays for it."""
    cost = rederivation_cost(record)
    if not spending.affords(cost):
        spending.unchecked.append(
            f"that candidate {record['candidate']} is the first winnable deal of these seeds (re-deriving it "
            f"searches up to {cost:,} positions, beyond {spending.words}; `osmosis verify` re-derives it)"
        )
        return
    wrong, searched = check_winnable(rules, server_seed, client_seed, record)
    spending.spend(searched)
    if wrong is not None:
        raise ReplayError(seq, f"the deal is not the seeds' winnable deal: {wrong}")


def _fold_checking_snapshots(
    start: GameState, events: Sequence[Event], snapshots: Mapping[int, str], daily: bool
) -> tuple[GameState, list[tuple[Event, GameState]]]:
    """The position the log folds to, checking on the way that each snapshot is the position at its seq
    and was taken where the server takes them: at the end of a step (for a daily game, whose seeds are revealed
    in a write of their own, at the end of an action); and each hint with its position."""
    ends = ev.ends_an_action if daily else ev.ends_a_step
    beyond = [seq for seq in snapshots if not 1 <= seq <= events[-1].seq]
    if beyond:
        raise ReplayError(min(beyond), "a snapshot is kept for an event the log does not have")
    final = start
    hinted = []
    undos = 0
    for index, (event, state) in enumerate(ev.positions(start, events)):
        final = state
        if event.kind == ev.HINT_GIVEN:
            hinted.append((event, state))
        if event.kind == ev.ACTION_UNDONE:
            if daily:
                raise ReplayError(
                    event.seq,
                    "an action of a daily deal's or a competition's game is taken back: its actions are final",
                )
            undos += 1
            if undos > ev.MAX_UNDOS:
                raise ReplayError(event.seq, f"more than {ev.MAX_UNDOS:,} undos: a game takes at most that many")
        snapshot = snapshots.get(event.seq)
        if snapshot is not None and (not ends(events, index) or snapshot != to_text(state)):
            raise ReplayError(
                event.seq, "the snapshot kept at this event is not the position at the end of an action here"
            )
    return final, hinted


def _check_hints(
    hinted: Sequence[tuple[Event, GameState]], spending: Budget, seeds: tuple[bytes, str], known: HintMemory | None
) -> None:
    """Each recorded hint is the one the solver gives in its position: hints are deterministic, and made
    from what the player had seen, so the verifier works each one out again and compares. A hint in `known` (by
    `hint_key`) was found the solver's by an earlier check and is not worked out again; each found now is added."""
    for index, (event, state) in enumerate(hinted):
        recorded = event.data
        key = hint_key(event, seeds)
        if known is not None and key in known:
            continue
        if recorded["solver"] not in SOLVERS or recorded["budget"] != HINT_BUDGET:
            spending.unchecked.append(
                f"the hint at event {event.seq}, made by {recorded['solver']} with a budget of {recorded['budget']:,} "
                f"positions (this verifier recomputes hints of {', '.join(SOLVERS)} with {HINT_BUDGET:,})"
            )
            continue
        if not spending.affords(recomputation_cost(recorded)):
            spending.unchecked.append(
                f"the {len(hinted) - index} hint(s) from event {event.seq} on (recomputing them searches "
                f"beyond {spending.words}; `osmosis verify` recomputes every hint)"
            )
            return
        worked_out = hint(state, HINT_BUDGET, recorded["solver"], recorded.get("exact_choice")).to_dict()
        spending.spend(recomputation_cost(worked_out))
        if not same_json(worked_out, recorded):
            differs = next(name for name in worked_out if not same_json(worked_out[name], recorded.get(name)))
            raise ReplayError(event.seq, f"hint_given is not the hint the solver gives here: its {differs} differs")
        if known is not None:
            known.add(key)


def hint_key(event: Event, seeds: tuple[bytes, str]) -> str:
    """What decides a recorded hint's verdict: its event's hash, which chains it to every event before it and to the
    commitment, and the seeds, which with those events make the position it was given in."""
    server_seed, client_seed = seeds
    return hashlib.sha256(bytes.fromhex(event.hash) + server_seed + client_seed.encode()).hexdigest()


def same_json(one: object, other: object) -> bool:
    """Equal as JSON, not as Python values: 7.0 is not 7, nor is true 1."""
    try:
        return canonical_json(one) == canonical_json(other)
    except (TypeError, ValueError, RecursionError):
        return False


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_hex(value: object, digits: int) -> bool:
    return isinstance(value, str) and len(value) == digits and all(c in "0123456789abcdef" for c in value)
