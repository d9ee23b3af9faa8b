"""What the OpenAPI document says beyond the marshmallow schemas, so that generators make real types of it.

Marshmallow describes objects; the contract also needs a shared vocabulary (a card is a `Card` wherever
it appears, not a new string each time), tagged unions (`oneOf` with a `discriminator` on `kind`) for
actions and events, `CreatedGame` as `Game` plus its token, reusable parameters and headers, and the
problems each operation can answer. A marshmallow field names its component with
`metadata={"component": name}` and the document references it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from marshmallow import fields

from ..rules import RANK_CODES
from ..service.competitions.watching import EVENTS as COMPETITION_STREAM_EVENTS
from ..service.feed import FEED_POSITION_PATTERN
from ..solver import Verdict
from . import errors
from .event_schemas import EVENT_SCHEMAS
from .examples import problem_example
from .games.action_schemas import ACTION_SCHEMAS
from .meta_schemas import ProblemSchema
from .schemas import CARD_PATTERN, IDEMPOTENCY_KEY_PATTERN, SEQ_PATTERN, SOURCES, TARGETS

SCHEMAS = "#/components/schemas/"
RESPONSES = "#/components/responses/"
HEADERS = "#/components/headers/"


def ref(name: str) -> dict[str, str]:
    return {"$ref": SCHEMAS + name}


def null_of(kind: str) -> dict[str, Any]:
    """The other branch of a nullable reference to a component of type `kind` (`anyOf: [ref, null_of(kind)]`): null
    and nothing else. OpenAPI 3.0 has no null type, and `nullable` beside a $ref or an allOf allows no null to a
    strict validator; a branch of the type made nullable let every object (or string) through, and generators made
    an empty class of it (`Record<string, never>`, a `...Type1Type0` model) and forgot a referenced enum. Both
    generators of tests/sdk read this one as null; `type` is there because `nullable` means nothing without it."""
    return {"type": kind, "nullable": True, "enum": [None]}


class _Converter(OpenAPIConverter):
    def field2property(self, field: fields.Field[Any]) -> dict[str, Any]:
        component = field.metadata.get("component")
        if component is not None:
            # OpenAPI 3.0 ignores whatever stands beside a $ref: a description or null goes around it.
            described = {"description": field.metadata["description"]} if "description" in field.metadata else {}
            if field.allow_none:
                kind = VOCABULARY.get(component, {}).get("type", "object")
                return {**described, "anyOf": [ref(component), null_of(kind)]}
            return {**described, "allOf": [ref(component)]} if described else ref(component)
        converted: dict[str, Any] = super().field2property(field)
        if "anyOf" in converted:  # apispec's nullable Nested: [ref, {"type": "object", "nullable": true}]
            converted["anyOf"] = [
                null_of(branch["type"]) if branch.keys() == {"type", "nullable"} else branch
                for branch in converted["anyOf"]
            ]
        return converted


class ContractPlugin(MarshmallowPlugin):
    """apispec's marshmallow plugin, writing a field that names a component as a reference to it, and adding
    what a schema states beyond its fields (`JSON_SCHEMA`: rules between fields, as `not` clauses)."""

    Converter = _Converter

    def schema_helper(self, name: Any, _: Any, schema: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        helped = super().schema_helper(name, _, schema=schema, **kwargs)  # type: ignore[no-untyped-call]
        extra = getattr(schema, "JSON_SCHEMA", None)
        return helped if helped is None or extra is None else {**helped, **extra}


VOCABULARY: dict[str, dict[str, Any]] = {
    "Card": {
        "type": "string",
        "pattern": CARD_PATTERN,
        "example": "7S",
        "description": "A card: its rank (A, 2 to 9, T, J, Q, K) then its suit (C, D, H, S), like `QH` or `TS`. "
        "Responses always write a ten as T; requests may write it 10 (`10S`).",
    },
    "Rank": {
        "type": "string",
        "enum": list(RANK_CODES),
        "example": "6",
        "description": "Ace, 2 to 9, ten (T), jack, queen, king.",
    },
    "Source": {
        "type": "string",
        "enum": list(SOURCES),
        "example": "waste",
        "description": "A place a card is played from: a reserve pile (R1 to R4), the waste's top, the free cell.",
    },
    "SolverVerdict": {
        "type": "string",
        "enum": [verdict.value for verdict in Verdict],
        "example": "winnable",
        "description": "The solver's verdict on a position with every card known: winnable (a win was "
        "found), unwinnable (every reachable position was searched and none is won), "
        "unknown (its budget ran out first).",
    },
    "Target": {
        "type": "string",
        "enum": list(TARGETS),
        "example": "F1",
        "description": "A place a card is played to: a foundation (F1 to F4, in play order) or the free cell.",
    },
}


def tagged_union(members: dict[str, str], description: str) -> dict[str, Any]:
    """`oneOf` the member schemas, told apart by `kind` (each member's `kind` is a one-value enum)."""
    return {
        "description": description,
        "oneOf": [ref(schema) for schema in members.values()],
        "discriminator": {
            "propertyName": "kind",
            "mapping": {kind: SCHEMAS + schema for kind, schema in members.items()},
        },
    }


LEGAL_ACTIONS = {"move": "MoveAction", "deal": "DealAction", "redeal": "RedealAction"}
ACTIONS = {**LEGAL_ACTIONS, "resign": "ResignAction", "undo": "UndoAction"}
EVENTS = {
    "game_created": "GameCreatedEvent",
    "card_played": "CardPlayedEvent",
    "card_moved_to_cell": "CardMovedToCellEvent",
    "cards_dealt": "CardsDealtEvent",
    "waste_redealt": "WasteRedealtEvent",
    "game_won": "GameWonEvent",
    "game_lost": "GameLostEvent",
    "game_resigned": "GameResignedEvent",
    "seeds_revealed": "SeedsRevealedEvent",
    "hint_given": "HintGivenEvent",
    "action_undone": "ActionUndoneEvent",
    "game_timed_out": "GameTimedOutEvent",
}


def stream_message(description: str, id_pattern: str) -> dict[str, Any]:
    """One message of an event stream, as a client's SSE parser reads it (OpenAPI 3.0 describes each message
    of a text/event-stream; `data` is JSON text, which JSON Schema of 3.0 cannot type further)."""
    return {
        "type": "object",
        "required": ["event", "data"],
        "description": description,
        "properties": {
            "event": {
                "type": "string",
                "enum": ["game", "message"],
                "description": "`game` for a game's document, `message` (no event field) for an event.",
            },
            "data": {
                "type": "string",
                "description": "JSON: a [Game](#/components/schemas/Game) for `game`, an "
                "[Event](#/components/schemas/Event) for `message`.",
            },
            "id": {
                "type": "string",
                "pattern": id_pattern,
                "description": "The event's place, to send back as Last-Event-ID.",
            },
            "retry": {"type": "integer", "minimum": 0, "description": "Milliseconds to wait before reconnecting."},
        },
    }


MESSAGES: dict[str, dict[str, Any]] = {
    "GameStreamMessage": stream_message(
        "A message of a game's event stream: the game, then its events, each with its seq as id.", SEQ_PATTERN
    ),
    "FeedMessage": stream_message(
        "A message of the feed of many games: a game, or an event (with its "
        "`game_id`) whose id is its position in the feed.",
        FEED_POSITION_PATTERN,
    ),
    "CompetitionStreamMessage": {
        "type": "object",
        "required": ["event", "data"],
        "description": "A message of a competition's stream, as an SSE parser reads it.",
        "properties": {
            "event": {"type": "string", "enum": ["standings", *COMPETITION_STREAM_EVENTS]},
            "data": {
                "type": "string",
                "description": "JSON: [Standings](#/components/schemas/Standings) for `standings`, a "
                "[Competition](#/components/schemas/Competition) for `closed` and `amended`, else the entrant's "
                "[Standing](#/components/schemas/Standing).",
            },
            "retry": {"type": "integer", "minimum": 0, "description": "Milliseconds to wait before reconnecting."},
        },
    },
}

UNIONS: dict[str, dict[str, Any]] = {
    "LegalAction": tagged_union(
        LEGAL_ACTIONS,
        "An action the rules allow now, as `legal_actions` lists it: post it "
        "as it is to `POST /games/{game_id}/actions`.",
    ),
    "Action": tagged_union(
        ACTIONS,
        "An action to take: a legal action, resigning (always allowed while the game is on), or taking back the "
        "latest action not taken back yet (when the game's `can_undo` says so).",
    ),
    "Event": tagged_union(EVENTS, "An event of the move log. `data` is typed by `kind`."),
}

CREATED_GAME: dict[str, Any] = {
    "description": "The new game, and this once its player token.",
    "allOf": [
        ref("Game"),
        {
            "type": "object",
            "required": ["player_token"],
            "properties": {
                "player_token": {
                    "type": "string",
                    "description": "Shown once: send it as `Authorization: Bearer <player_token>` to act on the game. "
                    "The server keeps only its hash.",
                }
            },
        },
    ],
}

HEADERS_REUSED: dict[str, dict[str, Any]] = {
    "ETag": {
        "description": 'The game\'s version as an entity tag (`"5"`), for If-None-Match and If-Match.',
        "schema": {"type": "string"},
        "example": '"5"',
    },
    "Link": {
        "description": 'The next page, as `<url>; rel="next"`, when there is one (the body\'s `next` too).',
        "schema": {"type": "string"},
        "example": '</games?limit=20&cursor=…>; rel="next"',
    },
    "Location": {"description": "The URL of what was created.", "schema": {"type": "string"}},
    "RetryAfter": {
        "description": "Seconds to wait before trying again.",
        "schema": {"type": "integer", "minimum": 1},
        "example": 1,
    },
    "RateLimitLimit": {"description": "Requests allowed in the current window.", "schema": {"type": "integer"}},
    "RateLimitRemaining": {"description": "Requests left in the current window.", "schema": {"type": "integer"}},
    "RateLimitReset": {
        "description": "When the window resets, in seconds since the Unix epoch.",
        "schema": {"type": "integer"},
    },
    "IdempotentReplayed": {
        "description": "`true` when this is the stored response to an earlier request with the same Idempotency-Key.",
        "schema": {"type": "string", "enum": ["true"]},
    },
}

PARAMETERS_REUSED: dict[str, dict[str, Any]] = {
    "IdempotencyKey": {
        "name": "Idempotency-Key",
        "in": "header",
        "required": False,
        "description": "Makes the POST safe to retry: a retry with the same key returns the first response, byte "
        "for byte, and changes nothing. Use a fresh, unguessable value (a UUID) per request: 1 to "
        "255 visible ASCII characters, spaces allowed between them.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": IDEMPOTENCY_KEY_PATTERN},
        "example": "5f0c7a8e-2b7e-4d0c-9d6e-0f4f1b2a6c11",
    },
    "IfMatch": {
        "name": "If-Match",
        "in": "header",
        "required": False,
        "description": "The game's ETag (or a list of them, or `*`): the action is refused with 412 unless the "
        "game is at one of these versions. Same as `expected_version` in the body; with both, the "
        "header must name the body's version (422 otherwise). A value that names no version of "
        "the game, whatever its form, is a precondition that fails (412), as RFC 9110 reads it.",
        "schema": {"type": "string"},
        "example": '"5"',
    },
    "IfNoneMatch": {
        "name": "If-None-Match",
        "in": "header",
        "required": False,
        "description": "The ETag you have: 304 Not Modified if the game has not moved since.",
        "schema": {"type": "string"},
        "example": '"5"',
    },
}


def parameter(name: str) -> str:
    """A reusable parameter, by the name apispec resolves to its reference."""
    return name


def path_parameter(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    """A parameter of an operation's path, documented where the operation is."""
    return {"in": "path", "name": name, "required": True, "schema": schema, "description": description}


def header(name: str) -> dict[str, str]:
    return {"$ref": HEADERS + name}


ETAG_HEADER = {"ETag": header("ETag")}
LINK_HEADER = {"Link": header("Link")}
REPLAYED_HEADER = {"Idempotent-Replayed": header("IdempotentReplayed")}

# The error statuses operations share: any operation refuses a query parameter it does not take (422) and
# is rate limited (429); one that reads the database can find it gone (503); one that takes a body can get
# a body it cannot read (400, 408, 413, 415); an action needs the token and the rules' and version's consent.
READ_ERRORS = (401, 422, 429, 503)
BODY_ERRORS = (400, 408, 413, 415)
ACTION_ERRORS = (*READ_ERRORS, *BODY_ERRORS, 401, 403, 404, 409, 412)
SOLVER_CODES = ("rate-limited", "solver-busy", "service-unavailable", "solver-saturated")
"""What an operation that runs the solver adds to its 429 and 503 codes (server/runtime/solver_time.py)."""

RATE_LIMIT_HEADERS = {
    "X-RateLimit-Limit": header("RateLimitLimit"),
    "X-RateLimit-Remaining": header("RateLimitRemaining"),
    "X-RateLimit-Reset": header("RateLimitReset"),
}

# What each error status means here; its problem codes come from the error table (errors.codes_of).
STATUSES: dict[int, str] = {
    400: 'The body is not JSON this server reads: see docs/api.md, "Requests".',
    401: "No player token: `Authorization: Bearer <player_token>`.",
    403: "The token is not this game's.",
    404: "Not found.",
    408: "The body took longer than BODY_SECONDS to arrive.",
    409: "The rules refuse the action, or what it needs is used up.",
    410: "The public log records the game's creation, but the database was restored from a backup taken before "
    "it: `log_entry` names the entry.",
    412: "The game is not at the version that `expected_version` or If-Match states.",
    413: "The body is over 4 MiB.",
    415: "The body is not sent as JSON (`Content-Type: application/json`).",
    422: "A field, query parameter or header is malformed or unknown.",
    429: "Too many requests from this client, or too many of its solver jobs in flight: wait `Retry-After` seconds.",
    503: "The database is unreachable or not migrated yet, or no solver thread came free in time: retry after "
    "`Retry-After` seconds.",
}


def error_responses() -> dict[str, dict[str, Any]]:
    """A reusable response per status: problem+json, its headers, and an example of each code."""
    responses = {}
    for status, description in STATUSES.items():
        headers: dict[str, Any] = {}
        if status in (429, 503):
            headers["Retry-After"] = header("RetryAfter")
        if status == 429:
            headers.update(RATE_LIMIT_HEADERS)
        if status == 401:
            headers["WWW-Authenticate"] = {"description": '`Bearer realm="osmosis"`', "schema": {"type": "string"}}
        responses[HTTPStatus(status).name] = {
            "description": description,
            **({"headers": headers} if headers else {}),
            "content": {
                errors.PROBLEM_JSON: {
                    "schema": ref("Problem"),
                    "examples": {code: {"value": problem_example(status, code)} for code in errors.codes_of(status)},
                }
            },
        }
    return responses


def register(spec: APISpec) -> None:
    for name, component in {**VOCABULARY, **UNIONS, **MESSAGES, "CreatedGame": CREATED_GAME}.items():
        spec.components.schema(name, component=component)
    spec.components.schema("Problem", schema=ProblemSchema)
    for members, schemas in ((ACTIONS, ACTION_SCHEMAS), (EVENTS, EVENT_SCHEMAS)):
        for kind, name in members.items():
            spec.components.schema(name, schema=schemas[kind])
    for name, definition in PARAMETERS_REUSED.items():
        spec.components.parameter(name, definition["in"], {k: v for k, v in definition.items() if k != "in"})
    for name, definition in HEADERS_REUSED.items():
        spec.components.header(name, definition)
    for name, response in error_responses().items():
        spec.components.response(name, response)
    default = {
        "description": "An error, as problem+json",
        "content": {errors.PROBLEM_JSON: {"schema": ref("Problem"), "example": problem_example(500, "internal-error")}},
    }
    spec.components.response("DEFAULT_ERROR", default)


def answers(*statuses: int, only: Iterable[str] = ()) -> Callable[[Any], Any]:
    """Documents the error statuses an operation can answer, and lists their problem codes in its
    description; `only` narrows a status's codes to those this operation can give."""
    narrowed = set(only)

    def attach(view: Any) -> Any:
        apidoc = view.__dict__.setdefault("_apidoc", {})
        manual = apidoc.setdefault("manual_doc", {})
        responses = manual.setdefault("responses", {})
        lines = []
        # Any game the server could not find may be one a restore lost: answered 410 when the log saw it made.
        gone = 404 in statuses and "game-not-found" in (narrowed or {"game-not-found"})
        for status in sorted({*statuses, *((410,) if gone else ())}):
            responses[str(status)] = {"$ref": RESPONSES + HTTPStatus(status).name}
            codes = [code for code in errors.codes_of(status) if code not in errors.OPT_IN or code in narrowed]
            codes = [code for code in codes if code in narrowed] or codes
            lines.append(f"- {status}: " + ", ".join(f"`{code}`" for code in codes))
        description = inspect.getdoc(view) or ""
        _, _, body = description.partition("\n\n")
        manual["description"] = (body + "\n\n" if body else "") + "Problems it can answer:\n" + "\n".join(lines)
        return view

    return attach
