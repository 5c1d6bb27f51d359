"""Every route checks the role: each role gets 403 wherever it is not allowed, anonymous users are
sent to the log-in page, and every view carries the role decorator (so a new route cannot forget)."""
from __future__ import annotations

import pytest

from web_helpers import ROLE_USER, app, browser_for, csrf_token, make_topic  # noqa: F401  (fixtures)

from sepia.store.models import ROLES

PARAMS = {"topic_id": "ACLIA2-CS-0001", "docid": "XIN_CMN_20080101.0001", "answer_id": 1,
          "nugget_id": 1, "user_id": 1, "filename": "sepia.css"}


def routes(app):
    """(endpoint, method, url, allowed roles or None for public) for every route of the app."""
    found = []
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        url = rule.build({name: PARAMS[name] for name in rule.arguments}, append_unknown=False)[1]
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            found.append((rule.endpoint, method, url, getattr(view, "allowed_roles", "missing")))
    return found


def test_every_view_declares_who_may_use_it(app):
    missing = [(e, u) for e, _, u, roles in routes(app) if roles == "missing" and e != "static"]
    assert missing == []


def test_public_views_are_only_login_and_logout(app):
    public = {e for e, _, _, roles in routes(app) if roles is None}
    assert public == {"auth.login", "auth.logout"}


@pytest.mark.parametrize("role", ROLES)
def test_wrong_role_gets_403_on_every_route(app, role):
    make_topic(app.extensions["sepia_store"], answers=[("XIN_CMN_20080101.0001", 8, 20)], nuggets=["病毒"])
    browser = browser_for(app, ROLE_USER[role])
    checked = 0
    for endpoint, method, url, roles in routes(app):
        if roles in (None, "missing") or role in roles:
            continue
        response = browser.post(url) if method == "POST" else browser.get(url)
        assert response.status_code == 403, (role, endpoint, method, url, response.status_code)
        checked += 1
    assert checked > 0 or role == "organiser"


@pytest.mark.parametrize("role", ROLES)
def test_allowed_role_is_not_refused(app, role):
    make_topic(app.extensions["sepia_store"], answers=[("XIN_CMN_20080101.0001", 8, 20)], nuggets=["病毒"])
    browser = browser_for(app, ROLE_USER[role])
    for endpoint, method, url, roles in routes(app):
        if method != "GET" or roles in (None, "missing") or role not in roles:
            continue
        response = browser.get(url)
        assert response.status_code in (200, 302), (role, endpoint, url, response.status_code)


def test_organiser_may_do_everything_but_vote(app):
    allowed = {e for e, _, _, roles in routes(app) if roles not in (None, "missing") and "organiser" in roles}
    forbidden = {e for e, _, _, roles in routes(app) if roles not in (None, "missing") and "organiser" not in roles}
    assert forbidden == {"votes.index", "votes.topic", "votes.submit"}
    assert {"admin.users", "votes.overview", "votes.export_gold", "topics.save"} <= allowed


def test_anonymous_get_goes_to_login_and_post_gets_401(app):
    browser = browser_for(app)
    browser.token = csrf_token(browser.client)  # a valid token, so that only the login is missing
    for endpoint, method, url, roles in routes(app):
        if roles in (None, "missing"):
            continue
        if method == "GET":
            response = browser.get(url)
            assert response.status_code == 302 and "/login" in response.headers["Location"], (endpoint, url)
        else:
            assert browser.post(url).status_code == 401, (endpoint, url)


def test_post_without_csrf_token_is_refused(app):
    make_topic(app.extensions["sepia_store"], answers=[("XIN_CMN_20080101.0001", 8, 20)], nuggets=["病毒"])
    browser = browser_for(app, "org")
    for endpoint, method, url, roles in routes(app):
        if method == "POST":
            response = browser.client.post(url, data={})
            assert response.status_code == 400, (endpoint, url)
            assert "security token" in response.get_data(as_text=True)
