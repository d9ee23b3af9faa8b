"""What every app of the run answered, held to the committed OpenAPI document: each status declared for its
operation, each JSON body valid against the schema the document gives it, each query parameter a request
got through with declared. tests/conftest.py records every response; the session fails on any breach.

Every body of the run is checked, so the check is compiled: fastjsonschema's code for the document's schema as
JSON Schema draft 4 (`json_schema`: OpenAPI 3.0's `nullable` as a type of its own, its annotations dropped),
some twenty times quicker than walking the schema. openapi-schema-validator, the reference, says what is wrong
with a body the compiled check refuses; tests/test_answers.py holds the two to the same verdicts."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fastjsonschema
from jsonschema.exceptions import best_match
from openapi_schema_validator import OAS30Validator

from tests import run

DOCUMENT = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"
JSON_TYPES = ("application/json", "application/problem+json")


@functools.cache
def document() -> dict[str, Any]:
    return json.loads(DOCUMENT.read_text())


def openapi_path(rule: str) -> str:
    """A Flask rule as the document names its path: /games/<uuid:game_id> is /games/{game_id}."""
    return re.sub(r"<(?:[a-z]+(?:\([^)]*\))?:)?([a-z_]+)>", r"{\1}", rule)


def _resolved(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = document()
        for name in node["$ref"].split("/")[1:]:
            target = target[name]
        node = target
    return node


def _schema_of(path: str, method: str, status: str, media_type: str) -> dict[str, Any] | None:
    response = document()["paths"][path][method]["responses"].get(status)
    media = _resolved(response).get("content", {}).get(media_type) if response is not None else None
    return None if media is None else _resolved(media["schema"])


@functools.cache
def _validator(path: str, method: str, status: str, media_type: str) -> OAS30Validator | None:
    schema = _schema_of(path, method, status, media_type)
    return None if schema is None else OAS30Validator({**schema, "components": document()["components"]})


ANNOTATIONS = frozenset({"description", "example", "examples", "default", "format", "discriminator", "title"})
"""What a schema says that OAS30Validator as the run uses it checks nothing of: formats too (it has no format
checker), and the discriminator (a oneOf's branches here each fix their `kind`, so that exactly one matches)."""


def json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema draft 4, as OAS30Validator reads it: `nullable: true` admits null
    beside its type (an enum still has to list it), and a `$ref`'s siblings are checked too."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {
        key: ({name: json_schema(value) for name, value in item.items()} if key == "properties" else json_schema(item))
        for key, item in node.items()
        if key not in ANNOTATIONS and key != "nullable"
    }
    if node.get("nullable") is True and "type" in node:
        converted["type"] = [node["type"], "null"]
    if "$ref" in converted and len(converted) > 1:
        converted = {"allOf": [{"$ref": converted.pop("$ref")}], **converted}
    return converted


@functools.cache
def _responses() -> dict[tuple[str, str, str, str], str]:
    """Every answer the document declares a JSON schema for, each under a name of its own."""
    declared = [
        (path, method, status, media_type)
        for path, item in document()["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "responses" in operation
        for status, response in operation["responses"].items()
        for media_type in _resolved(response).get("content", {})
        if media_type in JSON_TYPES
    ]
    return {answer: f"a{number}" for number, answer in enumerate(declared)}


@functools.cache
def _compiled_document():
    """One compiled check for every answer the document declares: an object with each answer's schema as a
    property of its own name, so that `{name: body}` is checked against that answer's schema alone (each in a
    function of its own: the code fastjsonschema writes copies a function's locals for each item of a list).
    Compiled once a run (some seconds): its code is kept in the run's folder for every worker."""
    names = _responses()
    root = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {name: {"$ref": f"#/answers/{name}"} for name in names.values()},
        "answers": {name: json_schema(_schema_of(*answer)) for answer, name in names.items()},
        "components": {"schemas": json_schema(document()["components"]["schemas"])},
    }
    text = json.dumps(root, sort_keys=True)
    kept = Path(run.directory()) / f"answers-{hashlib.sha256(text.encode()).hexdigest()[:16]}.py"
    if not kept.exists():
        written = kept.with_suffix(f".{os.getpid()}")
        written.write_text(fastjsonschema.compile_to_code(root, use_default=False, detailed_exceptions=False))
        written.replace(kept)
    namespace: dict[str, Any] = {}
    exec(compile(kept.read_text(), str(kept), "exec"), namespace)
    return namespace["validate"]


def prepare_the_check() -> None:
    _compiled_document()


def breach_of(path: str, method: str, status: str, media_type: str, body: Any) -> str | None:
    """What is wrong with `body` as the document's answer, or None when it is valid (and "undeclared" when the
    document declares no such answer)."""
    name = _responses().get((path, method, status, media_type))
    if name is None:
        return "undeclared"
    try:
        _compiled_document()({name: body})
        return None
    except fastjsonschema.JsonSchemaException as refusal:
        validator = _validator(path, method, status, media_type)
        assert validator is not None
        error = best_match(validator.iter_errors(body))
        if error is None:
            return f"{refusal.message} (the compiled check alone refuses it)"
        return f"{error.message} at {'/'.join(map(str, error.absolute_path))}"


@functools.cache
def declared_query(path: str, method: str) -> frozenset[str]:
    item = document()["paths"][path]
    parameters = [
        _resolved(parameter) for parameter in [*item.get("parameters", []), *item[method].get("parameters", [])]
    ]
    return frozenset(parameter["name"] for parameter in parameters if parameter["in"] == "query")


@dataclass
class Answers:
    statuses: set[tuple[str, str, int]] = field(default_factory=set)
    """(path, method, status) of every response an app answered in this run."""
    breaches: list[str] = field(default_factory=list)
    """What broke the contract, each with the test that saw it."""

    def record(self, rule: str, method: str, status: int, mimetype: str, body: bytes | None, query: list[str]) -> None:
        path, method = openapi_path(rule), method.lower()
        self.statuses.add((path, method, status))
        operation = document()["paths"].get(path, {}).get(method)
        if operation is None:
            return
        where = f"{method.upper()} {path} {status} in {os.environ.get('PYTEST_CURRENT_TEST', '?').split(' ')[0]}"
        if 200 <= status < 300:
            undeclared = sorted(set(query) - declared_query(path, method))
            if undeclared:
                self.breaches.append(f"{where}: query parameters the document does not declare: {undeclared}")
        if body is None or mimetype not in JSON_TYPES or str(status) not in operation["responses"]:
            return
        breach = breach_of(path, method, str(status), mimetype, json.loads(body))
        if breach == "undeclared":
            self.breaches.append(f"{where}: answered {mimetype}, which the document does not declare")
        elif breach is not None:
            self.breaches.append(f"{where}: {breach}")

    def undeclared_statuses(self) -> list[tuple[str, str, int]]:
        return undeclared_statuses(self.statuses)


def undeclared_statuses(answered: set[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """The statuses answered that the OpenAPI document does not declare for their operation."""
    paths = document()["paths"]
    return sorted(
        (path, method, status)
        for path, method, status in answered
        if method in paths.get(path, {}) and str(status) not in paths[path][method]["responses"]
    )
