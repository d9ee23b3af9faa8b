"""A log retired: when the entries a restore took are gone for good (its tiles lost too), the log cannot go on under
its key without forking. It is frozen with a final checkpoint, signed by its key, of the last tree it published,
whose note names its successor's key; and a new log, under a new key and origin, goes on in the same tables: its
tree is the retired log's surviving entries, then a first entry of its own (log_retired) carrying that final
checkpoint, then every entry since. Exports made before still verify against the retired key; a monitor pinned to
it finds the retirement at /log/retirements."""

from __future__ import annotations

from typing import Protocol

from ...game.records import PublicEntry
from ...log.public_entries import LOG_RETIRED, SUCCESSOR, log_id, log_retired, successor_named
from ...transparency.notes import Checkpoint, NoteError, Signer, Verifier, open_checkpoint, parse_verifier, sign_note
from ..ports import PublicLogStore
from ..records import Retirement, SignedCheckpoint


class RetirementRefused(RuntimeError):
    """A retirement that cannot be made: its message says why."""


class RetiringStore(PublicLogStore, Protocol):
    def retire_log(self, retirement: Retirement, entry: PublicEntry) -> None:
        """Under the sequencer's lock: record the retirement, and the successor's first entry as pending.
        RetirementRefused if that log was retired already."""
        ...


def retire(store: RetiringStore, retired: Signer, successor: Signer, last: SignedCheckpoint) -> Retirement:
    """Retire the log of `retired`'s key at `last`, the largest checkpoint it published, for `successor`'s."""
    if successor.name == retired.name or successor.verifier.vkey == retired.verifier.vkey:
        raise RetirementRefused("the successor needs a key and an origin of its own")
    final = sign_note(
        Checkpoint(retired.name, last.size, last.root, (SUCCESSOR + successor.verifier.vkey,)).text, retired
    )
    retirement = Retirement(retired.name, retired.verifier.vkey, final, successor.name, successor.verifier.vkey)
    entry = PublicEntry(log_id(retired.name), LOG_RETIRED, log_retired(retired.name, retired.verifier.vkey, final))
    store.retire_log(retirement, entry)
    return retirement


def predecessor_signed(note: str, successor: Verifier, retirements: list[Retirement]) -> bool:
    """Whether `note` is signed by the key of a log that `successor`'s log succeeds."""
    for retirement in retirements:
        if retirement.successor_key != successor.vkey:
            continue
        try:
            open_checkpoint(note, parse_verifier(retirement.verifier_key))
        except NoteError:
            continue
        return True
    return False


def final_checkpoint_of(retirement: Retirement, verifier: Verifier) -> Checkpoint:
    """The retired log's final checkpoint, checked against its key; NoteError when it is not that log's."""
    checkpoint = open_checkpoint(retirement.final_checkpoint, verifier)[0]
    if successor_named(checkpoint.extensions) is None:
        raise NoteError("the final checkpoint names no successor")
    return checkpoint
