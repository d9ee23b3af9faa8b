"""The run's check of every answer (tests/answers.py) compiles the OpenAPI document with fastjsonschema; the
reference is openapi-schema-validator. Here the two give the same verdict on every example the document holds for an
answer, and on each example spoiled in the ways a server goes wrong: a field missing, null, of another type, or
one more than the schema has."""

import copy
import itertools

import pytest

from tests.answers import JSON_TYPES, _resolved, _validator, breach_of, document


def declared_answers():
    for path, item in document()["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status, response in operation["responses"].items():
                for media_type, media in _resolved(response).get("content", {}).items():
                    if media_type in JSON_TYPES:
                        yield (path, method, status, media_type), media


def examples_of(media):
    if "example" in media:
        yield media["example"]
    for example in media.get("examples", {}).values():
        yield _resolved(example)["value"]


def spoiled(body):
    """The body with one thing wrong, each way in turn, in the body and in the first item of each list in it."""
    if isinstance(body, dict):
        for key, value in body.items():
            for change in ({"drop": key}, {key: None}, {key: 1 if isinstance(value, str) else "1"}):
                copied = copy.deepcopy(body)
                if "drop" in change:
                    del copied[change["drop"]]
                else:
                    copied.update(change)
                yield copied
            for inner in spoiled(value):
                yield {**body, key: inner}
        yield {**body, "unexpected": True}
    elif isinstance(body, list) and body:
        for inner in spoiled(body[0]):
            yield [inner, *body[1:]]


ANSWERS = sorted(declared_answers(), key=lambda answer: answer[0])


@pytest.mark.parametrize(("answer", "media"), ANSWERS, ids=[" ".join(answer) for answer, _ in ANSWERS])
def test_the_compiled_check_and_the_reference_agree_on_every_example_and_every_spoiled_one(answer, media):
    reference = _validator(*answer)
    bodies = list(itertools.chain.from_iterable([example, *spoiled(example)] for example in examples_of(media)))
    assert bodies, "every answer has an example"
    verdicts = [(breach_of(*answer, body) is None, reference.is_valid(body)) for body in bodies]

    assert [compiled for compiled, _ in verdicts] == [valid for _, valid in verdicts]
    assert verdicts[0] == (True, True), "the document's own example is valid"
    assert any(not valid for _, valid in verdicts[1:]) or len(bodies) == 1, "some spoiled body is refused"
