"""A competition recomputed by a stranger (`osmosis audit --competition ID URL`), from the public log's tiles and the
games' exports alone, then compared with the results the server serves.

From the log (its checkpoint's signature checked, its entries hashed to the checkpoint's root): the announcement and
its terms; the field, entry by entry in the log's order (each entrant of the announced kind, joined before the
announcement, entered before the entries closed, not twice, the field never past its size); each entrant's game
started once, on the announced clock; each game's finish. From each game's export: the game verifies against the
announced commitment and the seed the close revealed, on the entrant's clock, within its limit, and ends as its
finish entry says (head hash, events, status, cards home, actions, time). Then the ranking (log/standings.py), its
root against the close's and every amendment's, and the served results against both. The first disagreement is
named; nothing the server says is taken for true.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from ..log import competition_entries as ce
from ..log import events as ev
from ..log import public_entries as pe
from ..log import strict_json
from ..log.replay import verify
from ..log.standings import Standing, ranked, standings_root
from ..transparency.notes import NoteError, Verifier, open_checkpoint
from .audit import MonitorState, new_entries

Fetch = Callable[[str], bytes]
VERIFY_BUDGET = 300_000
_ACTIONS = (ev.CARD_PLAYED, ev.CARD_TO_CELL, ev.CARDS_DEALT, ev.WASTE_REDEALT)


class Disagreement(Exception):
    """The first thing the log, an export or the served results get wrong."""


@dataclass
class CompetitionReport:
    ok: bool = True
    problem: str | None = None
    checkpoint_size: int = 0
    entrants: int = 0
    games_verified: int = 0
    standings_root: str | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Entrant:
    name: str
    kind: str
    game_id: str | None = None
    started_at: str | None = None
    finish: dict[str, Any] | None = None
    finish_index: int | None = None
    struck: str | None = None


def audit_competition(fetch: Fetch, key: Verifier, competition_id: UUID) -> CompetitionReport:
    """The competition recomputed and compared; `ok` False with `problem`, the first disagreement, when any."""
    report = CompetitionReport()
    try:
        _recompute(fetch, key, str(competition_id), report)
    except Disagreement as problem:
        report.ok, report.problem = False, str(problem)
    return report


def _recompute(fetch: Fetch, key: Verifier, competition_id: str, report: CompetitionReport) -> None:
    entries = _logged_entries(fetch, key, report)
    joined: dict[str, int] = {}
    mine: list[tuple[int, dict[str, Any]]] = []
    for index, entry in enumerate(entries):
        value = pe.parse_entry(entry)
        if value["kind"] == pe.PLAYER_JOINED:
            joined.setdefault(value["player"]["name"], index)
        elif value["kind"] in ce.KINDS and value["competition_id"] == competition_id:
            mine.append((index, value))
    if not mine or mine[0][1]["kind"] != ce.COMPETITION_ANNOUNCED:
        raise Disagreement(f"the log's first entry of competition {competition_id} is not its announcement")
    announced_at, terms = mine[0]
    field_ = _field(mine[1:], terms, joined, announced_at)
    closed = next((value for _, value in mine if value["kind"] == ce.COMPETITION_CLOSED), None)
    if closed is None:
        raise Disagreement("the competition has not closed in the log: its results cannot be recomputed yet")
    if not ce.seed_matches(closed, terms["commitment"]):
        raise Disagreement("the seed the close revealed does not hash to the announced commitment")
    for entrant in field_.values():
        if entrant.game_id is not None:
            _check_game(fetch, entrant, terms, closed["server_seed"])
            report.games_verified += 1
    report.entrants = len(field_)
    root = _ranked_root(field_, closed)
    for _, amendment in (item for item in mine if item[1]["kind"] == ce.COMPETITION_RESULT_AMENDED):
        name = amendment["player"]["name"]
        if name not in field_:
            raise Disagreement(f"an amendment names {name}, who is not in the field")
        field_[name].struck = amendment["reason"] if amendment["action"] == "disqualify" else None
        root = _ranked_root(field_, amendment)
    rows = ranked(_standings(field_))
    report.rows, report.standings_root = rows, root
    _compare_served(fetch, competition_id, rows, root)


def _logged_entries(fetch: Fetch, key: Verifier, report: CompetitionReport) -> list[bytes]:
    """Every entry of the log up to its signed checkpoint, hashed to its root."""
    try:
        checkpoint = open_checkpoint(fetch("/log/checkpoint").decode(), key)[0]
    except (OSError, UnicodeDecodeError, NoteError) as error:
        raise Disagreement(f"the checkpoint: {error}") from None
    report.checkpoint_size = checkpoint.size
    tree = MonitorState()
    try:
        entries = list(new_entries(fetch, 0, checkpoint.size))
    except (OSError, ValueError) as error:
        raise Disagreement(f"the log's entries: {error}") from None
    for entry in entries:
        tree.append(entry)
    if (tree.root() if tree.size else None) != (checkpoint.root if checkpoint.size else None):
        raise Disagreement(f"the entries served do not hash to the root of the checkpoint of size {checkpoint.size}")
    return entries


def _field(
    entries: list[tuple[int, dict[str, Any]]], terms: dict[str, Any], joined: dict[str, int], announced: int
) -> dict[str, _Entrant]:
    """The entrants, as the log's entries of the competition make them, each checked against the terms."""
    starts_at = datetime.fromisoformat(terms["starts_at"])
    limit = timedelta(milliseconds=terms["limit_ms"])
    last_start = starts_at if terms["format"] == "race" else datetime.fromisoformat(terms["ends_at"]) - limit
    entrants: dict[str, _Entrant] = {}
    for index, value in entries:
        kind, at = value["kind"], datetime.fromisoformat(value["at"])
        name = value.get("player", {}).get("name")
        if kind == ce.COMPETITION_ENTERED:
            if name in entrants:
                raise Disagreement(f"entry {index}: {name} entered twice")
            if value["player"]["kind"] != terms["entrants"]:
                raise Disagreement(f"entry {index}: {name} is a {value['player']['kind']}, not a {terms['entrants']}")
            if not joined.get(name, announced) < announced:
                raise Disagreement(f"entry {index}: {name} joined after the announcement, and entered all the same")
            if at >= last_start:
                raise Disagreement(f"entry {index}: {name} entered after the entries closed")
            entrants[name] = _Entrant(name, value["player"]["kind"])
            if len(entrants) > terms["max_entrants"]:
                raise Disagreement(f"entry {index}: the field passes its {terms['max_entrants']} entrants")
        elif kind == ce.COMPETITION_WITHDRAWN:
            if name not in entrants or entrants[name].game_id is not None:
                raise Disagreement(f"entry {index}: {name} withdrew without being in the field before their start")
            del entrants[name]
        elif kind == ce.COMPETITION_GAME_STARTED:
            entrant = entrants.get(name)
            if entrant is None or entrant.game_id is not None:
                raise Disagreement(f"entry {index}: a game started for {name}, who is not an entrant without one")
            started = datetime.fromisoformat(value["started_at"])
            if (terms["format"] == "race" and started != starts_at) or not starts_at <= started <= last_start:
                raise Disagreement(f"entry {index}: {name}'s clock started at {value['started_at']}, off the schedule")
            entrant.game_id, entrant.started_at = value["game_id"], value["started_at"]
        elif kind == ce.COMPETITION_GAME_FINISHED:
            entrant = entrants.get(name)
            if entrant is None or entrant.game_id != value["game_id"] or entrant.finish is not None:
                raise Disagreement(f"entry {index}: a finish of a game that is not {name}'s one game")
            entrant.finish, entrant.finish_index = value, index
    return entrants


def _check_game(fetch: Fetch, entrant: _Entrant, terms: dict[str, Any], seed: str) -> None:
    """The entrant's export verifies, on the announced deal and clock, and ends as its finish entry says."""
    game_id = entrant.game_id
    try:
        document = strict_json.loads(fetch(f"/games/{game_id}/replay"))
    except (OSError, strict_json.JSONRefused) as error:
        raise Disagreement(f"game {game_id}: its export could not be fetched: {error}") from None
    verdict = verify(document, VERIFY_BUDGET)
    if not verdict.valid:
        raise Disagreement(f"game {game_id}: its export is INVALID: {verdict.reason}")
    events = document["events"]
    created = events[0]["data"]
    clock = created.get("competition") or {}
    expected = (terms["commitment"], terms["rules"], entrant.name, entrant.started_at, terms["limit_ms"])
    found = (
        document["commitment"],
        document["rules"],
        created.get("player", {}).get("name"),
        clock.get("started_at"),
        clock.get("limit_ms"),
    )
    if found != expected or created["deal"].get("competition_id") != clock.get("id"):
        raise Disagreement(f"game {game_id}: not {entrant.name}'s game of this competition's deal and clock")
    if events[-1]["kind"] != ev.SEEDS_REVEALED or events[-1]["data"]["server_seed"] != seed:
        raise Disagreement(f"game {game_id}: its log does not reveal the seed the competition's close revealed")
    finish = entrant.finish
    if finish is None:
        raise Disagreement(f"game {game_id}: the log has no finish of it, and the competition has closed")
    # The event that ended the game is the last of its step (a winning move's game_won comes after the move).
    ending = next(event for event in events if event["kind"] in _ENDINGS)
    recomputed = {
        "status": _ENDINGS[ending["kind"]],
        "score": _score(events, ending),
        "actions": sum(event["kind"] in _ACTIONS for event in events),
        "elapsed_ms": ending["data"][ev.ELAPSED],
        "events": ending["seq"],
        "head_hash": ending["hash"],
    }
    logged = {name: finish[name] for name in recomputed}
    if recomputed != logged:
        wrong = ", ".join(name for name in recomputed if recomputed[name] != logged[name])
        raise Disagreement(f"game {game_id}: its export does not end as its finish entry says ({wrong})")


_ENDINGS = {ev.GAME_WON: "won", ev.GAME_LOST: "lost", ev.GAME_RESIGNED: "resigned", ev.GAME_TIMED_OUT: "timed_out"}


def _score(events: list[dict[str, Any]], ending: dict[str, Any]) -> int:
    """Cards home at the end: what the ending event says, or (a resignation) the opening's and those played home
    since (a competition game takes no undo)."""
    if "score" in ending["data"]:
        return int(ending["data"]["score"])
    opening = events[0]["data"]["opening"]
    home = sum(len(foundation["cards"]) for foundation in opening["foundations"])
    played = sum(1 for event in events if event["kind"] == ev.CARD_PLAYED)
    return int(home) + played


def _standings(entrants: dict[str, _Entrant]) -> list[Standing]:
    rows = []
    for entrant in entrants.values():
        if entrant.game_id is None or entrant.finish is None:
            rows.append(Standing(entrant.name, entrant.kind, "timed_out", struck=entrant.struck))
            continue
        finish = entrant.finish
        rows.append(
            Standing(
                entrant.name,
                entrant.kind,
                finish["status"],
                finish["score"],
                finish["actions"],
                finish["elapsed_ms"],
                UUID(entrant.game_id),
                entrant.finish_index,
                entrant.struck,
            )
        )
    return rows


def _ranked_root(entrants: dict[str, _Entrant], entry: dict[str, Any]) -> str:
    root = standings_root(ranked(_standings(entrants)))
    if root != entry["standings_root"]:
        raise Disagreement(
            f"the {entry['kind']} entry's standings root is not the one the log's entries and the games rank to"
        )
    return root


def _compare_served(fetch: Fetch, competition_id: str, rows: list[dict[str, Any]], root: str) -> None:
    try:
        served = strict_json.loads(fetch(f"/competitions/{competition_id}/results"))
    except (OSError, strict_json.JSONRefused) as error:
        raise Disagreement(f"the served results could not be fetched: {error}") from None
    if served.get("standings_root") != root:
        raise Disagreement("the served results' standings root is not the log's")
    served_rows = [{name: value for name, value in row.items() if name != "links"} for row in served["results"]]
    for rank, (mine, theirs) in enumerate(zip(rows, served_rows, strict=False), start=1):
        if mine != theirs:
            raise Disagreement(
                f"the served results differ from the recomputed ones at row {rank} ({mine['player']['name']})"
            )
    if len(rows) != len(served_rows):
        raise Disagreement(f"the served results have {len(served_rows)} rows, the recomputed ones {len(rows)}")
