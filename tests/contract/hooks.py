"""What the OpenAPI document cannot state, told to schemathesis (docs/api.md, "What the document cannot say").

- An Idempotency-Key binds the first request sent with it: the same key with another request is refused
  with 422 `idempotency-key-reused`. Each well-formed key of a case is made fresh.
- With both `expected_version` in the body and If-Match, the header must name the body's version (422):
  JSON Schema relates fields of one value, not a header to a body. Cases where they disagree are dropped.
- A cursor is a token this server issues (`next_cursor`): schemathesis.toml gives listGames a real one.

The same file also keeps the run short: a game's event stream stays open while the game goes on, so the
streams tested are of a finished game, which the server sends whole and ends; a long poll waits as long as
`wait` says, so it says 0 (tests/api/test_live.py tests the waiting). Both are set in schemathesis.toml.
"""

import re
import uuid

import schemathesis

_VERSION_TAG = re.compile(r'(?:W/)?"([0-9]{1,10})"')
_IDEMPOTENCY_KEY = re.compile(r"[!-~](?:[ -~]{0,253}[!-~])?")


def _contradicts_itself(case) -> bool:
    if_match = (case.headers or {}).get("If-Match")
    body = case.body if isinstance(case.body, dict) else {}
    version = body.get("expected_version")
    if (
        not isinstance(if_match, str)
        or if_match.strip() == "*"
        or isinstance(version, bool)
        or not isinstance(version, int)
    ):
        return False
    return version not in {int(tag) for tag in _VERSION_TAG.findall(if_match)}


def _with_a_fresh_key(case):
    key = (case.headers or {}).get("Idempotency-Key")
    if isinstance(key, str) and _IDEMPOTENCY_KEY.fullmatch(key):
        case.headers["Idempotency-Key"] = str(uuid.uuid4())
    return case


@schemathesis.hook
def filter_case(ctx, case):
    return not _contradicts_itself(case)


@schemathesis.hook
def map_case(ctx, case):
    return _with_a_fresh_key(case)


@schemathesis.hook
def before_add_examples(ctx, examples):
    examples[:] = [_with_a_fresh_key(case) for case in examples if not _contradicts_itself(case)]
