"""Accounts: log in and out, password hashing, the secret key, cookies, and organisers adding users."""
from __future__ import annotations

import os
import re
import stat

from click.testing import CliRunner
from sqlalchemy import select, update

from web_helpers import PASSWORD, browser_for, csrf_token

from sepia.cli import main
from sepia.store.db import Store
from sepia.store.models import LoginSession, User, utcnow
from sepia.web import create_app
from sepia.services.accounts import create_user
from sepia.web.security import load_secret_key


def user(store, username):
    with store.transaction() as session:
        return session.scalars(select(User).where(User.username == username)).first()


def test_login_sends_each_role_to_its_start_page(app):
    starts = {"org": "/votes/overview", "dev": "/topics/", "as1": "/votes/", "par": "/me"}
    for username, start in starts.items():
        browser = browser_for(app, username)
        response = browser.get("/")
        assert response.status_code == 302 and response.headers["Location"].endswith(start)
        assert browser.get(start).status_code == 200


def test_wrong_password_and_unknown_user_are_refused_alike(app):
    browser = browser_for(app)
    for username, password in (("dev", "wrong-password"), ("nobody", PASSWORD)):
        response = browser.login(username, password)
        assert response.status_code == 401
        assert "Unknown user name or wrong password." in response.get_data(as_text=True)
    assert browser.get("/topics/").status_code == 302


def test_logout_ends_the_session(app):
    browser = browser_for(app, "dev")
    assert browser.get("/topics/").status_code == 200
    assert browser.post("/logout").status_code == 302
    assert browser.get("/topics/").status_code == 302


def test_a_session_ends_when_its_account_is_deactivated_or_its_time_is_up(app, web_store):
    developer, assessor = browser_for(app, "dev"), browser_for(app, "as1")
    assert developer.get("/topics/").status_code == 200 and assessor.get("/votes/").status_code == 200
    with web_store.transaction() as session:
        session.execute(update(User).where(User.username == "dev").values(active=False))
        session.execute(update(LoginSession).where(LoginSession.user_id == user(web_store, "as1").id)
                        .values(expires_at=utcnow()))
    assert developer.get("/topics/").status_code == 302
    assert assessor.get("/votes/").status_code == 302


def test_passwords_are_hashed_with_a_slow_hash(web_store):
    # Not a test account's (web_helpers hashes those at a low cost, for speed): one SEPIA adds.
    with web_store.transaction() as session:
        create_user(session, "new-dev", PASSWORD, "topic_developer")
    stored = user(web_store, "new-dev").password_hash
    method, cost = stored.split("$", 1)[0].split(":")[:2]
    assert PASSWORD not in stored and method == "scrypt" and int(cost) >= 2 ** 15


def test_next_parameter_only_redirects_within_the_site(app):
    browser = browser_for(app)
    token = csrf_token(browser.client)
    for target, expected in (("/nuggets/", "/nuggets/"), ("//evil.example/x", "/"), ("https://evil.example", "/")):
        browser.client.get("/login")
        response = browser.client.post(f"/login?next={target}", data={
            "username": "dev", "password": PASSWORD, "csrf_token": token})
        assert response.headers["Location"] == expected, target
        browser.client.post("/logout", data={"csrf_token": csrf_token(browser.client, "/")})
        token = csrf_token(browser.client)


def test_session_cookie_is_httponly_samesite_and_secure_by_default(tmp_path):
    application = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'c.db'}", "SECRET_KEY": "k"})
    assert application.config["SESSION_COOKIE_SECURE"] is True
    client = application.test_client()
    response = client.get("/login")
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" in cookie
    application.extensions["sepia_store"].dispose()


def test_pages_are_utf8_html_with_protective_headers(app):
    response = browser_for(app).get("/login")
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]


def test_secret_key_is_made_once_with_mode_600(sepia_home, monkeypatch):
    monkeypatch.delenv("SEPIA_SECRET_KEY", raising=False)
    first = load_secret_key()
    path = sepia_home / "secret_key"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_secret_key() == first and len(first) == 64
    monkeypatch.setenv("SEPIA_SECRET_KEY", "from-the-environment")
    assert load_secret_key() == "from-the-environment"


def test_changing_a_password_ends_other_sessions(app, web_store):
    victim = browser_for(app, "dev")
    organiser = browser_for(app, "org")
    dev_id = user(web_store, "dev").id
    response = organiser.post(f"/admin/users/{dev_id}", {"role": "topic_developer", "active": "1",
                                                         "password": "a-new-password-2"})
    assert response.status_code == 302
    assert victim.get("/topics/").status_code == 302
    assert browser_for(app).login("dev", "a-new-password-2").status_code == 302


def test_deactivated_account_cannot_log_in(app, web_store):
    organiser = browser_for(app, "org")
    as2 = user(web_store, "as2").id
    assert organiser.post(f"/admin/users/{as2}", {"role": "assessor"}).status_code == 302
    assert browser_for(app).login("as2").status_code == 401


def test_organiser_adds_accounts_and_sees_clear_errors(app, web_store):
    organiser = browser_for(app, "org")
    response = organiser.post("/admin/users", {"username": "李明", "password": PASSWORD, "role": "assessor"})
    assert response.status_code == 422 and "2 to 100 letters" in response.get_data(as_text=True)
    response = organiser.post("/admin/users", {"username": "team1", "password": PASSWORD, "role": "participant"})
    assert response.status_code == 422 and "belongs to a team" in response.get_data(as_text=True)
    response = organiser.post("/admin/users", {"username": "short", "password": "abc", "role": "assessor"})
    assert "at least 8 characters" in response.get_data(as_text=True)
    response = organiser.post("/admin/users", {"username": "as3", "password": PASSWORD, "role": "assessor",
                                               "display_name": "<b>佐藤</b>"})
    assert response.status_code == 302
    page = organiser.get("/admin/users").get_data(as_text=True)
    assert "&lt;b&gt;佐藤&lt;/b&gt;" in page and "<b>佐藤</b>" not in page
    response = organiser.post("/admin/users", {"username": "as3", "password": PASSWORD, "role": "assessor"})
    assert "is taken" in response.get_data(as_text=True)
    assert browser_for(app, "as3").get("/votes/").status_code == 200


def test_organiser_cannot_lock_themselves_out(app, web_store):
    organiser = browser_for(app, "org")
    org_id = user(web_store, "org").id
    response = organiser.post(f"/admin/users/{org_id}", {"role": "assessor", "active": "1"})
    assert response.status_code == 422
    assert user(web_store, "org").role == "organiser"


def test_user_add_command(sepia_home):
    runner = CliRunner()
    result = runner.invoke(main, ["user", "add", "kim", "--role", "participant", "--team", "KECIR",
                                  "--password", PASSWORD])
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["user", "add", "lee", "--role", "assessor"], input="pw-typed-twice\npw-typed-twice\n")
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["user", "add", "kim", "--role", "assessor", "--password", PASSWORD])
    assert result.exit_code == 1 and "is taken" in result.output
    result = runner.invoke(main, ["user", "add", "park", "--role", "participant", "--password", PASSWORD])
    assert result.exit_code == 1 and "belongs to a team" in result.output
    store = Store()
    with store.transaction() as session:
        kim = session.scalars(select(User).where(User.username == "kim")).one()
        assert kim.team.name == "KECIR" and kim.role == "participant"
    store.dispose()


def test_the_add_account_form_starts_at_the_least_privileged_role(app):
    page = browser_for(app, "org").get("/admin/users").get_data(as_text=True)
    form = page.split('action="/admin/users"')[1].split("</form>")[0]
    assert re.search(r'<option value="participant" selected>', form)
    assert not re.search(r'<option value="organiser" selected>', form)


def test_pages_have_a_favicon(app):
    page = browser_for(app).get("/login").get_data(as_text=True)
    href = re.search(r'<link rel="icon" href="([^"]+)"', page).group(1)
    icon = browser_for(app).get(href)
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
