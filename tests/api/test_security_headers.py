"""Every response says how a browser may use it (issue 50): pages run only the server's own scripts and styles and
may not be framed; the API, static files and guides may not be framed, sniffed or run."""

import pytest

from server.api.security_headers import PAGE_POLICY, RESOURCE_POLICY
from tests.api.helpers import create


def assert_protected(response, policy):
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Content-Security-Policy"] == policy
    assert "frame-ancestors 'none'" in policy


def test_the_front_end_s_page_runs_only_the_server_s_own_code_and_is_never_framed(client):
    page = client.get("/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert_protected(page, PAGE_POLICY)
    assert "script-src 'self'" in PAGE_POLICY and "unsafe-inline" not in PAGE_POLICY


@pytest.mark.parametrize("path", ["/app/app.js", "/app/style.css", "/favicon.ico", "/docs/api.md", "/variants"])
def test_static_files_guides_and_the_api_are_never_framed_or_sniffed(client, path):
    answered = client.get(path)
    assert answered.status_code == 200, path
    assert_protected(answered, RESOURCE_POLICY)


def test_games_problems_and_streams_carry_them_too(client):
    game, headers = create(client, variant="peek")
    assert_protected(client.get(f"/games/{game['id']}"), RESOURCE_POLICY)
    assert_protected(client.post(f"/games/{game['id']}/draw", headers={"Authorization": "Basic x"}), RESOURCE_POLICY)
    assert_protected(client.get("/games/not-a-uuid"), RESOURCE_POLICY)
    assert client.post(f"/games/{game['id']}/resign", headers=headers).status_code == 200
    stream = client.get(f"/games/{game['id']}/events/stream")
    assert_protected(stream, RESOURCE_POLICY)
    stream.close()


def test_a_page_revalidated_keeps_its_own_policy(client):
    """A 304 has no body and no Content-Type: it carries no policy, so the browser keeps the page's (a resource's
    policy on it blocked the page's own scripts after a reload)."""
    page = client.get("/")
    again = client.get("/", headers={"If-None-Match": page.headers["ETag"]})
    assert again.status_code == 304
    assert "Content-Security-Policy" not in again.headers
    assert again.headers["X-Content-Type-Options"] == "nosniff" and again.headers["X-Frame-Options"] == "DENY"
