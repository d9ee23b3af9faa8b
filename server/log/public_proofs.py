"""The `transparency` section of a replay export: the game's entries in the public log, a signed checkpoint and
an inclusion proof of each. Checked offline against the log's pinned key: the checkpoint's signature, every
proof, and every entry against what the export's own log says (docs/transparency.md)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

from ..transparency.merkle import ProofError, leaf_hash, verify_inclusion
from ..transparency.notes import NoteError, Verifier, open_checkpoint
from . import public_entries as pe
from .events import Event, ReplayError

SECTION_FIELDS = {"checkpoint", "tree_size", "root_hash", "leaves", "pending"}
LEAF_FIELDS = {"index", "kind", "entry", "leaf_hash", "inclusion_proof"}


def _hash(value: Any, what: str) -> bytes:
    try:
        decoded = base64.b64decode(value, validate=True) if isinstance(value, str) else b""
    except (binascii.Error, ValueError):
        decoded = b""
    if len(decoded) != 32:
        raise ReplayError(None, f"{what} is not a SHA-256 hash in base64")
    return decoded


def check_shape(section: Any) -> None:
    """The section has the fields and types the format gives it."""
    if not isinstance(section, Mapping) or set(section) != SECTION_FIELDS:
        raise ReplayError(None, f"the transparency section has exactly the fields {', '.join(sorted(SECTION_FIELDS))}")
    if not isinstance(section["checkpoint"], str) or not isinstance(section["tree_size"], int):
        raise ReplayError(None, "the transparency section's checkpoint is text and its tree_size a whole number")
    _hash(section["root_hash"], "the transparency section's root_hash")
    if not isinstance(section["pending"], list) or not all(kind in pe.ENTRY_KINDS for kind in section["pending"]):
        raise ReplayError(None, "the transparency section's pending lists entry kinds")
    if not isinstance(section["leaves"], list) or len(section["leaves"]) > len(pe.ENTRY_KINDS):
        raise ReplayError(None, "the transparency section's leaves are a list of at most one of each kind")
    for leaf in section["leaves"]:
        if (
            not isinstance(leaf, Mapping)
            or set(leaf) != LEAF_FIELDS
            or not isinstance(leaf["index"], int)
            or isinstance(leaf["index"], bool)
            or leaf["kind"] not in pe.ENTRY_KINDS
            or not isinstance(leaf["entry"], str)
            or not isinstance(leaf["inclusion_proof"], list)
            or len(leaf["inclusion_proof"]) > 64
        ):
            raise ReplayError(
                None,
                "a leaf of the transparency section is exactly an index, a kind, an entry, a "
                "leaf_hash and an inclusion_proof of at most 64 hashes",
            )


def check_proofs(document: Mapping[str, Any], events: Sequence[Event], key: Verifier) -> tuple[str, list[str]]:
    """Raises ReplayError naming what failed; else says where the game is in the log, and what the section
    does not prove yet (an end not yet in its checkpoint)."""
    section = document.get("transparency")
    if section is None and "transparency_unavailable" in document:
        raise ReplayError(
            None,
            "the export carries no proofs of inclusion in the public log: the server could not give them then "
            f"({document['transparency_unavailable']}); export it again later",
        )
    if section is None:
        raise ReplayError(
            None,
            "the export carries no proofs of inclusion in the public log (no transparency "
            "section): export it again once the log has sequenced the game",
        )
    check_shape(section)
    try:
        checkpoint, _, _ = open_checkpoint(section["checkpoint"], key)
    except NoteError as error:
        raise ReplayError(None, f"the transparency section's checkpoint is not the log's: {error}") from None
    if (checkpoint.size, checkpoint.root) != (section["tree_size"], _hash(section["root_hash"], "root_hash")):
        raise ReplayError(None, "the transparency section's tree_size and root_hash are not its checkpoint's")
    found = _proven_leaves(section["leaves"], checkpoint.size, checkpoint.root)
    _check_entries(document, events, found)
    unproven = (
        []
        if pe.GAME_ENDED in found or document["status"] == "playing"
        else ["the game's end is not in the log's checkpoint yet (export it again in a few seconds)"]
    )
    created_at = found[pe.GAME_CREATED][0]
    return f"in the public log at index {created_at}, checkpoint of size {checkpoint.size}", unproven


def _check_deal_entries(
    document: Mapping[str, Any], deal: Mapping[str, Any], variant: Any, found: Mapping[str, tuple[int, dict[str, Any]]]
) -> None:
    """A sealed deal's sealing and a daily deal's opening, as the log entered them, are this game's."""
    pending = document["transparency"]["pending"]
    if pe.DEAL_SEALED in found:
        sealed = found[pe.DEAL_SEALED][1]
        if (deal.get("sealed_deal_id"), document["commitment"]) != (
            sealed["sealed_deal_id"],
            sealed["commitment"],
        ):
            raise ReplayError(1, "the logged deal_sealed entry is not this game's sealed deal")
    elif deal.get("kind") == "sealed" and pe.DEAL_SEALED not in pending:
        raise ReplayError(1, "the game is dealt from a sealed deal, but the section does not prove its sealing")
    if pe.DAILY_DEAL_OPENED in found:
        opened = found[pe.DAILY_DEAL_OPENED][1]
        if (deal.get("day"), variant, document["commitment"]) != (
            opened["day"],
            opened["variant"],
            opened["commitment"],
        ):
            raise ReplayError(1, "the logged daily_deal_opened entry is not this game's day, preset and commitment")
    elif deal.get("kind") == "daily" and pe.DAILY_DEAL_OPENED not in pending:
        raise ReplayError(1, "the game is a daily deal, but the section does not prove the day's deal was opened")


def _proven_leaves(
    leaves: Sequence[Mapping[str, Any]], size: int, root: bytes
) -> dict[str, tuple[int, dict[str, Any]]]:
    """Each leaf's index and entry by kind, every one proven included in the tree of `size` and `root`."""
    found: dict[str, tuple[int, dict[str, Any]]] = {}
    for leaf in leaves:
        entry = leaf["entry"].encode()
        where = f"leaf {leaf['index']} ({leaf['kind']})"
        if _hash(leaf["leaf_hash"], f"the leaf_hash of {where}") != leaf_hash(entry):
            raise ReplayError(None, f"the leaf_hash of {where} is not the hash of its entry")
        proof = [_hash(h, f"a hash of the proof of {where}") for h in leaf["inclusion_proof"]]
        try:
            verify_inclusion(leaf["index"], size, leaf_hash(entry), proof, root)
            value = pe.parse_entry(entry)
        except (ProofError, ValueError) as error:
            raise ReplayError(None, f"{where}: {error}") from None
        if value["kind"] != leaf["kind"] or leaf["kind"] in found:
            raise ReplayError(None, f"{where}: its entry is a {value['kind']}, or a second of its kind")
        found[leaf["kind"]] = (leaf["index"], value)
    return found


def _check_entries(
    document: Mapping[str, Any], events: Sequence[Event], found: Mapping[str, tuple[int, dict[str, Any]]]
) -> None:
    created = events[0].data
    if pe.GAME_CREATED not in found:
        raise ReplayError(None, "the transparency section does not prove the game's creation is logged")
    expected = pe.parse_entry(
        pe.game_created(
            document["game_id"],
            created["variant"],
            created["rules"],
            created["deal"],
            document["commitment"],
            created.get("player"),
        )
    )
    if found[pe.GAME_CREATED][1] != expected:
        raise ReplayError(
            1,
            "the logged game_created entry is not this game's creation (id, rules, deal, commitment or player differ)",
        )
    _check_deal_entries(document, created["deal"], created["variant"], found)
    if pe.GAME_ENDED in found:
        ended, last = found[pe.GAME_ENDED][1], events[-1]
        if document["status"] == "playing":
            raise ReplayError(last.seq, "the log says the game ended, but the export's game is still being played")
        if (ended["head_hash"], ended["events"], ended["status"]) != (last.hash, last.seq, document["status"]):
            raise ReplayError(
                last.seq,
                "the logged game_ended entry does not end this log: its head hash, event count or status differ",
            )
        if (ended["server_seed"], ended["client_seed"]) != (last.data.get("server_seed"), last.data.get("client_seed")):
            raise ReplayError(last.seq, "the logged game_ended entry names other seeds than the log reveals")
