"""C2SP signed notes with Ed25519 keys, the checkpoints they carry (tlog-checkpoint), and the witnesses'
timestamped cosignatures (tlog-cosignature). Keys are written as Go's sumdb/note writes them:

    signer   PRIVATE+KEY+<name>+<key id, 8 hex>+<base64(type || 32-byte seed)>
    verifier <name>+<key id, 8 hex>+<base64(type || 32-byte public key)>

with key id = SHA-256(name || "\\n" || type || public key)[:4], type 0x01 for a log's signature and 0x04
for a cosignature.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from typing import TypeVar

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from .merkle import HASH_SIZE

ED25519 = 0x01
COSIGNATURE_V1 = 0x04
KINDS = {ED25519: "Ed25519", COSIGNATURE_V1: "Ed25519 cosignature/v1"}
MAX_SIGNATURES = 64
MAX_NOTE_BYTES = 64 * 1024
DASH = "\u2014"
_NAME = re.compile(r"[^\s+]+")
_DECIMAL = re.compile(r"0|[1-9][0-9]{0,18}")
Key = TypeVar("Key")


class NoteError(ValueError):
    """A note or key that is malformed, or whose signatures do not verify: the message says which."""


def _key_id(name: str, kind: int, public: bytes) -> int:
    return int.from_bytes(hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4], "big")


def _b64decode(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise NoteError(f"{what} is not standard base64") from None


def _check_name(name: str) -> None:
    if not _NAME.fullmatch(name):
        raise NoteError(f"a key name is not empty and has no spaces or '+': {name!r}")


def _key_material(name: str, encoded: str, what: str) -> tuple[int, bytes]:
    """(the signature type, the 32 bytes of the key) of a key's last part."""
    _check_name(name)
    key = _b64decode(encoded, what)
    if len(key) != 33 or key[0] not in KINDS:
        raise NoteError(f"{what} is not an Ed25519 key (type 0x01) or cosignature key (type 0x04)")
    return key[0], key[1:]


@dataclass(frozen=True, slots=True)
class Verifier:
    name: str
    kind: int
    public_key: bytes

    @property
    def key_id(self) -> int:
        return _key_id(self.name, self.kind, self.public_key)

    @property
    def vkey(self) -> str:
        encoded = base64.b64encode(bytes([self.kind]) + self.public_key).decode()
        return f"{self.name}+{self.key_id:08x}+{encoded}"

    def verifies(self, text: str, signature: bytes) -> bool:
        """Whether `signature` (without its key id) is this key's over the note text `text`."""
        message = text.encode()
        if self.kind == COSIGNATURE_V1:
            if len(signature) != 8 + 64:
                return False
            message = cosigned_message(text, int.from_bytes(signature[:8], "big"))
            signature = signature[8:]
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, message)
        except InvalidSignature:
            return False
        return True


def _with_id(key: Key, actual_id: int, written_id: str, what: str) -> Key:
    """`key`, when the id written beside it is its own."""
    if written_id != f"{actual_id:08x}":
        raise NoteError(f"{what}'s id {written_id} does not match its name and key")
    return key


def parse_verifier(vkey: str) -> Verifier:
    parts = vkey.strip().split("+", 2)
    if len(parts) != 3:
        raise NoteError("a verifier key is <name>+<key id>+<base64 key>")
    name, key_id, encoded = parts
    verifier = Verifier(name, *_key_material(name, encoded, "the verifier key"))
    return _with_id(verifier, verifier.key_id, key_id, "the verifier key")


@dataclass(frozen=True, slots=True)
class Signer:
    name: str
    kind: int
    seed: bytes

    @property
    def verifier(self) -> Verifier:
        public = (
            Ed25519PrivateKey.from_private_bytes(self.seed).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        )
        return Verifier(self.name, self.kind, public)

    @property
    def skey(self) -> str:
        encoded = base64.b64encode(bytes([self.kind]) + self.seed).decode()
        return f"PRIVATE+KEY+{self.name}+{self.verifier.key_id:08x}+{encoded}"

    def sign(self, message: bytes) -> bytes:
        return Ed25519PrivateKey.from_private_bytes(self.seed).sign(message)


def generate_signer(name: str, kind: int = ED25519) -> Signer:
    _check_name(name)
    seed = Ed25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return Signer(name, kind, seed)


def parse_signer(skey: str) -> Signer:
    parts = skey.strip().split("+", 4)
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
        raise NoteError("a signing key is PRIVATE+KEY+<name>+<key id>+<base64 key>")
    name, key_id, encoded = parts[2:]
    signer = Signer(name, *_key_material(name, encoded, "the signing key"))
    return _with_id(signer, signer.verifier.key_id, key_id, "the signing key")


@dataclass(frozen=True, slots=True)
class Signature:
    name: str
    key_id: int
    signature: bytes

    @property
    def line(self) -> str:
        encoded = base64.b64encode(self.key_id.to_bytes(4, "big") + self.signature).decode()
        return f"{DASH} {self.name} {encoded}\n"


def parse_signature_line(line: str) -> Signature:
    if not line.startswith(DASH + " "):
        raise NoteError("a signature line starts with an em dash and a space")
    parts = line[2:].removesuffix("\n").split(" ")
    if len(parts) != 2:
        raise NoteError("a signature line is '— <name> <base64 signature>'")
    name, encoded = parts
    _check_name(name)
    raw = _b64decode(encoded, "a signature")
    if len(raw) < 5:
        raise NoteError("a signature is a 4-byte key id and the signature")
    return Signature(name, int.from_bytes(raw[:4], "big"), raw[4:])


@dataclass(frozen=True, slots=True)
class Note:
    text: str
    """The signed text, with its final newline."""
    signatures: tuple[Signature, ...]

    def __str__(self) -> str:
        return self.text + "\n" + "".join(signature.line for signature in self.signatures)


def parse_note(note: str) -> Note:
    if len(note.encode()) > MAX_NOTE_BYTES:
        raise NoteError(f"a note is at most {MAX_NOTE_BYTES} bytes")
    if any(ord(c) < 0x20 and c != "\n" for c in note):
        raise NoteError("a note has no control characters but newlines")
    split = note.rfind("\n\n")
    if split < 0 or not note.endswith("\n"):
        raise NoteError("a note is its text, a blank line and its signature lines, each ending in a newline")
    text, lines = note[: split + 1], note[split + 2 :].splitlines(keepends=True)
    if not lines:
        raise NoteError("the note has no signature")
    if len(lines) > MAX_SIGNATURES:
        raise NoteError(f"a note has at most {MAX_SIGNATURES} signatures")
    return Note(text, tuple(parse_signature_line(line) for line in lines))


def sign_note(text: str, *signers: Signer) -> str:
    if not text.endswith("\n"):
        raise NoteError("a note's text ends in a newline")
    signatures = [Signature(s.name, s.verifier.key_id, s.sign(text.encode())) for s in signers]
    return str(Note(text, tuple(signatures)))


def open_note(note: str, *verifiers: Verifier) -> tuple[Note, list[Verifier]]:
    """The note and which of `verifiers` signed it; NoteError if none did, or a known key's signature fails.

    Signatures of unknown keys are ignored, as the spec requires (a cosignature, another key of the log's)."""
    parsed = parse_note(note)
    known = {(v.name, v.key_id): v for v in verifiers}
    signed: list[Verifier] = []
    for signature in parsed.signatures:
        verifier = known.get((signature.name, signature.key_id))
        if verifier is None:
            continue
        if not verifier.verifies(parsed.text, signature.signature):
            raise NoteError(f"the signature of {signature.name} does not verify: the note was altered or forged")
        signed.append(verifier)
    if not signed:
        names = ", ".join(sorted(v.name for v in verifiers))
        raise NoteError(f"the note carries no signature of a trusted key ({names})")
    return parsed, signed


def cosigned_message(text: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n".encode() + text.encode()


def cosign(text: str, signer: Signer, timestamp: int) -> Signature:
    """A witness's tlog-cosignature/v1 over a checkpoint's text, at POSIX time `timestamp`."""
    if signer.kind != COSIGNATURE_V1:
        raise NoteError("a cosignature needs a cosignature key (type 0x04)")
    body = timestamp.to_bytes(8, "big") + signer.sign(cosigned_message(text, timestamp))
    return Signature(signer.name, signer.verifier.key_id, body)


def cosignature_time(signature: Signature) -> int:
    return int.from_bytes(signature.signature[:8], "big")


@dataclass(frozen=True, slots=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode(), *self.extensions]
        return "".join(line + "\n" for line in lines)


def parse_checkpoint(text: str) -> Checkpoint:
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] != "" or any(line == "" for line in lines[:-1]):
        raise NoteError("a checkpoint is origin, tree size and root hash, each on a non-empty line")
    origin, size, root, *extensions = lines[:-1]
    if not _DECIMAL.fullmatch(size):
        raise NoteError(f"a checkpoint's tree size is a decimal number with no leading zero, not {size!r}")
    digest = _b64decode(root, "the checkpoint's root hash")
    if len(digest) != HASH_SIZE:
        raise NoteError("the checkpoint's root hash is not 32 bytes")
    return Checkpoint(origin, int(size), digest, tuple(extensions))


def open_checkpoint(note: str, log: Verifier, *witnesses: Verifier) -> tuple[Checkpoint, Note, list[Verifier]]:
    """A checkpoint signed by the log's key (and checked against any witnesses' keys given)."""
    parsed, signed = open_note(note, log, *witnesses)
    if log not in signed:
        raise NoteError(f"the checkpoint is not signed by the log's key {log.name}")
    checkpoint = parse_checkpoint(parsed.text)
    if checkpoint.origin != log.name:
        raise NoteError(f"the checkpoint's origin {checkpoint.origin!r} is not the log's, {log.name!r}")
    return checkpoint, parsed, [v for v in signed if v != log]
