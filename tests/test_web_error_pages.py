"""Every API error is JSON and every web error page is the tool's own (its template, its navigation),
whatever the status: 404, 405, 413, 500 and the statuses Werkzeug raises by itself."""
from __future__ import annotations

import pytest

from web_helpers import browser_for

OWN_PAGE = '<p><a href="/">Back to the start page</a></p>'


@pytest.fixture
def crashing(app):
    """The app with a route that fails as a bug would, answered as in production (not re-raised)."""
    def crash():
        raise RuntimeError("a bug")

    app.add_url_rule("/api/crash", "api_crash", crash, methods=["GET", "POST"])
    app.add_url_rule("/crash", "crash", crash)
    app.testing = False
    app.config["MAX_CONTENT_LENGTH"] = 1000
    return app


@pytest.mark.parametrize("method, path, status", [
    ("get", "/api/nothing-here", 404), ("get", "/api/runs", 405), ("get", "/api/crash", 500),
    ("post", "/api/runs", 413)])
def test_api_errors_are_json(crashing, method, path, status):
    response = getattr(crashing.test_client(), method)(path, data=b"x" * 2000 if status == 413 else None)
    assert response.status_code == status and response.is_json, response.get_data(as_text=True)[:200]
    answer = response.get_json()
    assert answer["error"] and answer["accepted"] is False and answer["problems"] == [answer["error"]]
    if status == 405:
        assert "POST" in response.headers["Allow"]


@pytest.mark.parametrize("path, status", [("/crash", 500), ("/login", 405), ("/nothing-here", 404)])
def test_web_error_pages_are_the_tools_own(crashing, path, status):
    client = browser_for(crashing, "org").client
    response = client.put(path) if status == 405 else client.get(path)
    page = response.get_data(as_text=True)
    assert response.status_code == status and response.mimetype == "text/html"
    assert OWN_PAGE in page and f'<small class="muted">({status})</small>' in page
    assert "Werkzeug" not in page and "a bug" not in page
