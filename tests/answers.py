"""What every app of the run answered, held to the committed OpenAPI document: each status declared for its
operation, each JSON body valid against the schema the document gives it, each query parameter a request
got through with declared. tests/conftest.py records every response; the session fails on any breach."""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema.exceptions import ValidationError
from openapi_schema_validator import OAS30Validator

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


@functools.cache
def _validator(path: str, method: str, status: str, media_type: str) -> OAS30Validator | None:
    response = document()["paths"][path][method]["responses"].get(status)
    media = _resolved(response).get("content", {}).get(media_type) if response is not None else None
    if media is None:
        return None
    return OAS30Validator({**_resolved(media["schema"]), "components": document()["components"]})


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
        validator = _validator(path, method, str(status), mimetype)
        if validator is None:
            self.breaches.append(f"{where}: answered {mimetype}, which the document does not declare")
            return
        try:
            validator.validate(json.loads(body))
        except ValidationError as error:
            self.breaches.append(f"{where}: {error.message} at {'/'.join(map(str, error.absolute_path))}")

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
