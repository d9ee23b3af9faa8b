"""The witness's side of C2SP tlog-witness: add-checkpoint checks a log's new checkpoint against the latest one
the witness cosigned for that log, and cosigns it (C2SP tlog-cosignature/v1) only when it is consistent; the
monitoring read serves that latest cosigned checkpoint. What the witness remembers lives in a Ledger, which makes
the check and the update of one log's record one atomic step, so two racing requests can never roll a log back.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from ..transparency.merkle import EMPTY_ROOT, HASH_SIZE, ProofError, verify_consistency
from ..transparency.notes import (
    COSIGNATURE_V1,
    MAX_NOTE_BYTES,
    Note,
    NoteError,
    Signature,
    Signer,
    Verifier,
    cosign,
    open_note,
    parse_checkpoint,
    parse_note,
)

log = logging.getLogger(__name__)

MAX_PROOF_LINES = 63
MAX_REQUEST_BYTES = MAX_NOTE_BYTES + 64 * (MAX_PROOF_LINES + 1)
SIZE_MEDIA_TYPE = "text/x.tlog.size"
TEXT = "text/plain; charset=utf-8"
_OLD_LINE = re.compile(r"old (0|[1-9][0-9]{0,18})")
NEVER_COSIGNED = "this witness has cosigned no checkpoint of a log with that origin hash"
"""The body of GET <prefix>/<origin hash>/checkpoint's 404 for a log the witness never cosigned: a log that lists
the witness takes this answer, and no other 404, for "nothing yet" (runtime/witnessing.py)."""


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: str
    content_type: str = TEXT


@dataclass(frozen=True, slots=True)
class Cosigned:
    """The latest checkpoint the witness cosigned for one log: the note carries the log's signature and its own."""

    size: int
    root: bytes
    note: str


class Ledger(Protocol):
    def latest(self, origin: str) -> Cosigned | None: ...

    def holding(self, origin: str) -> AbstractContextManager[LedgerEntry]:
        """The log's record, held against every other request (in this process and any other) until exit."""
        ...


class LedgerEntry(Protocol):
    current: Cosigned | None

    def replace(self, cosigned: Cosigned) -> None:
        """Persist `cosigned` as the log's record before the holding ends (and before the witness answers)."""
        ...


class _Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.answer = Answer(status, reason + "\n")


class Witness:
    def __init__(self, signer: Signer, logs: Iterable[Verifier], ledger: Ledger, clock: Callable[[], float]) -> None:
        """`logs`: the verifier keys of the logs it follows (a log, its origin, may have several). `clock`: POSIX
        seconds, for the cosignatures' timestamps."""
        if signer.kind != COSIGNATURE_V1:
            raise NoteError("a witness signs with a cosignature key (type 0x04): `osmosis keygen --witness` makes one")
        self.signer = signer
        self._logs: dict[str, list[Verifier]] = {}
        for key in logs:
            self._logs.setdefault(key.name, []).append(key)
        self._ledger = ledger
        self._clock = clock

    @property
    def origins(self) -> Mapping[str, list[Verifier]]:
        return self._logs

    def add_checkpoint(self, body: bytes) -> Answer:
        try:
            return self._add_checkpoint(body)
        except _Refused as refused:
            return refused.answer

    def checkpoint(self, origin_hash: str) -> Answer:
        """GET <prefix>/<origin hash>/checkpoint: the latest checkpoint cosigned for the log of that origin."""
        origin = next((o for o in self._logs if hashlib.sha256(o.encode()).hexdigest() == origin_hash), None)
        latest = self._ledger.latest(origin) if origin is not None else None
        if latest is None:
            return Answer(404, NEVER_COSIGNED + "\n")
        return Answer(200, latest.note)

    def _add_checkpoint(self, body: bytes) -> Answer:
        old_size, proof, note = _parse_request(body)
        try:
            parsed = parse_note(note)
        except NoteError as error:
            raise _Refused(400, f"the checkpoint is not a signed note: {error}") from None
        origin = parsed.text.split("\n", 1)[0]
        keys = self._logs.get(origin)
        if keys is None:
            raise _Refused(404, f"this witness does not follow a log with origin {origin!r}")
        try:
            _, verified = open_note(note, *keys)
        except NoteError as error:
            raise _Refused(403, str(error)) from None
        try:
            checkpoint = parse_checkpoint(parsed.text)
        except NoteError as error:
            raise _Refused(400, str(error)) from None
        if old_size > checkpoint.size:
            raise _Refused(400, f"the old size {old_size} is larger than the checkpoint's, {checkpoint.size}")
        if checkpoint.size == 0 and checkpoint.root != EMPTY_ROOT:
            raise _Refused(422, "a checkpoint of size 0 has the empty tree's root, the hash of the empty string")
        with self._ledger.holding(origin) as record:
            known = record.current
            known_size = known.size if known is not None else 0
            if old_size != known_size:
                return Answer(409, f"{known_size}\n", SIZE_MEDIA_TYPE)
            try:
                _check_consistency(known, old_size, checkpoint.size, checkpoint.root, proof)
            except ProofError as error:
                log.warning(
                    "log %s signed a checkpoint inconsistent with the one cosigned at size %d (%s):\n%s",
                    origin,
                    known_size,
                    error,
                    note,
                )
                raise _Refused(422, f"not consistent with the checkpoint of size {known_size}: {error}") from None
            signature = cosign(parsed.text, self.signer, max(1, int(self._clock())))
            record.replace(Cosigned(checkpoint.size, checkpoint.root, _kept(parsed, verified, signature)))
        return Answer(200, signature.line)


def _check_consistency(known: Cosigned | None, old_size: int, size: int, root: bytes, proof: list[bytes]) -> None:
    if old_size == 0:
        if proof:
            raise ProofError("from the empty tree the consistency proof is empty")
        return
    assert known is not None
    verify_consistency(old_size, size, known.root, root, proof)


def _kept(note: Note, verified: list[Verifier], cosignature: Signature) -> str:
    """The note as the witness serves it: the log's signatures it verified, then its own cosignature."""
    keys = {(key.name, key.key_id) for key in verified}
    return str(Note(note.text, (*(s for s in note.signatures if (s.name, s.key_id) in keys), cosignature)))


def _parse_request(body: bytes) -> tuple[int, list[bytes], str]:
    if len(body) > MAX_REQUEST_BYTES:
        raise _Refused(413, f"an add-checkpoint request is at most {MAX_REQUEST_BYTES} bytes")
    try:
        text = body.decode()
    except UnicodeDecodeError:
        raise _Refused(400, "the request is not UTF-8") from None
    head, blank, note = text.partition("\n\n")
    if not blank:
        raise _Refused(400, "the request is 'old <size>', the proof's lines, an empty line, then the checkpoint")
    first, *lines = head.split("\n")
    match = _OLD_LINE.fullmatch(first)
    if match is None:
        raise _Refused(400, "the request starts with the line 'old <size>' (a decimal with no leading zero)")
    if len(lines) > MAX_PROOF_LINES:
        raise _Refused(400, f"a consistency proof has at most {MAX_PROOF_LINES} hashes")
    return int(match.group(1)), [_hash(line) for line in lines], note


def _hash(line: str) -> bytes:
    try:
        digest = base64.b64decode(line, validate=True)
    except (binascii.Error, ValueError):
        raise _Refused(400, f"a proof line is a base64 hash, not {line[:60]!r}") from None
    if len(digest) != HASH_SIZE or base64.b64encode(digest).decode() != line:
        raise _Refused(400, f"a proof line is the base64 of a {HASH_SIZE}-byte hash")
    return digest
