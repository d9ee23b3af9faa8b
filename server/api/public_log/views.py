"""The public transparency log over HTTP: the checkpoint, tiles and entry bundles as C2SP tlog-tiles serves them,
the log's verifier key, a consistency proof, and a game's place in the log (docs/transparency.md)."""

from __future__ import annotations

import base64
from typing import Any
from uuid import UUID

from flask import Response
from flask.views import MethodView

from ...service.errors import LogBehind, TileNotFound
from ...service.public_log.log import published_note
from ...transparency.tiles import TilePathError, parse_tile_path
from ..callers import readable
from ..common import Blueprint, use_cases
from ..contract import READ_ERRORS, answers, path_parameter
from ..examples import Later
from . import examples as log_examples
from .schemas import ConsistencyProofSchema, ConsistencyQuerySchema, GameTransparencySchema, RetirementsSchema

blp = Blueprint(
    "log",
    __name__,
    url_prefix="/log",
    description="The public transparency log of every deal and result (C2SP tlog-tiles)",
)

TEXT = "text/plain; charset=utf-8"
IMMUTABLE = "public, max-age=31536000, immutable"
SHORT_LIVED = "public, max-age=5"


def _text(body: str, cache: str) -> Response:
    return Response(body, 200, {"Content-Type": TEXT, "Cache-Control": cache})


LOG_READ_CODES = ("validation-failed", "rate-limited", "service-unavailable")
"""What any read of the public log may answer: a bad query, too many requests, a database away."""


def _answers_text(operation_id: str, description: str, example: str | Later) -> Any:
    """The documentation of a public read answered with plain text."""
    answer = {"description": description, "content": {"text/plain": {"schema": {"type": "string"}, "example": example}}}
    return blp.doc(operationId=operation_id, security=[], responses={"200": answer})


class LogCheckpoint(MethodView):
    @_answers_text(
        "getLogCheckpoint", "The checkpoint, a C2SP signed note (tlog-checkpoint).", Later(log_examples.checkpoint)
    )
    @answers(
        *READ_ERRORS,
        404,
        only=(*LOG_READ_CODES, "log-not-started", "log-behind"),
    )
    def get(self) -> Response:
        """Read the log's latest published checkpoint

        The tree's size and root hash, signed by the log's key (GET /log/key), with the cosignatures of its
        witnesses: a C2SP tlog-checkpoint in a signed note. Cached for a second at most.
        """
        return _text(published_note(use_cases().public_log.checkpoint()), "no-cache")


class LogKey(MethodView):
    @_answers_text("getLogKey", "The log's verifier key, in note format.", log_examples.verifier_key() + "\n")
    @answers(401, 422, 429, 404, 503, only=("validation-failed", "rate-limited", "not-in-log", "log-behind"))
    def get(self) -> Response:
        """Read the log's verifier key, the note-format string a client pins

        `<name>+<key id>+<base64 Ed25519 key>`, as Go's sumdb/note reads it. Pin it once, from a source you trust
        (the operator's README), rather than fetching it each time. A server whose key signs nothing of the log it
        serves (a retired key, or another log's) answers 503 saying so rather than hand out a key to pin.
        """
        public_log = use_cases().public_log
        verifier = public_log.verifier
        if verifier is None:
            raise TileNotFound("this server has no log key")
        refusal = public_log.key_refusal()
        if refusal is not None:
            raise LogBehind(f"this server's key signs nothing of the log it serves: {refusal}")
        return _text(verifier.vkey + "\n", SHORT_LIVED)


class LogTile(MethodView):
    @blp.doc(
        operationId="getLogTile",
        security=[],
        parameters=[
            path_parameter(
                "tile_path",
                {"type": "string"},
                "`<L>/<N>[.p/<W>]` or `entries/<N>[.p/<W>]`, as C2SP tlog-tiles writes them.",
            )
        ],
        responses={
            "200": {
                "description": "The tile's hashes, or the entry bundle.",
                "content": {
                    "application/octet-stream": {
                        "schema": {"type": "string", "format": "binary"},
                        "example": Later(log_examples.level_zero_tile),
                    }
                },
            }
        },
    )
    @answers(*READ_ERRORS, 404, only=(*LOG_READ_CODES, "not-in-log", "log-behind"))
    def get(self, tile_path: str) -> Response:
        """Read a tile of the tree or an entry bundle

        Full tiles (256 hashes) and bundles never change and are cached for a year; partial ones (`.p/<W>`) are
        served as long as the log has that many, for a few seconds. A path the spec does not allow, or a tile
        past the tree, is a 404.
        """
        try:
            address = parse_tile_path(tile_path)
        except TilePathError as error:
            raise TileNotFound(f"no such tile: {error}") from None
        data = use_cases().public_log.tile(address)
        return Response(
            data,
            200,
            {
                "Content-Type": "application/octet-stream",
                "Cache-Control": IMMUTABLE if address.width is None else SHORT_LIVED,
            },
        )


class LogConsistency(MethodView):
    @blp.doc(operationId="getLogConsistencyProof", security=[])
    @blp.arguments(ConsistencyQuerySchema(), location="query")
    @blp.response(200, ConsistencyProofSchema, example=Later(log_examples.consistency))
    @answers(
        *READ_ERRORS,
        404,
        only=(*LOG_READ_CODES, "not-in-log", "log-not-started", "log-behind"),
    )
    def get(self, args: dict[str, int]) -> dict[str, Any]:
        """Prove that the tree of one size extends the tree of a smaller one

        An RFC 9162 consistency proof, for sizes up to the published checkpoint's. The tiles suffice to compute
        it; this saves a client the work.
        """
        old, new = args["from_size"], args["to_size"]
        return {
            "from_size": old,
            "to_size": new,
            "proof": [_b64(h) for h in use_cases().public_log.consistency(old, new)],
        }


class LogRetirements(MethodView):
    @blp.doc(operationId="getLogRetirements", security=[])
    @blp.response(200, RetirementsSchema, example=Later(log_examples.retirements))
    @answers(*READ_ERRORS, only=LOG_READ_CODES)
    def get(self) -> dict[str, Any]:
        """Read the logs this server retired

        A log whose entries a restore lost for good is retired, not forked: its final checkpoint, signed by its
        key, names the key of the log that succeeds it. Empty for a server that never retired one.
        """
        return {"retirements": use_cases().public_log.retirements()}


class GameTransparency(MethodView):
    @blp.doc(operationId="getGameTransparency", security=[])
    @blp.response(200, GameTransparencySchema, example=Later(log_examples.game_transparency))
    @answers(
        *READ_ERRORS,
        404,
        only=(
            *LOG_READ_CODES,
            "game-not-found",
            "log-not-started",
            "log-behind",
        ),
    )
    def get(self, game_id: UUID) -> dict[str, Any]:
        """Read where a game is in the public log, with proofs

        The leaves of the game's creation, of its end and of its sealed deal, each with its entry as logged
        and an inclusion proof in the latest published checkpoint; entries not yet in it are `pending`.
        """
        readable(game_id)
        return use_cases().public_log.game_proofs(game_id).to_dict()


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode()
