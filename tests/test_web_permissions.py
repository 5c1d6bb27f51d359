"""Every route checks the role: each role gets 403 wherever it is not allowed, anonymous users are
sent to the log-in page, and every view carries the role decorator (so a new route cannot forget)."""
from __future__ import annotations

import re
from html import unescape

import pytest

from campaign_helpers import move_window, run_xml, schedule
from web_helpers import ROLE_USER, browser_for, csrf_token, make_topic

from sqlalchemy import select

from sepia.campaign.results import default_settings
from sepia.campaign.submission import submit_run
from sepia.qa.evaluate import SETTINGS as QA_SETTINGS
from sepia.store.models import ROLES, EvaluationResult, Run, TaskWindow
from sepia.store.pools import assign_pool, build_pool
from sepia.store.results import settings_key, shown
from sepia.store.rubric import set_rubric
from sepia.web import pages

PARAMS = {"topic_id": "ACLIA2-CS-0001", "docid": "XIN_CMN_20080101.0001", "answer_id": 1,
          "nugget_id": 1, "user_id": 1, "filename": "sepia.css", "set_id": 1, "task": "qa",
          "submission_id": 1, "token_id": 1, "key": "CS-CS-human", "pair": "CS-CS",
          "pool_id": 1, "assignment_id": 1, "entry_id": 1,
          "run_topic_id": 2}  # the CCLQA run's answer (the QA run's is 1), for rubric grading


def routes(app):
    """(endpoint, method, url, allowed roles or None for public) for every route of the app."""
    found = []
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        url = rule.build({name: PARAMS[name] for name in rule.arguments}, append_unknown=False)[1]
        if getattr(view, "token_auth", False):
            continue  # the API: a token, not a session (tests/test_web_participate.py)
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


def released_campaign(store):
    """Topic set 1 with every window past and released, submission 1 of the participant's team and a
    scored CCLQA (its answer citing a document) and QA run, so that every route's parameters name
    something that exists."""
    make_topic(store, answers=[("XIN_CMN_20080101.0001", 8, 20)], nuggets=["病毒"])
    schedule(store, "Formal run", ["ACLIA2-CS-0001"], {"qa": (-1, 1, None), "ir4qa": (-3, -2, -1),
                                                      "cclqa": (-1, 1, None)})
    with store.transaction() as session:
        qa = submit_run(session, "TEAMX", "par", "run.xml",
                        run_xml("qa", "TEAMX-CS-CS-01-T", {"ACLIA2-CS-0001": ["PERSON"]}), 10**6)
        qa_pk = session.scalar(select(Run.id).where(Run.run_id == qa.run_id, Run.kind == "qa"))
        session.add(EvaluationResult(run_id=qa_pk, measure="accuracy", value=1.0, settings=shown(QA_SETTINGS),
                                     settings_id=settings_key(QA_SETTINGS)))
        cited = run_xml("cclqa", "TEAMX-CS-CS-01-T", {"ACLIA2-CS-0001": ["病毒"]}).replace(
            b"</TEXT>", b"</TEXT><DOCID>XIN_CMN_20080101.0001</DOCID>")  # a citation for the support screen
        run = submit_run(session, "TEAMX", "par", "run.xml", cited, 10**6)
        run_pk = session.scalar(select(Run.id).where(Run.run_id == run.run_id, Run.kind == "cclqa"))
        session.add(EvaluationResult(run_id=run_pk, measure="F3", matcher="human", value=0.5,
                                     settings=shown(default_settings("human").describe()),
                                     settings_id=settings_key(default_settings("human").identity())))
    with store.transaction() as session:  # pool 1, its item 1 in assessor as1's queue; a rubric to grade with
        build_pool(session, "p", "cclqa", 30)
        assign_pool(session, "p", ["as1"])
        set_rubric(session, '[[dimension]]\nname = "correctness"\nanchors = ["no", "little", "most", "all"]\n', "org")
    move_window(store, 1, "qa", -3, -2, -1)
    move_window(store, 1, "cclqa", -3, -2, -1)
    with store.transaction() as session:  # the full tables published, so participants see the charts
        session.query(TaskWindow).update({"publish_full_table": True})


@pytest.mark.parametrize("role", ROLES)
def test_allowed_role_is_not_refused(app, role):
    released_campaign(app.extensions["sepia_store"])
    browser = browser_for(app, ROLE_USER[role])
    for endpoint, method, url, roles in routes(app):
        if method != "GET" or roles in (None, "missing") or role not in roles:
            continue
        response = browser.get(url)
        assert response.status_code in (200, 302), (role, endpoint, url, response.status_code)


def test_organiser_may_do_everything_but_vote(app):
    allowed = {e for e, _, _, roles in routes(app) if roles not in (None, "missing") and "organiser" in roles}
    forbidden = {e for e, _, _, roles in routes(app) if roles not in (None, "missing") and "organiser" not in roles}
    assert forbidden == {"votes.index", "votes.topic", "votes.submit", "participate.home", "participate.upload",
                         "participate.receipt", "participate.own_file", "participate.create_token",
                         "participate.revoke_token", "results.mine", "judging.queue", "judging.screen", "judging.save"}
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
    for endpoint, method, url, _roles in routes(app):
        if method == "POST":
            response = browser.client.post(url, data={})
            assert response.status_code == 400, (endpoint, url)
            assert "security token" in response.get_data(as_text=True)


# The top bar as base.html drew it by hand before sepia.web.pages held the links.
NAV = {"organiser": ["Topics", "Nuggets", "Votes & gold", "Schedule", "Pools", "Rubric", "Guidelines", "Assessors", "Results", "Accounts"],
       "topic_developer": ["Topics", "Nuggets"],
       "assessor": ["Voting", "Judging", "Rubric"],
       "participant": ["Runs", "Results"]}


def top_bar(html: str) -> list[tuple[str, str, bool]]:
    """(href, label, marked current) of each link of the page's <nav>."""
    nav = re.search(r"<nav>(.*?)</nav>", html, re.S).group(1)
    return [(href, unescape(label), "aria-current" in attributes)
            for href, attributes, label in re.findall(r'<a href="([^"]+)"([^>]*)>([^<]*)</a>', nav)]


@pytest.mark.parametrize("role", ROLES)
def test_each_role_sees_exactly_the_links_it_may_follow(app, role):
    released_campaign(app.extensions["sepia_store"])
    browser = browser_for(app, ROLE_USER[role])
    links = top_bar(browser.get("/admin/users" if role == "organiser" else "/", follow_redirects=True)
                    .get_data(as_text=True))
    assert [label for _, label, _ in links] == NAV[role]
    for href, label, _ in links:
        assert browser.get(href).status_code == 200, (role, label, href)
    for link in pages.nav_links(role):  # and the view itself says the role may use it
        assert role in app.view_functions[link.endpoint].allowed_roles, (role, link)


@pytest.mark.parametrize(("url", "current"), [("/votes/overview", "Votes & gold"), ("/admin/users", "Accounts"),
                                              ("/campaign/schedule", "Schedule")])
def test_the_link_of_the_page_shown_is_marked_current(app, url, current):
    links = top_bar(browser_for(app, "org").get(url, follow_redirects=True).get_data(as_text=True))
    assert [label for _, label, is_current in links if is_current] == [current]


def test_every_blueprint_is_a_page():
    app_blueprints = {blueprint.name for blueprint in pages.blueprints()}
    assert len(app_blueprints) == len(pages.PAGES)
    assert {link.endpoint.partition(".")[0] for page in pages.PAGES for link in page.links} <= app_blueprints
