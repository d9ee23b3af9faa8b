"""The public log's signing key: LOG_SIGNING_KEY, or the one kept in the data directory, made on first start."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ..config import DEFAULT_LOG_ORIGIN, ConfigError, Settings
from ..transparency.notes import ED25519, NoteError, Signer, generate_signer, parse_signer

KEY_FILE = "log-signing-key"
log = logging.getLogger(__name__)


def log_signer(settings: Settings) -> Signer:
    if settings.log_signing_key is not None:
        try:
            signer = parse_signer(settings.log_signing_key)
        except NoteError as error:
            raise ConfigError(f"LOG_SIGNING_KEY is not a note signing key: {error}") from None
    else:
        signer = kept_signer(settings.data_dir / KEY_FILE, settings.log_origin or DEFAULT_LOG_ORIGIN)
    if signer.kind != ED25519:
        raise ConfigError("the log's signing key is an Ed25519 note key (type 0x01), not a witness's")
    if settings.log_origin is not None and settings.log_origin != signer.name:
        raise ConfigError(
            f"LOG_ORIGIN is {settings.log_origin!r}, but the signing key is named {signer.name!r}: "
            "a checkpoint's origin is its key's name"
        )
    return signer


def kept_signer(path: Path, name: str) -> Signer:
    """The key in `path`; made there first if there is none (by one process of those starting at once)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        made = generate_signer(name)
        with os.fdopen(descriptor, "w") as file:
            file.write(made.skey + "\n")
        try:
            os.link(draft, path)
            log.warning(
                "made a new signing key for the public log in %s; its verifier key is %s", path, made.verifier.vkey
            )
        except FileExistsError:
            pass  # another process made it first: theirs is the key
        finally:
            os.unlink(draft)
    try:
        return parse_signer(path.read_text())
    except NoteError as error:
        raise ConfigError(f"{path} does not hold a note signing key: {error}") from None
