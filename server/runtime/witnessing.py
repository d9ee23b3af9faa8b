"""The log's side of C2SP tlog-witness: each new checkpoint is sent to the witnesses of LOG_WITNESSES with a
consistency proof from the last one each cosigned; their cosignatures are checked and kept with it."""

from __future__ import annotations

import base64
import logging
import urllib.error
import urllib.request
from collections.abc import Sequence

from ..service.ports import PublicLogStore
from ..service.public_log import PublicLog
from ..service.records import SignedCheckpoint
from ..transparency.notes import NoteError, Verifier, open_note, parse_signature_line

log = logging.getLogger(__name__)
SIZE_MEDIA_TYPE = "text/x.tlog.size"


class Witnesses:
    def __init__(self, public_log: PublicLog, store: PublicLogStore, witnesses: Sequence[tuple[Verifier, str]],
                 timeout: float = 5.0) -> None:
        self._log = public_log
        self._store = store
        self._witnesses = tuple(witnesses)
        self._timeout = timeout

    def cosign(self, checkpoint: SignedCheckpoint) -> None:
        """Ask each witness that has not yet cosigned `checkpoint` (the sequencer asks again at its next turn)."""
        for witness, url in self._witnesses:
            try:
                self._ask(witness, url, checkpoint)
            except (OSError, ValueError) as error:
                log.warning("witness %s did not cosign checkpoint %d: %s", witness.name, checkpoint.size, error)

    def _ask(self, witness: Verifier, url: str, checkpoint: SignedCheckpoint) -> None:
        old = self._store.cosigned_size(witness.name)
        if old >= checkpoint.size:
            return
        for _ in range(2):  # a second time from the size the witness says it has, if it differs
            proof = self._log.consistency(old, checkpoint.size) if 0 < old < checkpoint.size else []
            body = f"old {old}\n" + "".join(base64.b64encode(h).decode() + "\n" for h in proof) + "\n" + checkpoint.note
            status, media_type, text = _post(url.rstrip("/") + "/add-checkpoint", body, self._timeout)
            if status == 409 and media_type == SIZE_MEDIA_TYPE and text.strip().isdigit():
                # The witness's latest differs from what this log kept (another instance asked it first, or its
                # answer was lost). Behind: prove from there. At this very size: it cosigns it again.
                old = int(text.strip())
                if old > checkpoint.size:
                    return
                continue
            if status != 200:
                raise ValueError(f"it answered {status}: {text.strip()[:200]}")
            self._keep(witness, checkpoint, text)
            return
        raise ValueError("it kept answering 409 Conflict")

    def _keep(self, witness: Verifier, checkpoint: SignedCheckpoint, text: str) -> None:
        for line in text.splitlines(keepends=True):
            try:
                signature = parse_signature_line(line)
                if (signature.name, signature.key_id) != (witness.name, witness.key_id):
                    continue
                open_note(checkpoint.note + line, witness)
            except NoteError as error:
                raise ValueError(f"its cosignature does not verify: {error}") from None
            self._store.add_cosignature(checkpoint.size, witness.name, line)
            self._log.publish()
            return
        raise ValueError("its answer carries no cosignature of its key")


def _post(url: str, body: str, timeout: float) -> tuple[int, str, str]:
    request = urllib.request.Request(url, data=body.encode(), method="POST",
                                     headers={"Content-Type": "text/plain; charset=utf-8"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers.get_content_type(), response.read(65536).decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get_content_type(), error.read(65536).decode(errors="replace")
