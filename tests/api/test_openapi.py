"""The committed OpenAPI document is the contract: it matches the app, validates, and is well formed."""

import subprocess
import sys
from pathlib import Path

import pytest
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate

from server.api import openapi_document
from server.api.errors import every_code
from tests.api.helpers import committed_document, operations, resolve


@pytest.fixture(scope="module")
def document():
    return committed_document()


def test_the_committed_document_is_what_the_app_generates():
    assert openapi_document() == committed_document(), (
        "openapi/openapi.json is stale: run `osmosis openapi --output openapi/openapi.json`"
    )


def test_the_app_serves_the_same_document(client, document):
    assert client.get("/openapi.json").get_json() == document


def test_a_server_starting_makes_no_example_until_its_document_is_read():
    """The played game's examples take a hint and a verification: every worker of every server paid them at its
    start (examples.Later)."""
    program = (
        "from server.api import examples, http_app\n"
        "from server.config import Settings\n"
        "verified = []\n"
        "verify = examples.verify\n"
        "examples.verify = lambda document: verified.append(1) or verify(document)\n"
        "app = http_app(Settings.from_env({}))\n"
        "print(examples._played.cache_info().currsize, len(verified))\n"
        "first = app.test_client().get('/openapi.json').get_data()\n"
        "print(examples._played.cache_info().currsize, len(verified))\n"
        "again = app.test_client().get('/openapi.json').get_data()\n"
        "print(len(verified), again == first)\n"
    )
    made = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)

    before, read, read_again = made.stdout.splitlines()
    assert before == "0 0" and read.split()[0] == "1" and read.split()[1] != "0"
    assert read_again == f"{read.split()[1]} True", "the document is written once, not at every read"


def test_the_document_is_valid_openapi(document):
    validate(document)
    assert document["openapi"].startswith("3.0")


def test_every_operation_has_a_unique_operation_id_a_tag_and_a_summary(document):
    ids = [operation.get("operationId") for _, _, operation in operations(document)]

    assert None not in ids and len(ids) == len(set(ids))
    for path, method, operation in operations(document):
        assert operation.get("tags"), f"{method} {path} has no tag"
        assert operation.get("summary"), f"{method} {path} has no summary"


def test_every_operation_documents_its_errors_as_problem_json(document):
    for path, method, operation in operations(document):
        errors = {
            code: resolve(document, response)
            for code, response in operation["responses"].items()
            if code.startswith(("4", "5")) or code == "default"
        }
        assert errors, f"{method} {path} documents no error"
        for response in errors.values():
            assert list(response["content"]) == ["application/problem+json"]
            assert response["content"]["application/problem+json"]["schema"] == {"$ref": "#/components/schemas/Problem"}


def test_every_schema_is_a_named_component(document):
    for path, method, operation in operations(document):
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
        if body:
            assert "$ref" in body["schema"], f"{method} {path} has an inline request schema"
        for code, response in operation["responses"].items():
            for media in resolve(document, response).get("content", {}).values():
                inline_object = "$ref" not in media["schema"] and media["schema"].get("type") != "string"
                assert not inline_object, f"{method} {path} {code} has an inline object schema"


def test_the_examples_validate_against_their_schemas(document):
    examples = 0
    for _, _, operation in operations(document):
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
        if "example" in body:
            schema = {**resolve(document, body["schema"]), "components": document["components"]}
            OAS30Validator(schema).validate(body["example"])
            examples += 1
    assert examples >= 4


def test_every_query_parameter_a_view_reads_is_in_the_document(document):
    from server.api.boundary import declared_arguments
    from server.api.routes import ROUTES, blueprints
    from tests.answers import declared_query, openapi_path

    blueprints()
    checked = 0
    for blueprint, routes in ROUTES:
        for rule, view in routes:
            path = openapi_path(f"{blueprint.url_prefix or ''}{rule}".replace("//", "/"))
            for method in view.methods:
                arguments = declared_arguments(view, method)
                if arguments is not None:
                    assert set(arguments[1]) == declared_query(path, method.lower()), f"{method} {path}"
                    checked += len(arguments[1])
    assert checked > 15


def test_every_tag_used_is_declared(document):
    declared = {tag["name"] for tag in document["tags"]}

    assert {tag for _, _, operation in operations(document) for tag in operation["tags"]} == declared


def test_no_enum_lists_null_but_the_null_branch_of_a_nullable_reference(document):
    def walk(node):
        if isinstance(node, dict):
            assert None not in node.get("enum", []) or (node["enum"] == [None] and node["nullable"]), node
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)


def test_the_api_guide_explains_every_problem_code_the_server_answers():
    guide = (Path(__file__).parents[2] / "docs" / "api.md").read_text()

    assert [code for code in every_code() if f"`{code}`" not in guide] == []
