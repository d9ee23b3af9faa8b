"""The public log's examples in the OpenAPI document: the example game's two entries in a log of their own,
signed with an example key, so that every proof in them checks."""

from __future__ import annotations

import base64
import functools
import hashlib
from typing import Any
from uuid import UUID

from ...log import public_entries
from ...service.public_log.log import GameProofs, LeafProof
from ...service.records import SignedCheckpoint
from ...transparency.merkle import inclusion_proof, leaf_hash, subtrees_of, tree_hash
from ...transparency.notes import ED25519, Checkpoint, Signer, sign_note
from .. import examples

EXAMPLE_SIGNER = Signer("log.example/osmosis", ED25519, hashlib.sha256(b"osmosis example log key").digest())


@functools.cache
def _log() -> tuple[list[bytes], SignedCheckpoint]:
    created, ended = examples.game(), examples.resigned()["game"]
    game_id = UUID(created["id"])
    entries = [
        public_entries.game_created(
            game_id, created["variant"], created["rules"], created["deal"], created["commitment"]
        ),
        public_entries.game_ended(
            game_id,
            ended["status"],
            ended["version"],
            ended["head_hash"],
            ended["score"],
            bytes.fromhex(ended["deal"]["server_seed"]),
            ended["deal"]["client_seed"],
        ),
    ]
    root = tree_hash(len(entries), subtrees_of([leaf_hash(e) for e in entries]))
    note = sign_note(Checkpoint(EXAMPLE_SIGNER.name, len(entries), root).text, EXAMPLE_SIGNER)
    return entries, SignedCheckpoint(len(entries), root, note)


def checkpoint() -> str:
    return _log()[1].note


def verifier_key() -> str:
    return EXAMPLE_SIGNER.verifier.vkey


def level_zero_tile() -> str:
    entries, _ = _log()
    return base64.b64encode(b"".join(leaf_hash(e) for e in entries)).decode()


def game_transparency() -> dict[str, Any]:
    entries, signed = _log()
    subtrees = subtrees_of([leaf_hash(e) for e in entries])
    leaves = [
        LeafProof(index, kind, entry, inclusion_proof(index, signed.size, subtrees))
        for index, (kind, entry) in enumerate(zip(("game_created", "game_ended"), entries, strict=True))
    ]
    return GameProofs(signed, leaves, []).to_dict()


def consistency() -> dict[str, Any]:
    entries, _ = _log()
    return {"from": 1, "to": 2, "proof": [base64.b64encode(leaf_hash(entries[1])).decode()]}


def retirements() -> dict[str, Any]:
    retired = EXAMPLE_SIGNER
    successor = Signer("log.example/osmosis/2026-11-27", ED25519, hashlib.sha256(b"osmosis example successor").digest())
    checkpoint = _log()[1]
    final = sign_note(
        Checkpoint(retired.name, checkpoint.size, checkpoint.root, (f"successor {successor.verifier.vkey}",)).text,
        retired,
    )
    return {
        "retirements": [
            {
                "origin": retired.name,
                "verifier_key": retired.verifier.vkey,
                "final_checkpoint": final,
                "successor_origin": successor.name,
                "successor_key": successor.verifier.vkey,
                "retired_at": "2026-11-27T09:30:00+00:00",
            }
        ]
    }
