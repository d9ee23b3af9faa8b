"""What the HTTP layer adds to every request: documentation costs nothing at run time, and Flask still
runs coroutine views through its async support."""

import pytest

from server.api.common import Blueprint
from server.api.games.actions import Moves


def test_documenting_decorators_return_the_view_itself_with_their_documentation():
    blp = Blueprint("documented", __name__)

    def view():
        return "ok"

    assert blp.alt_response(404, response="NOT_FOUND")(view) is view
    assert blp.doc(summary="A view")(view) is view
    assert view._apidoc["response"]["responses"][404] == ["NOT_FOUND"]
    assert view._apidoc["manual_doc"] == {"summary": "A view"}


def test_an_action_view_runs_only_the_layers_that_parse_and_answer():
    layers, view = 0, Moves.post
    while hasattr(view, "__wrapped__"):
        layers, view = layers + 1, view.__wrapped__

    # flask-smorest's arguments and webargs' parser read the body; flask-smorest's response passes the
    # Response on. The doc and seven alt_response decorators used to add eight more.
    assert layers == 3


def test_sync_views_run_as_they_are_and_coroutine_views_still_go_through_flask_async(app):
    def sync_view():
        return "ok"

    async def async_view():
        return "ok"

    assert app.ensure_sync(sync_view) is sync_view
    with pytest.raises(RuntimeError, match="async"):  # Flask's own: installed without its async extra
        app.ensure_sync(async_view)
