"""JSON as this project reads it from strangers: request bodies and replay files.

Python's own reader accepts what JSON does not (NaN, Infinity), takes the last of two equal names, turns
escaped lone surrogates into strings that cannot be written back as UTF-8, and fails with a RecursionError
or an integer-conversion error on some inputs, which callers do not expect from a parser. Here every such
input is refused with one error that says why, before anything else sees it.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
"""Arrays and objects nested deeper than this are refused; a replay export nests eight deep."""

_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


class JSONRefused(ValueError):
    """The text is not JSON, or is JSON this project does not read; the message says why."""


def loads(data: bytes) -> Any:
    """The JSON value of `data` (UTF-8), or JSONRefused."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise JSONRefused(f"it is not UTF-8 (byte {error.start})") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_object_without_duplicates)
    except RecursionError:
        raise JSONRefused(f"it nests deeper than {MAX_DEPTH} levels") from None
    except JSONRefused:
        raise
    except json.JSONDecodeError as error:
        raise JSONRefused(f"it is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except ValueError as error:  # an integer literal beyond Python's conversion limit
        if "digits" in str(error):
            raise JSONRefused("a number in it has more than 4300 digits") from None
        raise JSONRefused(f"it is not valid JSON ({error})") from None
    # Counting brackets is quick; only a document with many of them needs to be walked.
    if data.count(b"[") + data.count(b"{") > MAX_DEPTH or _ESCAPED_SURROGATE.search(data):
        _check_nesting_and_strings(value)
    return value


def _refuse_constant(name: str) -> Any:
    raise JSONRefused(f"{name} is not a JSON number")


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        names = [name for name, _ in pairs]
        twice = next(name for name in names if names.count(name) > 1)
        raise JSONRefused(f"an object in it names {twice!r} twice")
    return value


def _check_nesting_and_strings(value: Any) -> None:
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children = [*item.keys(), *item.values()]
        elif isinstance(item, list):
            children = item
        else:
            if isinstance(item, str):
                _check_text(item)
            continue
        if depth > MAX_DEPTH:
            raise JSONRefused(f"it nests deeper than {MAX_DEPTH} levels")
        pending.extend((child, depth + 1) for child in children)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise JSONRefused(
            "a string in it holds a lone surrogate (an escape like \\ud800), which is no Unicode character"
        ) from None
