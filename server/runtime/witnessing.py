"""The log's side of C2SP tlog-witness: each new checkpoint is sent to the witnesses of LOG_WITNESSES with a
consistency proof from the last one each cosigned; their cosignatures are checked and kept with it.

Each witness is asked from a thread of its own, and every call to it has WITNESS_SECONDS in all (not per read):
a witness that is slow, away or trickling its answer a byte at a time costs its own cosignature, never the log,
whose sequencer hands each checkpoint over and goes on signing."""

from __future__ import annotations

import base64
import hashlib
import http.client
import logging
import threading
from collections.abc import Sequence
from urllib.parse import urlsplit

from ..client.deadlines import deadline
from ..config import ConfigError, Settings
from ..service.ports import PublicLogStore
from ..service.public_log.log import PublicLog
from ..service.records import SignedCheckpoint
from ..transparency.notes import COSIGNATURE_V1, NoteError, Verifier, open_note, parse_signature_line, parse_verifier
from ..witness.protocol import NEVER_COSIGNED

log = logging.getLogger(__name__)
SIZE_MEDIA_TYPE = "text/x.tlog.size"
WITNESS_SECONDS = 5.0
"""What one call to a witness may take in all, from connecting to the last byte of its answer."""
MAX_ANSWER_BYTES = 65536


class Witnesses:
    def __init__(
        self,
        public_log: PublicLog,
        store: PublicLogStore,
        witnesses: Sequence[tuple[Verifier, str]],
        timeout: float | None = None,
    ) -> None:
        seconds = WITNESS_SECONDS if timeout is None else timeout
        self._asking = [_Asking(public_log, store, witness, url, seconds) for witness, url in witnesses]

    def offer(self, checkpoint: SignedCheckpoint) -> None:
        """Hand `checkpoint` to every witness that has not cosigned it yet; returns at once."""
        for asking in self._asking:
            asking.offer(checkpoint)

    def cosign(self, checkpoint: SignedCheckpoint) -> None:
        """Offer `checkpoint`, and wait until every witness has been asked for it (or failed to answer in time)."""
        for asking, ticket in [(asking, asking.offer(checkpoint)) for asking in self._asking]:
            asking.wait_for(ticket)

    def lagging(self) -> bool:
        """Whether a witness has yet to cosign the newest checkpoint offered to it (it is offered again each turn)."""
        return any(asking.lagging() for asking in self._asking)

    def stop(self) -> None:
        for asking in self._asking:
            asking.stop()


class _Asking:
    """One witness, asked in a thread of its own for the newest checkpoint offered (an older one still waiting is
    dropped: cosigning the newest covers it)."""

    def __init__(
        self, public_log: PublicLog, store: PublicLogStore, witness: Verifier, url: str, timeout: float
    ) -> None:
        self._log, self._store, self._witness = public_log, store, witness
        self._url = url.rstrip("/") + "/add-checkpoint"
        self._timeout = timeout
        self._changed = threading.Condition()
        self._pending: tuple[int, SignedCheckpoint] | None = None
        """The next checkpoint to ask about, with the number of its offer."""
        self._offers = 0
        self._done = 0
        """The number of the last offer the witness was asked about (whatever it answered)."""
        self._cosigned: int | None = None
        """The largest size it cosigned, as the store keeps it (read once, then kept here)."""
        self._thread: threading.Thread | None = None
        self._stopped = False
        self._newest_offered = 0

    def lagging(self) -> bool:
        with self._changed:
            return not self._stopped and (self._cosigned or 0) < self._newest_offered

    def offer(self, checkpoint: SignedCheckpoint) -> int:
        """The number of the offer that covers `checkpoint`, to wait for (none is made for one cosigned)."""
        with self._changed:
            self._newest_offered = max(self._newest_offered, checkpoint.size)
            if self._stopped or (self._cosigned is not None and self._cosigned >= checkpoint.size):
                return self._done
            if self._pending is not None and self._pending[1].size >= checkpoint.size:
                return self._pending[0]
            self._offers += 1
            self._pending = (self._offers, checkpoint)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"osmosis-witness-{self._witness.name}", daemon=True
                )
                self._thread.start()
            self._changed.notify_all()
            return self._offers

    def wait_for(self, offer: int) -> None:
        with self._changed:
            # Two calls at most for one checkpoint (the second from the size the witness says it has).
            self._changed.wait_for(lambda: self._done >= offer or self._stopped, timeout=2 * self._timeout + 1)

    def stop(self) -> None:
        with self._changed:
            self._stopped = True
            self._changed.notify_all()

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._stopped or self._pending is not None)
                if self._stopped or self._pending is None:
                    return
                (offer, checkpoint), self._pending = self._pending, None
            try:
                self._ask(checkpoint)
            except (OSError, ValueError, http.client.HTTPException) as error:
                log.warning("witness %s did not cosign checkpoint %d: %s", self._witness.name, checkpoint.size, error)
            except Exception:
                log.exception("asking witness %s for checkpoint %d failed", self._witness.name, checkpoint.size)
            with self._changed:
                self._done = offer
                self._changed.notify_all()

    def _ask(self, checkpoint: SignedCheckpoint) -> None:
        if self._cosigned is None:
            self._cosigned = self._store.cosigned_size(self._witness.name)
        old = self._cosigned
        if old >= checkpoint.size:
            return
        for _ in range(2):  # a second time from the size the witness says it has, if it differs
            proof = self._log.consistency(old, checkpoint.size) if 0 < old < checkpoint.size else []
            body = f"old {old}\n" + "".join(base64.b64encode(h).decode() + "\n" for h in proof) + "\n" + checkpoint.note
            status, media_type, text = _post(self._url, body, self._timeout)
            if status == 409 and media_type == SIZE_MEDIA_TYPE and text.strip().isdigit():
                # The witness's latest differs from what this log kept (another instance asked it first, or its
                # answer was lost). Behind: prove from there. At this very size: it cosigns it again.
                old = int(text.strip())
                if old > checkpoint.size:
                    return
                continue
            if status != 200:
                raise ValueError(f"it answered {status}: {text.strip()[:200]}")
            self._keep(checkpoint, text)
            return
        raise ValueError("it kept answering 409 Conflict")

    def _keep(self, checkpoint: SignedCheckpoint, text: str) -> None:
        for line in text.splitlines(keepends=True):
            try:
                signature = parse_signature_line(line)
                if (signature.name, signature.key_id) != (self._witness.name, self._witness.key_id):
                    continue
                open_note(checkpoint.note + line, self._witness)
            except NoteError as error:
                raise ValueError(f"its cosignature does not verify: {error}") from None
            self._store.add_cosignature(checkpoint.size, self._witness.name, line)
            self._cosigned = checkpoint.size
            self._log.publish()
            return
        raise ValueError("its answer carries no cosignature of its key")


class WitnessCheckpointReader:
    """What each witness cosigned last of this log (GET <prefix>/<origin hash>/checkpoint): the fork guard's second
    opinion (service/public_log/guard.WitnessCheckpoints)."""

    def __init__(self, origin: str, witnesses: Sequence[tuple[Verifier, str]], timeout: float | None = None) -> None:
        origin_hash = hashlib.sha256(origin.encode()).hexdigest()
        self._urls = {witness.name: f"{url.rstrip('/')}/{origin_hash}/checkpoint" for witness, url in witnesses}
        self._timeout = WITNESS_SECONDS if timeout is None else timeout

    def names(self) -> list[str]:
        return list(self._urls)

    def latest_cosigned(self, witness: str) -> str | None:
        """The note the witness says it cosigned last of this log; None for the protocol's own "never cosigned"
        answer. Any other answer, a 404 of a mistyped URL or a proxy's page among them, is no witness's (ValueError)."""
        status, _, text = _request("GET", self._urls[witness], None, self._timeout)
        if status == 404 and text.strip() == NEVER_COSIGNED:
            return None
        if status != 200:
            raise ValueError(f"it answered {status}, not as a witness does: {text.strip()[:200]}")
        return text


def _post(url: str, body: str, seconds: float) -> tuple[int, str, str]:
    return _request("POST", url, body, seconds)


def _request(method: str, url: str, body: str | None, seconds: float) -> tuple[int, str, str]:
    """The witness's answer: status, media type, text; OSError when it does not answer in `seconds`."""
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = kind(parts.hostname or "", parts.port, timeout=seconds)
    try:
        with deadline(seconds, lambda: connection.sock) as watched:
            try:
                headers = {"Content-Type": "text/plain; charset=utf-8"} if body is not None else {}
                connection.request(method, parts.path or "/", body.encode() if body is not None else None, headers)
                response = connection.getresponse()
                text = response.read(MAX_ANSWER_BYTES).decode(errors="replace")
            except (OSError, http.client.HTTPException):
                if not watched.passed:
                    raise
        if watched.passed:  # what was read when the connection was cut is no answer, whatever it looks like
            raise TimeoutError(f"no whole answer within {seconds:g} seconds")
        media_type = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
        return response.status, media_type, text
    finally:
        connection.close()


def witnesses_of(settings: Settings) -> list[tuple[Verifier, str]]:
    """The witnesses LOG_WITNESSES names: each one's cosignature key and URL (ConfigError for a wrong key)."""
    witnesses = []
    for vkey, url in settings.log_witnesses:
        try:
            verifier = parse_verifier(vkey)
        except NoteError as error:
            raise ConfigError(f"LOG_WITNESSES names a key that is not a witness's verifier key: {error}") from None
        if verifier.kind != COSIGNATURE_V1:
            raise ConfigError(f"LOG_WITNESSES: {verifier.name}'s key is not a cosignature key (type 0x04)")
        witnesses.append((verifier, url))
    return witnesses
