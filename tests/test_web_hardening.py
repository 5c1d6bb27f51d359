"""Attacks and accidents the web tool must survive: votes nobody cast, edits that overwrite each
other, open redirects, guessing passwords, copied cookies, forms sent twice, odd numbers, a locked
or full store. Each test failed before its fix."""
from __future__ import annotations

import re
import sqlite3

import pytest
from sqlalchemy import event, select

from web_helpers import PASSWORD, browser_for, csrf_token, make_topic, nugget_version, vote

from sepia.store import db as store_db
from sepia.store.models import LoginFailure, Nugget, Topic, User, Vote
from sepia.services import voting
from sepia.web import create_app, nuggets

DOC = "XIN_CMN_20080101.0001"
TOPIC = "ACLIA2-CS-0001"
STAMP_RE = re.compile(r'name="shown" value="([^"]*)"')


def nuggets_of(store):
    with store.transaction() as session:
        return {n.label: (n.id, n.text) for n in session.scalars(select(Nugget).where(Nugget.topic_id == TOPIC))}


def votes(store):
    with store.transaction() as session:
        return sorted((v.assessor, v.nugget_id, v.vital) for v in session.scalars(select(Vote)))


def two_nuggets(store):
    make_topic(store, TOPIC, answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒", "禽类传染病"])
    found = nuggets_of(store)
    return found["N001"][0], found["N002"][0]


def open_form(browser):
    return STAMP_RE.search(browser.get(f"/votes/{TOPIC}").get_data(as_text=True)).group(1)


def answer_id(store):
    with store.transaction() as session:
        return session.scalars(select(Nugget).where(Nugget.topic_id == TOPIC)).first().answer_texts[0].id


# ---------------------------------------------------------------- 1. a vote nobody cast

def test_a_nugget_added_while_the_form_is_open_gets_no_vote(app, web_store):
    n1, n2 = two_nuggets(web_store)
    as1, dev = browser_for(app, "as1"), browser_for(app, "dev")
    stamp = open_form(as1)
    assert dev.post(f"/nuggets/{TOPIC}", {"text": "新华社", "answer_ids": [str(answer_id(web_store))]}).status_code == 302
    n3 = nuggets_of(web_store)["N003"][0]
    response = as1.post(f"/votes/{TOPIC}", {"shown": stamp, "vital": [str(n1)]})
    page = response.get_data(as_text=True)
    assert response.status_code == 409 and "1 added (N003)" in page and "Nothing was recorded" in page
    assert votes(web_store) == []
    # The ticks are kept, and the new nugget is marked for the assessor to look at.
    assert re.search(rf'value="{n1}" checked', page) and not re.search(rf'value="{n2}" checked', page)
    assert re.search(rf'class="vote\s+changed"[^>]*>\s*<label class="check">\s*<input type="checkbox" name="vital" '
                     rf'value="{n3}"', page)
    assert vote(as1, TOPIC, [n1, n3]).status_code == 302
    assert votes(web_store) == [("as1", n1, True), ("as1", n2, False), ("as1", n3, True)]


def test_a_nugget_edited_or_deleted_while_the_form_is_open_refuses_the_votes(app, web_store):
    n1, n2 = two_nuggets(web_store)
    as1, dev = browser_for(app, "as1"), browser_for(app, "dev")
    stamp = open_form(as1)
    dev.post(f"/nuggets/{TOPIC}/{n2}", {"text": "禽类的传染病", "answer_ids": [str(answer_id(web_store))],
                                        "version": nugget_version(dev, TOPIC, n2)})
    response = as1.post(f"/votes/{TOPIC}", {"shown": stamp, "vital": [str(n2)]})
    assert response.status_code == 409 and "1 edited (N002)" in response.get_data(as_text=True)
    stamp = open_form(as1)
    dev.post(f"/nuggets/{TOPIC}/{n1}/delete", {"version": nugget_version(dev, TOPIC, n1)})
    response = as1.post(f"/votes/{TOPIC}", {"shown": stamp, "vital": [str(n2)]})
    assert response.status_code == 409 and "1 removed" in response.get_data(as_text=True)
    assert votes(web_store) == []


def test_a_form_without_the_shown_nuggets_records_nothing(app, web_store):
    n1, _ = two_nuggets(web_store)
    response = browser_for(app, "as1").post(f"/votes/{TOPIC}", {"vital": [str(n1)]})
    assert response.status_code == 409 and votes(web_store) == []


def test_nugget_edits_do_not_overwrite_each_other(app, web_store):
    n1, _ = two_nuggets(web_store)
    dev, org = browser_for(app, "dev"), browser_for(app, "org")
    loaded = nugget_version(org, TOPIC, n1)
    links = [str(answer_id(web_store))]
    assert dev.post(f"/nuggets/{TOPIC}/{n1}", {"text": "甲型病毒", "answer_ids": links,
                                               "version": nugget_version(dev, TOPIC, n1)}).status_code == 302
    response = org.post(f"/nuggets/{TOPIC}/{n1}", {"text": "流感病毒", "answer_ids": links, "version": loaded})
    page = response.get_data(as_text=True)
    assert response.status_code == 409 and "it now reads \u201c甲型病毒\u201d" in page
    assert nuggets_of(web_store)["N001"][1] == "甲型病毒"
    # Their text stays in the (opened) edit form, ready to be saved again.
    assert re.search(r"<details open>.*?>流感病毒</textarea>", page, re.S)
    response = org.post(f"/nuggets/{TOPIC}/{n1}/delete", {"version": loaded})
    assert response.status_code == 409 and "N001" in nuggets_of(web_store)


# ---------------------------------------------------------------- 3. open redirect

@pytest.mark.parametrize("target", [
    "/%09/evil.example/path", "/%0a/evil.example", "/%0d/evil.example", "%09//evil.example",
    "%20//evil.example", "/%5Cevil.example", "%5C%5Cevil.example", "//evil.example", "///evil.example",
    "https://evil.example", "https:evil.example", "javascript:alert(1)", "evil.example", "%00//evil.example",
])
def test_log_in_never_redirects_off_site(app, target):
    browser = browser_for(app)
    token = csrf_token(browser.client)
    response = browser.client.post(f"/login?next={target}",
                                   data={"username": "dev", "password": PASSWORD, "csrf_token": token})
    assert response.status_code == 302 and response.headers["Location"] == "/", target


def test_log_in_keeps_a_same_site_target(app):
    browser = browser_for(app)
    token = csrf_token(browser.client)
    response = browser.client.post("/login?next=/nuggets/%3Fx%3D1",
                                   data={"username": "dev", "password": PASSWORD, "csrf_token": token})
    assert response.headers["Location"] == "/nuggets/?x=1"


# ---------------------------------------------------------------- 5. brute force and enumeration

@pytest.fixture
def strict_app(app):
    app.extensions["sepia_throttle"] = app.extensions["sepia_throttle"].__class__(
        per_account=3, per_address=5, window=app.extensions["sepia_throttle"].window)
    return app


def test_failed_log_ins_are_throttled_per_account(strict_app):
    browser = browser_for(strict_app)
    for _ in range(3):
        assert browser.login("dev", "wrong-password").status_code == 401
    response = browser.login("dev", PASSWORD)  # even the right password waits now
    assert response.status_code == 429 and int(response.headers["Retry-After"]) > 0
    assert "Too many failed log-ins" in response.get_data(as_text=True)
    assert browser.login("org").status_code == 302  # another account is not locked


def test_failed_log_ins_are_throttled_per_address(strict_app, web_store):
    browser = browser_for(strict_app)
    for name in ("a1", "a2", "a3", "a4", "a5"):
        assert browser.login(name, "guess-1234").status_code == 401
    assert browser.login("org").status_code == 429
    with web_store.transaction() as session:
        assert session.scalar(select(LoginFailure.address).limit(1)) == "127.0.0.1"


def test_the_throttle_holds_across_server_processes(strict_app, tmp_path):
    other = create_app({**{k: strict_app.config[k] for k in ("DATABASE_URL", "SECRET_KEY", "TESTING",
                                                              "SESSION_COOKIE_SECURE", "SEARCH_ENGINE")},
                        "LOGIN_FAILURES_PER_ACCOUNT": 3})
    for application in (strict_app, other, strict_app):
        assert browser_for(application).login("dev", "wrong-password").status_code == 401
    assert browser_for(other).login("dev").status_code == 429
    other.extensions["sepia_store"].dispose()


def test_an_unknown_user_costs_the_same_hash_as_a_wrong_password(app, monkeypatch):
    from sepia.services import accounts

    checked = []
    real = accounts.check_password_hash
    monkeypatch.setattr(accounts, "check_password_hash", lambda h, p: checked.append(h) or real(h, p))
    browser = browser_for(app)
    browser.login("nobody", "wrong-password")
    browser.login("dev", "wrong-password")
    assert len(checked) == 2 and all(h.startswith("scrypt:") for h in checked)


# ---------------------------------------------------------------- 10. sessions and limits

def test_logging_out_ends_the_session_on_the_server(app):
    dev = browser_for(app, "dev")
    copied = dev.client.get_cookie("sepia_session").value
    assert dev.post("/logout").status_code == 302
    thief = app.test_client()
    thief.set_cookie("sepia_session", copied)
    assert thief.get("/topics/").status_code == 302  # to the log-in page


def test_a_new_password_ends_every_session_of_the_account(app, web_store):
    dev = browser_for(app, "dev")
    with web_store.transaction() as session:
        dev_id = session.scalar(select(User.id).where(User.username == "dev"))
    response = browser_for(app, "org").post(f"/admin/users/{dev_id}", {
        "role": "topic_developer", "active": "on", "password": "another-password-2"})
    assert response.status_code == 302
    assert dev.get("/topics/").status_code == 302


def test_answer_texts_have_a_length_limit(app, web_store):
    make_topic(web_store, TOPIC, completed=False)
    dev = browser_for(app, "dev")
    response = dev.post_json(f"/topics/{TOPIC}/answers", {"docid": DOC, "text": "病" * 10_001})
    assert response.status_code == 422 and "at most 10,000" in response.get_json()["error"]


# ---------------------------------------------------------------- 9. no bare 500 pages

@pytest.mark.parametrize("value", ["²", "٣", "9" * 5000, "-1", "1e3"])
def test_odd_numbers_in_a_form_get_a_clear_message(app, web_store, value):
    two_nuggets(web_store)
    as1 = browser_for(app, "as1")
    response = as1.post(f"/votes/{TOPIC}", {"shown": open_form(as1), "vital": [value]})
    page = response.get_data(as_text=True)
    assert response.status_code == 400 and "is not a valid nugget" in page
    assert votes(web_store) == []


def test_odd_versions_in_a_topic_form_get_a_clear_message(app, web_store):
    make_topic(web_store, TOPIC, completed=False)
    response = browser_for(app, "dev").post(f"/topics/{TOPIC}", {"version": "²", "memo": "keep me"})
    page = response.get_data(as_text=True)
    assert response.status_code == 400 and "is not a valid version" in page and "keep me" in page


def test_a_vote_form_sent_twice_at_once_records_one_set_of_votes(app, web_store, monkeypatch):
    n1, n2 = two_nuggets(web_store)
    as1 = browser_for(app, "as1")
    stamp = open_form(as1)
    # The other request of the pair commits first, after this one found the nuggets open.
    with web_store.transaction() as session:
        session.add_all([Vote(nugget_id=n1, assessor="as1", vital=True), Vote(nugget_id=n2, assessor="as1", vital=False)])
    real, calls = voting.open_nuggets, []

    def stale_first(nuggets, assessor):
        calls.append(assessor)
        return list(nuggets) if len(calls) == 1 else real(nuggets, assessor)

    monkeypatch.setattr(voting, "open_nuggets", stale_first)
    monkeypatch.setattr(voting, "form_stamp", lambda nuggets: stamp)
    response = as1.post(f"/votes/{TOPIC}", {"shown": stamp, "vital": [str(n1)]}, follow_redirects=True)
    assert response.status_code == 200 and "already in; nothing changed" in response.get_data(as_text=True)
    assert votes(web_store) == [("as1", n1, True), ("as1", n2, False)]


def test_two_nugget_adds_at_once_both_get_a_label(app, web_store, monkeypatch):
    two_nuggets(web_store)
    real, calls = nuggets.next_label, []

    def taken_first(topic):  # the other request took the next label a moment earlier
        calls.append(topic.id)
        return "N002" if len(calls) == 1 else real(topic)

    monkeypatch.setattr(nuggets, "next_label", taken_first)
    dev = browser_for(app, "dev")
    response = dev.post(f"/nuggets/{TOPIC}", {"text": "新华社", "answer_ids": [str(answer_id(web_store))]})
    assert response.status_code == 302 and nuggets_of(web_store)["N003"][1] == "新华社"


def test_a_long_held_lock_gets_a_busy_page_that_keeps_the_input(app, web_store, monkeypatch, tmp_path):
    two_nuggets(web_store)
    monkeypatch.setattr(store_db, "SQLITE_BUSY_TIMEOUT_MS", 200)
    web_store.engine.dispose()  # new connections take the short timeout
    dev = browser_for(app, "dev")
    links = [str(answer_id(web_store))]
    holder = sqlite3.connect(web_store.engine.url.database, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        response = dev.post(f"/nuggets/{TOPIC}", {"text": "新华社的报道", "answer_ids": links})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    page = response.get_data(as_text=True)
    assert response.status_code == 503 and "busy" in page and "新华社的报道" in page
    assert "N003" not in nuggets_of(web_store)
    assert dev.post(f"/nuggets/{TOPIC}", {"text": "新华社的报道", "answer_ids": links}).status_code == 302


def test_a_full_disk_gets_a_clear_page_and_loses_nothing(app, web_store):
    make_topic(web_store, TOPIC, completed=False)
    dev = browser_for(app, "dev")

    def no_room_to_grow(connection, _record):
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count={pages}")

    web_store.engine.dispose()
    event.listen(web_store.engine, "connect", no_room_to_grow)
    memo = "𠀀" * 10_000  # 40,000 bytes: more pages than any free ones the file may have
    response = dev.post(f"/topics/{TOPIC}", {"version": "1", "memo": memo, "question_target": "什么是禽流感？"})
    event.remove(web_store.engine, "connect", no_room_to_grow)
    web_store.engine.dispose()
    page = response.get_data(as_text=True)
    assert response.status_code == 507 and "disk is full" in page and memo in page
    with web_store.transaction() as session:
        assert session.get(Topic, TOPIC).memo == ""
