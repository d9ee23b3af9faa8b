"""A monitor of the public log (`osmosis audit`): it follows the log from the state it kept, trusting nothing
the server says that it cannot check.

Each run fetches the checkpoint and checks its signature (and the witnesses' cosignatures asked for), its
consistency with the checkpoint kept last time, downloads the new entries from the entry bundles, recomputes
the root from them and the kept right edge of the tree, and checks every entry: each game created once and
ended at most once, after its creation; each ended game's export fetched and verified, its head hash the one
logged. A split view (two checkpoints of one size with different roots, or two that are not proven one a prefix
of the other) is reported with both signed checkpoints as evidence. A checkpoint older than the one kept and
proven its prefix is a stale view (a cache, a lagging replica): reported, not held against the log, and the state
kept stays where it was.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..log import competition_entries as ce
from ..log import public_entries as pe
from ..log import strict_json
from ..log.replay import verify
from ..transparency.merkle import ProofError, leaf_hash, node_hash, verify_consistency
from ..transparency.notes import Checkpoint, NoteError, Verifier, open_checkpoint
from ..transparency.tiles import TILE_WIDTH, bundle_entries, tile_path
from .boards import check_day, daily_result

Fetch = Callable[[str], bytes]
"""A path of the server (/log/checkpoint, ...) -> its body; raises OSError for anything but a 200."""
VERIFY_BUDGET = 300_000


@dataclass
class MonitorState:
    """What the monitor keeps between runs (its --state file)."""

    checkpoint: str | None = None
    size: int = 0
    frontier: list[tuple[int, bytes]] = field(default_factory=list)
    """The right edge of the tree: the (height, hash) of each complete subtree of the decomposition of `size`."""
    games: dict[str, dict[str, int]] = field(default_factory=dict)
    """Each game's and sealed deal's entries by kind: their leaf index."""
    creations: dict[str, str] = field(default_factory=dict)
    """Each game's creation entry, as its leaf hash in base64: what its export must rebuild."""
    daily: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each ended and verified daily game of a player, by id: its day, preset, player and result, as its log entries
    and export show them, and whether the day's boards may rank it (what a day's board must show:
    monitor/boards.py)."""
    joined: dict[str, int] = field(default_factory=dict)
    """Each player's player_joined entry, by name: its leaf index."""
    openings: dict[str, list[Any]] = field(default_factory=dict)
    """Each day's deal of a preset ("day/variant"): its opening's leaf index, and whether its boards rank only the
    players who joined before it."""

    def to_json(self) -> str:
        return json.dumps(
            {
                "checkpoint": self.checkpoint,
                "size": self.size,
                "frontier": [[h, base64.b64encode(v).decode()] for h, v in self.frontier],
                "games": self.games,
                "creations": self.creations,
                "daily": self.daily,
                "joined": self.joined,
                "openings": self.openings,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> MonitorState:
        raw = json.loads(text)
        return cls(
            raw["checkpoint"],
            raw["size"],
            [(h, base64.b64decode(v)) for h, v in raw["frontier"]],
            raw["games"],
            raw["creations"],
            raw.get("daily", {}),
            raw.get("joined", {}),
            raw.get("openings", {}),
        )

    def root(self) -> bytes:
        hashes = [h for _, h in self.frontier]
        root = hashes[-1]
        for left in reversed(hashes[:-1]):
            root = node_hash(left, root)
        return root

    def append(self, entry: bytes) -> None:
        self.frontier.append((0, leaf_hash(entry)))
        while len(self.frontier) > 1 and self.frontier[-1][0] == self.frontier[-2][0]:
            (height, left), (_, right) = self.frontier[-2], self.frontier[-1]
            self.frontier[-2:] = [(height + 1, node_hash(left, right))]
        self.size += 1


@dataclass
class Report:
    """A monitor's run, as `to_dict` gives it, its fields in this order."""

    ok: bool = True
    checkpoint_size: int | None = None
    new_entries: int = 0
    games_verified: int = 0
    board_rows_checked: int = 0
    problems: list[str] = field(default_factory=list)
    split_view: list[str] | None = None
    """The two signed checkpoints that cannot both be the log's, when it showed a split view."""
    stale_view: str | None = None
    """What the server showed when it served a checkpoint older than the one kept and proven its prefix."""
    retired: str | None = None
    """The log was retired: where, and the key of the log that succeeds it."""

    def fail(self, problem: str) -> None:
        self.ok = False
        self.problems.append(problem)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def audit(
    fetch: Fetch,
    key: Verifier,
    witnesses: list[Verifier],
    state: MonitorState,
    progress: Callable[[int, int], None] = lambda done, total: None,
    boards: Sequence[str] = (),
) -> Report:
    """One run: the report, and `state` advanced to the new checkpoint if every check held; then each day of
    `boards` recomputed from the games verified so far and compared with the boards served."""
    report = Report()
    try:
        note = fetch("/log/checkpoint").decode()
        checkpoint, _, cosigned = open_checkpoint(note, key, *witnesses)
    except (OSError, UnicodeDecodeError, NoteError) as error:
        if not _retired(fetch, key, state, report):
            report.fail(f"the checkpoint: {error}")
        return report
    report.checkpoint_size = checkpoint.size
    for witness in witnesses:
        if witness not in cosigned:
            report.fail(f"the checkpoint of size {checkpoint.size} carries no cosignature of witness {witness.name}")
    if state.checkpoint is not None and checkpoint.size < state.size:
        _behind(fetch, state, checkpoint, note, report)
        return report
    if state.checkpoint is not None and not _extends(fetch, state, checkpoint, note, report):
        return report
    if not report.ok:
        return report
    grown = MonitorState(
        state.checkpoint,
        state.size,
        list(state.frontier),
        {subject: dict(kinds) for subject, kinds in state.games.items()},
        dict(state.creations),
        dict(state.daily),
        dict(state.joined),
        dict(state.openings),
    )
    ended: list[tuple[str, dict[str, Any]]] = []
    total = checkpoint.size - state.size
    try:
        for entry in new_entries(fetch, state.size, checkpoint.size):
            index = grown.size
            grown.append(entry)
            _check_entry(index, entry, grown, ended)
            progress(grown.size - state.size, total)
    except (OSError, ValueError) as error:
        report.fail(str(error))
        return report
    if (grown.root() if grown.size else None) != (checkpoint.root if checkpoint.size else None):
        report.fail(f"the entries served do not hash to the root of the checkpoint of size {checkpoint.size}")
        return report
    report.new_entries = total
    for game_id, logged_end in ended:
        _check_ended_game(fetch, game_id, logged_end, grown, report)
        report.games_verified += 1
    if report.ok:
        grown.checkpoint = note
        state.__dict__.update(grown.__dict__)
        for day in boards:
            report.board_rows_checked += check_day(fetch, state.daily, day, report.fail)
    return report


def _retired(fetch: Fetch, key: Verifier, state: MonitorState, report: Report) -> bool:
    """Whether the log of `key` was retired (/log/retirements names it), reported with its final checkpoint held
    against the state kept: the same tree at the kept size, or a larger one whose entries past the kept size were
    lost (that is why it was retired: they cannot be checked)."""
    try:
        listed = strict_json.loads(fetch("/log/retirements"))["retirements"]
        retirement = next((r for r in listed if r["verifier_key"] == key.vkey), None)
        if retirement is None:
            return False
        final = open_checkpoint(retirement["final_checkpoint"], key)[0]
    except (OSError, ValueError, KeyError, TypeError, NoteError):
        return False
    successor = pe.successor_named(final.extensions) or "not named"
    report.checkpoint_size = final.size
    report.retired = (
        f"the log {key.name} was retired on {retirement['retired_at']} at {final.size} entries; its successor's key "
        f"is {successor}: pin it to follow the new log"
    )
    if final.size < state.size:
        report.fail(f"the log was retired at {final.size} entries, behind the {state.size} this monitor checked")
    elif final.size == state.size and state.size and final.root != state.root():
        report.fail(f"the retired log's final checkpoint of size {final.size} is not the tree this monitor checked")
    elif final.size > state.size:
        report.retired += f"; its entries {state.size} to {final.size - 1} were lost and cannot be checked"
    return True


def _extends(fetch: Fetch, state: MonitorState, checkpoint: Checkpoint, note: str, report: Report) -> bool:
    kept = state.checkpoint
    assert kept is not None
    old_root = state.root() if state.size else None
    if checkpoint.size == state.size and checkpoint.root != old_root:
        report.fail(
            f"split view: the log signed a checkpoint of size {checkpoint.size} that does not extend the one "
            f"of size {state.size} it signed before"
        )
        report.split_view = [kept, note]
        return False
    if state.size == 0 or checkpoint.size == state.size:
        return True
    assert old_root is not None
    proven = _consistent(fetch, state.size, old_root, checkpoint.size, checkpoint.root)
    if proven is not None:
        report.fail(
            f"split view: the checkpoint of size {checkpoint.size} is not proven consistent with the one of "
            f"size {state.size} kept before ({proven})"
        )
        report.split_view = [kept, note]
        return False
    return True


def _behind(fetch: Fetch, state: MonitorState, checkpoint: Checkpoint, note: str, report: Report) -> None:
    """A checkpoint older than the one kept: a stale view if it is proven a prefix of it, else a split view."""
    kept = state.checkpoint
    assert kept is not None
    unproven = (
        _consistent(fetch, checkpoint.size, checkpoint.root, state.size, state.root()) if checkpoint.size else None
    )
    if unproven is None:
        report.stale_view = (
            f"stale view: the server showed the checkpoint of size {checkpoint.size}, older than the "
            f"one of size {state.size} kept, and proven a prefix of it (a cache or a lagging copy: "
            "not a fault of the log); nothing new was checked"
        )
        return
    report.fail(
        f"split view: the log signed a checkpoint of size {checkpoint.size} that is not proven a prefix of the "
        f"one of size {state.size} it signed before ({unproven})"
    )
    report.split_view = [kept, note]


def _consistent(fetch: Fetch, old_size: int, old_root: bytes, new_size: int, new_root: bytes) -> str | None:
    """None when the server proves the tree of `old_size` a prefix of the one of `new_size`; else why not."""
    try:
        body = json.loads(fetch(f"/log/consistency?from={old_size}&to={new_size}"))
        proof = [base64.b64decode(h, validate=True) for h in body["proof"]]
        verify_consistency(old_size, new_size, old_root, new_root, proof)
    except (OSError, ValueError, KeyError, TypeError, ProofError) as error:
        return str(error) or type(error).__name__
    return None


def new_entries(fetch: Fetch, old_size: int, new_size: int) -> Iterator[bytes]:
    """The log's entries from `old_size` to `new_size`, from its entry bundles."""
    for index in range(old_size // TILE_WIDTH, -(-new_size // TILE_WIDTH)):
        width = min(TILE_WIDTH, new_size - index * TILE_WIDTH)
        path = tile_path(-1, index, width if width < TILE_WIDTH else None)
        entries = bundle_entries(fetch("/log/" + path))
        if len(entries) != width:
            raise ValueError(f"{path} holds {len(entries)} entries, not {width}")
        yield from entries[max(0, old_size - index * TILE_WIDTH) :]


def _check_entry(index: int, entry: bytes, state: MonitorState, ended: list[tuple[str, dict[str, Any]]]) -> None:
    try:
        value = pe.parse_entry(entry)
    except ValueError as error:
        raise ValueError(f"entry {index} is not a log entry: {error}") from None
    subject, kind = pe.subject_of(value), value["kind"]
    if kind in ce.KINDS:
        return  # a competition's entries, many to its subject: `osmosis audit --competition` recomputes them
    seen = state.games.setdefault(subject, {})
    if kind in seen:
        raise ValueError(f"entry {index}: {subject} has a second {kind} (the first at {seen[kind]})")
    if kind == pe.GAME_ENDED and pe.GAME_CREATED not in seen:
        raise ValueError(f"entry {index}: game {subject} ends before its creation is logged")
    seen[kind] = index
    if kind == pe.PLAYER_JOINED:
        state.joined.setdefault(value["player"]["name"], index)
    if kind == pe.DAILY_DEAL_OPENED:
        state.openings[f"{value['day']}/{value['variant']}"] = [index, value.get("ranks") == pe.JOINED_BEFORE]
    if kind == pe.GAME_CREATED:
        state.creations[subject] = base64.b64encode(leaf_hash(entry)).decode()
    if kind == pe.GAME_ENDED:
        ended.append((subject, value))


def _check_ended_game(fetch: Fetch, game_id: str, entry: dict[str, Any], state: MonitorState, report: Report) -> None:
    try:
        document = strict_json.loads(fetch(f"/games/{game_id}/replay"))
    except (OSError, strict_json.JSONRefused) as error:
        report.fail(f"game {game_id}: its export could not be fetched: {error}")
        return
    verdict = verify(document, VERIFY_BUDGET)
    if not verdict.valid:
        report.fail(f"game {game_id}: its export is INVALID: {verdict.reason}")
        return
    events = document["events"]
    if (document["head_hash"], len(events), document["status"]) != (
        entry["head_hash"],
        entry["events"],
        entry["status"],
    ):
        report.fail(f"game {game_id}: its export does not end as the log says (head hash, events or status differ)")
        return
    created = events[0]["data"]
    logged_creation = pe.game_created(
        game_id, created["variant"], created["rules"], created["deal"], document["commitment"], created.get("player")
    )
    if base64.b64encode(leaf_hash(logged_creation)).decode() != state.creations.get(game_id):
        report.fail(f"game {game_id}: its export's creation is not the one logged")
        return
    if created["deal"]["kind"] == "daily" and "player" in created:
        state.daily[game_id] = {**daily_result(created, events, entry), "ranks": _may_rank(state, created)}


def _may_rank(state: MonitorState, created: dict[str, Any]) -> bool:
    """Whether the day's boards may rank the game's player: every player on a day opened before the rule, else those
    whose joining the log holds before the day's deal opened."""
    opened = state.openings.get(f"{created['deal']['day']}/{created['variant']}")
    if opened is None or not opened[1]:
        return True
    joined = state.joined.get(created["player"]["name"])
    return joined is not None and joined < opened[0]
