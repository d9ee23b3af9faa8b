"""The public log's guard against forking itself.

A log whose database was restored from a backup taken before its last published checkpoint would sign, at a size
it already published, a tree of other entries: a fork, which anyone holding the two checkpoints can prove, and
which has ended real logs. So the log keeps what it signed where a restore of the database does not reach (a
record beside its key, the checkpoint of its tiles directory) and asks each witness for the latest checkpoint it
cosigned. Before it signs, the tree in the database must reach each of those and agree with it; behind one or
diverging from one, the log signs nothing, integrates nothing, and says so until `osmosis log recover` brings the
missing entries back (or `osmosis log retire` ends it). Games go on meanwhile; their entries wait, pending.

The record is one for the whole deployment: every instance keeps it in one place (the tiles directory all of them
share), and the first to sign claims that place in the database; an instance whose record is elsewhere signs
nothing, since its record would not hold what the others handed out. A log that lists witnesses signs nothing
until one of them has said what it cosigned last (a witness away at a restart would otherwise leave a lost record
unguarded), and its tree must extend that.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ...transparency.notes import Note, NoteError, Verifier, open_checkpoint, parse_checkpoint, parse_note
from ..records import SignedCheckpoint

log = logging.getLogger(__name__)


class RecordUnreadable(RuntimeError):
    """A record of the log's checkpoints that cannot be read: never taken to mean that nothing was handed out."""


class CheckpointRecord(Protocol):
    """Checkpoints the log handed out, kept outside its database: each only ever grows. Reading one that cannot be
    read raises RecordUnreadable."""

    def signed(self) -> SignedCheckpoint | None:
        """The largest checkpoint signed (recorded before it is offered to a witness or served)."""
        ...

    def published(self) -> SignedCheckpoint | None:
        """The largest checkpoint published, with its cosignatures."""
        ...

    def record_signed(self, checkpoint: SignedCheckpoint) -> None: ...

    def record_published(self, checkpoint: SignedCheckpoint) -> None: ...


class WitnessCheckpoints(Protocol):
    """What each witness holds of this log."""

    def names(self) -> Sequence[str]: ...

    def latest_cosigned(self, witness: str) -> str | None:
        """The note of the latest checkpoint `witness` cosigned for this log (None: it cosigned none); OSError or
        ValueError when it cannot say now."""
        ...


def checkpoint_of(note: str, cosignatures: tuple[str, ...] = ()) -> SignedCheckpoint:
    """The checkpoint a signed note carries (ValueError when it carries none)."""
    try:
        checkpoint = parse_checkpoint(parse_note(note).text)
    except NoteError as error:
        raise ValueError(f"not a signed checkpoint: {error}") from None
    return SignedCheckpoint(checkpoint.size, checkpoint.root, note, cosignatures)


def published_checkpoint_of(text: str) -> SignedCheckpoint:
    """The checkpoint as /log/checkpoint serves it: the log's signed note, then the witnesses' cosignatures."""
    try:
        parsed = parse_note(text)
        origin = parse_checkpoint(parsed.text).origin
    except NoteError as error:
        raise ValueError(f"not a signed checkpoint: {error}") from None
    own = tuple(s for s in parsed.signatures if s.name == origin)
    cosignatures = tuple(s.line for s in parsed.signatures if s.name != origin)
    return checkpoint_of(str(Note(parsed.text, own)), cosignatures)


class LogRefused(RuntimeError):
    """The log's tree is behind, or diverges from, a checkpoint it handed out: it signs nothing."""

    def __init__(self, message: str, size: int, reference: int) -> None:
        super().__init__(message)
        self.size, self.reference = size, reference


@dataclass(frozen=True, slots=True)
class _Reference:
    source: str
    size: int
    root: bytes


OK = "ok"


class ForkGuard:
    def __init__(
        self,
        verifier: Verifier,
        records: Sequence[tuple[str, CheckpointRecord]] = (),
        witnesses: WitnessCheckpoints | None = None,
        place: str | None = None,
    ) -> None:
        """`records`: where what the log signed is kept, each with the words that name it in a refusal. `place`:
        the id of the place the deployment's record is kept (None: this process keeps none, as in the tests)."""
        self._verifier = verifier
        self._place = place
        self._claimed: str | None = None
        self._records = tuple(records)
        self._witnesses = witnesses
        self._unheard: dict[str, str] = (
            {name: "not asked yet" for name in witnesses.names()} if witnesses is not None else {}
        )
        """Each witness not heard from yet, and why: unreachable, or an answer that is no witness's."""
        self._heard: list[tuple[str, SignedCheckpoint]] = []
        """What each witness heard from said it cosigned last, with the words that name it in a refusal."""
        self._agreed: set[tuple[int, bytes]] = set()
        """References found in the tree already: a tree that agrees with one keeps agreeing as it grows."""
        self._lock = threading.Lock()
        self._status = OK

    @property
    def status(self) -> str:
        """ "ok", or why the log signs nothing (as the last check found)."""
        return self._status

    def consult_witnesses(self) -> None:
        """Ask each witness not heard from yet for the latest checkpoint it cosigned (each call it may take its
        time: run outside any transaction)."""
        for name in list(self._unheard):
            assert self._witnesses is not None
            try:
                note = self._witnesses.latest_cosigned(name)
            except (OSError, ValueError) as error:
                if self._still_unheard(name, str(error)):
                    log.warning("witness %s did not say which checkpoint of this log it cosigned last: %s", name, error)
                continue
            source = f"the checkpoint witness {name} cosigned"
            try:
                heard = self._ours(note) if note else None
            except (NoteError, ValueError) as error:
                # A page in a witness's place, or a checkpoint in this log's name its key did not sign (the other
                # side of a fork would look so): no witness spoke, and whatever it claims is no reference.
                said = f"what it answered is not a checkpoint of this log: {error}"
                if self._still_unheard(name, said):
                    log.error("witness %s: %s", name, said)
                continue
            with self._lock:
                if heard is not None:
                    self._heard.append((source, heard))
                del self._unheard[name]

    def _still_unheard(self, name: str, said: str) -> bool:
        """Keep why witness `name` is still not heard from; whether that is news (the log says it once, not at each
        turn it asks again)."""
        with self._lock:
            news = self._unheard.get(name) != said
            self._unheard[name] = said
        return news

    def claim_place(self, claim: Callable[[str], str]) -> None:
        """Learn which place the deployment's record is kept in (`claim`: the store's, claiming ours if none was)."""
        if self._place is not None and self._claimed != self._place:
            self._claimed = claim(self._place)

    def largest_heard(self) -> SignedCheckpoint | None:
        """The largest checkpoint a witness said it cosigned: published, whatever the database lost."""
        with self._lock:
            return max((checkpoint for _, checkpoint in self._heard), key=lambda c: c.size, default=None)

    def check(self, latest: SignedCheckpoint | None, root_at: Callable[[int], bytes]) -> None:
        """Raise LogRefused unless the tree of `latest` (its root at a smaller size: `root_at(size)`) reaches and
        agrees with every checkpoint handed out."""
        size = latest.size if latest is not None else 0
        try:
            self._check_witnesses_heard(size)
            try:
                references = self._references()
            except RecordUnreadable as error:
                raise LogRefused(f"its record of what it handed out cannot be read: {error}", size, size) from None
            for reference in references:
                self._compare(reference, latest, size, root_at)
            self._check_place(size)
        except LogRefused as refused:
            if self._status != str(refused):
                log.error("the public log signs nothing: %s", refused)
            self._status = str(refused)
            raise
        if self._status != OK:
            log.warning("the public log's tree agrees again with every checkpoint it handed out: it signs again")
        self._status = OK

    def check_quietly(self, latest: SignedCheckpoint | None, root_at: Callable[[int], bytes]) -> None:
        """Check, for the status only."""
        with contextlib.suppress(LogRefused):
            self.check(latest, root_at)

    def _check_place(self, size: int) -> None:
        if self._place is not None and self._claimed is not None and self._claimed != self._place:
            raise LogRefused(
                f"its record of what it handed out is kept at place {self._place}, but the deployment's is at "
                f"{self._claimed}: another instance signs with a record this one cannot see (every instance must "
                "share one LOG_TILES_DIR), or the directory was lost and made anew (`osmosis log recover` from a "
                "copy of the tiles, or `osmosis log retire`, starts the record there; docs/operations.md)",
                size,
                size,
            )

    def _check_witnesses_heard(self, size: int) -> None:
        if self._witnesses is not None and self._witnesses.names():
            with self._lock:
                heard_from = len(self._witnesses.names()) - len(self._unheard)
                why = "; ".join(f"{name}: {said}" for name, said in self._unheard.items())
            if not heard_from:
                raise LogRefused(
                    "no witness has said yet which checkpoint of this log it cosigned last: it signs nothing "
                    f"until one does ({why})",
                    size,
                    size,
                )

    def _references(self) -> list[_Reference]:
        references = []
        for words, record in self._records:
            for checkpoint in (record.signed(), record.published()):
                if checkpoint is not None:
                    references.append(_Reference(words, checkpoint.size, checkpoint.root))
        with self._lock:
            return references + [_Reference(source, c.size, c.root) for source, c in self._heard]

    def _compare(
        self, reference: _Reference, latest: SignedCheckpoint | None, size: int, root_at: Callable[[int], bytes]
    ) -> None:
        key = (reference.size, reference.root)
        if key in self._agreed or reference.size == 0:
            return
        if reference.size > size:
            raise LogRefused(
                f"its tree ({size} entries) is behind {reference.source}, of size {reference.size}: entries are "
                "missing from the database (restored from an older backup?); `osmosis log recover` brings them "
                "back from the log's tiles",
                size,
                reference.size,
            )
        root = latest.root if latest is not None and reference.size == size else root_at(reference.size)
        if root != reference.root:
            raise LogRefused(
                f"its tree ({size} entries) diverges from {reference.source} at size {reference.size}: its root "
                "there differs; the database holds other entries than those the log published",
                size,
                reference.size,
            )
        self._agreed.add(key)

    def _ours(self, note: str) -> SignedCheckpoint:
        """The checkpoint `note` carries (with its cosignatures): NoteError or ValueError unless this log's key
        signed it."""
        open_checkpoint(note, self._verifier)
        return published_checkpoint_of(note)
