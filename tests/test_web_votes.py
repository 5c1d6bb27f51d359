"""Pyramid voting: votes cast alone and once, progress, the organiser's matrix with the spec's
weights and Fleiss' kappa (checked against hand calculations), reopening, and the gold export."""
from __future__ import annotations

import re

from click.testing import CliRunner
from lxml import etree

from web_helpers import browser_for, make_topic, vote

from sepia.cli import main
from sepia.formats.read import read_bytes
from sepia.store.models import Nugget, Topic, User, Vote

DOC = "XIN_CMN_20080101.0001"
JA_DOC = "YOMI_20080101.0001"


def nugget_ids(store, topic_id):
    with store.transaction() as session:
        return [n.id for n in session.query(Nugget).filter_by(topic_id=topic_id).order_by(Nugget.position)]


def votes_of(store, assessor):
    with store.transaction() as session:
        return sorted((v.nugget_id, v.vital) for v in session.query(Vote).filter_by(assessor=assessor))


def three_nuggets(store):
    make_topic(store, "ACLIA2-CS-0001", answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒", "禽类传染病", "新华社"])
    return nugget_ids(store, "ACLIA2-CS-0001")


def test_assessor_votes_once_and_sees_progress(app, web_store):
    n1, n2, n3 = three_nuggets(web_store)
    make_topic(web_store, "ACLIA2-JA-0001", answers=[(JA_DOC, 4, 16)], nuggets=["辞任を表明"])
    as1 = browser_for(app, "as1")
    page = as1.get("/votes/").get_data(as_text=True)
    assert "0 of 2 topics submitted" in page
    response = vote(as1, "ACLIA2-CS-0001", [str(n1), str(n2)])
    assert response.status_code == 302
    assert votes_of(web_store, "as1") == [(n1, True), (n2, True), (n3, False)]
    assert "1 of 2 topics submitted" in as1.get("/votes/").get_data(as_text=True)
    # A second submission cannot change votes already cast.
    vote(as1, "ACLIA2-CS-0001", [str(n3)])
    assert votes_of(web_store, "as1") == [(n1, True), (n2, True), (n3, False)]
    assert "already in; nothing changed" in as1.get("/votes/ACLIA2-CS-0001").get_data(as_text=True)


def test_no_one_sees_other_votes_before_submitting(app, web_store):
    n1, n2, n3 = three_nuggets(web_store)
    vote(browser_for(app, "as1"), "ACLIA2-CS-0001", [str(n1)])
    as2 = browser_for(app, "as2")
    before = as2.get("/votes/ACLIA2-CS-0001").get_data(as_text=True)
    assert 'class="tally"' not in before and "checked" not in before
    vote(as2, "ACLIA2-CS-0001", [str(n1), str(n3)])
    after = as2.get("/votes/ACLIA2-CS-0001").get_data(as_text=True)
    tallies = re.findall(r'<span class="tally"[^>]*>(\d+) / (\d+)</span>', after)
    assert tallies == [("2", "2"), ("0", "2"), ("1", "2")]


def test_new_nugget_after_submission_is_voted_on_alone(app, web_store):
    n1, n2, n3 = three_nuggets(web_store)
    as1 = browser_for(app, "as1")
    vote(as1, "ACLIA2-CS-0001", [str(n1)])
    dev = browser_for(app, "dev")
    answer = re.search(r'name="answer_ids" value="(\d+)"', dev.get("/nuggets/ACLIA2-CS-0001").get_data(as_text=True))
    dev.post("/nuggets/ACLIA2-CS-0001", {"text": "病毒可以传染给人", "answer_ids": [answer.group(1)]})
    n4 = nugget_ids(web_store, "ACLIA2-CS-0001")[3]
    assert "new nuggets to vote on" in as1.get("/votes/").get_data(as_text=True)
    vote(as1, "ACLIA2-CS-0001", [str(n2), str(n4)])  # n2 is fixed already
    assert votes_of(web_store, "as1") == [(n1, True), (n2, False), (n3, False), (n4, True)]


def test_overview_shows_matrix_weights_and_kappa(app, web_store):
    n1, n2, n3 = three_nuggets(web_store)
    vote(browser_for(app, "as1"), "ACLIA2-CS-0001", [str(n1), str(n2)])
    vote(browser_for(app, "as2"), "ACLIA2-CS-0001", [str(n1)])
    page = browser_for(app, "org").get("/votes/overview").get_data(as_text=True)
    rows = re.findall(r'<td class="num">(\d)/(\d)</td>\s*<td class="num">([\d.]+)</td><td class="num">([\d.]+)</td>'
                      r'<td class="num">([\d.]+)</td>', page)
    # v = 2, 1, 0 of 2 voters. pyramid v/max v: 1, .5, 0; proportion v/voters: 1, .5, 0;
    # binary (vital for a strict majority, 2v > voters): 1, 0, 0.
    assert rows == [("2", "2", "1.00", "1.00", "1.00"), ("1", "2", "0.50", "0.50", "0.00"),
                    ("0", "2", "0.00", "0.00", "0.00")]
    # Fleiss: units [0,2], [1,1], [2,0]; P_i = 1, 0, 1 so P = 2/3; shares .5/.5 so Pe = .5;
    # kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3.
    assert '<td class="num kappa">0.333</td>' in page
    matrix = re.findall(r'<td class="vote-cell">(.)</td>', page)
    assert matrix == ["✓", "✓", "✓", "·", "·", "·"]


def test_kappa_is_per_language(app, web_store):
    n1, n2, n3 = three_nuggets(web_store)
    make_topic(web_store, "ACLIA2-JA-0001", answers=[(JA_DOC, 4, 16)], nuggets=["辞任を表明", "東京発"])
    j1, j2 = nugget_ids(web_store, "ACLIA2-JA-0001")
    for assessor in ("as1", "as2"):
        browser = browser_for(app, assessor)
        vote(browser, "ACLIA2-CS-0001", [str(n1)])
        vote(browser, "ACLIA2-JA-0001", [str(j1)] if assessor == "as1" else [str(j2)])
    page = browser_for(app, "org").get("/votes/overview").get_data(as_text=True)
    kappas = re.findall(r'<tr><td>(\w\w)</td>\s*<td class="num kappa">([^<]+)</td>', page)
    # CS: perfect agreement, 1 vital of 3 -> kappa 1. JA: units [1,1], [1,1] -> P = 0, Pe = .5 -> -1.
    assert kappas == [("CS", "1.000"), ("JA", "-1.000")]
    only_ja = browser_for(app, "org").get("/votes/overview?lang=JA").get_data(as_text=True)
    assert "ACLIA2-CS-0001" not in only_ja and "ACLIA2-JA-0001" in only_ja


def test_organiser_reopens_an_assessors_votes(app, web_store):
    n1, n2, n3 = three_nuggets(web_store)
    vote(browser_for(app, "as1"), "ACLIA2-CS-0001", [str(n1)])
    org = browser_for(app, "org")
    assert org.post("/votes/ACLIA2-CS-0001/reopen", {"assessor": "as1"}).status_code == 302
    assert votes_of(web_store, "as1") == []
    vote(browser_for(app, "as1"), "ACLIA2-CS-0001", [str(n3)])
    assert votes_of(web_store, "as1") == [(n1, False), (n2, False), (n3, True)]


def test_topic_without_nuggets_cannot_be_voted(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", answers=[(DOC, 8, 29)])
    assert browser_for(app, "as1").get("/votes/ACLIA2-CS-0001").status_code == 404


def test_gold_export_page_and_command_agree(app, web_store, tmp_path):
    n1, n2, n3 = three_nuggets(web_store)
    make_topic(web_store, "ACLIA2-JA-0001", answers=[(JA_DOC, 4, 16)], nuggets=["辞任を表明"])
    vote(browser_for(app, "as1"), "ACLIA2-CS-0001", [str(n1), str(n2)])
    vote(browser_for(app, "as2"), "ACLIA2-CS-0001", [str(n1)])
    response = browser_for(app, "org").get("/votes/gold.xml?lang=CS")
    assert response.status_code == 200 and response.mimetype == "application/xml"
    assert 'filename="gold-CS.xml"' in response.headers["Content-Disposition"]
    gold = read_bytes(response.data, "gold")  # valid against the schema and the semantic checks
    assert [t.topic_id for t in gold.topics] == ["ACLIA2-CS-0001"]
    nuggets = gold.topics[0].nuggets
    assert [(n.nugget_id, n.vital_votes, n.voters, n.weight) for n in nuggets] == [
        ("N001", 2, 2, 1.0), ("N002", 1, 2, 0.5), ("N003", 0, 2, 0.0)]
    assert nuggets[0].sources == [DOC] and ("as2", True) in nuggets[0].votes
    # The command exports the same from the same store.
    app_db = app.config["DATABASE_URL"]
    out = tmp_path / "cli.xml"
    result = CliRunner(env={"SEPIA_DATABASE_URL": app_db}).invoke(main, ["gold", "export", "--lang", "cs",
                                                                         "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert etree.tostring(etree.fromstring(out.read_bytes()), method="c14n") == \
        etree.tostring(etree.fromstring(response.data), method="c14n")
    every = CliRunner(env={"SEPIA_DATABASE_URL": app_db}).invoke(main, ["gold", "export"])
    assert b"ACLIA2-JA-0001" in every.stdout_bytes and b"ACLIA2-CS-0001" in every.stdout_bytes


def test_next_topic_stays_in_the_language_just_voted_on(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒"])
    make_topic(web_store, "ACLIA2-JA-0001", answers=[(JA_DOC, 4, 16)], nuggets=["辞任を表明"])
    make_topic(web_store, "ACLIA2-JA-0002", answers=[(JA_DOC, 4, 16)], nuggets=["辞任"])
    as1 = browser_for(app, "as1")
    page = as1.get("/votes/ACLIA2-JA-0001").get_data(as_text=True)
    stamp = re.search(r'name="shown" value="([^"]*)"', page).group(1)
    response = as1.post("/votes/ACLIA2-JA-0001", {"shown": stamp, "next": "1"})
    assert response.headers["Location"].endswith("/votes/ACLIA2-JA-0002")  # not CS-0001, first in the list


def test_the_overview_pages_and_filters_by_language_and_status(app, web_store, monkeypatch):
    from sepia.web import votes as votes_view

    monkeypatch.setattr(votes_view, "MATRICES_PER_PAGE", 2)
    for i in range(1, 6):
        make_topic(web_store, f"ACLIA2-CS-{i:04d}", answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒"])
    make_topic(web_store, "ACLIA2-JA-0001", answers=[(JA_DOC, 4, 16)], nuggets=["辞任を表明"])
    for assessor in ("as1", "as2"):
        vote(browser_for(app, assessor), "ACLIA2-CS-0002", [])
    org = browser_for(app, "org")
    matrices = lambda page: re.findall(r'id="matrix-([A-Z0-9-]+)"', page)  # noqa: E731
    first = org.get("/votes/overview").get_data(as_text=True)
    assert matrices(first) == ["ACLIA2-CS-0001", "ACLIA2-CS-0002"] and "6 topics · page 1 of 3" in first
    assert matrices(org.get("/votes/overview?page=3").get_data(as_text=True)) == ["ACLIA2-CS-0005", "ACLIA2-JA-0001"]
    assert matrices(org.get("/votes/overview?lang=JA").get_data(as_text=True)) == ["ACLIA2-JA-0001"]
    assert matrices(org.get("/votes/overview?status=voted").get_data(as_text=True)) == ["ACLIA2-CS-0002"]
    waiting = org.get("/votes/overview?status=needs+votes&lang=CS").get_data(as_text=True)
    assert matrices(waiting) == ["ACLIA2-CS-0001", "ACLIA2-CS-0003"] and "4 topics · page 1 of 2" in waiting
    assert org.get("/votes/overview?status=bogus").status_code == 404


def test_an_assessor_queue_holds_the_languages_of_the_account(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒"])
    make_topic(web_store, "ACLIA2-JA-0001", answers=[(JA_DOC, 4, 16)], nuggets=["辞任を表明"])
    org = browser_for(app, "org")
    with web_store.transaction() as session:
        as1 = session.query(User).filter_by(username="as1").one().id
    bad = org.post(f"/admin/users/{as1}", {"role": "assessor", "active": "1", "languages": "JA XX"})
    assert bad.status_code == 422 and "Unknown language XX" in bad.get_data(as_text=True)
    assert org.post(f"/admin/users/{as1}", {"role": "assessor", "active": "1", "languages": "ja"}).status_code == 302
    page = browser_for(app, "as1").get("/votes/").get_data(as_text=True)
    assert "ACLIA2-JA-0001" in page and "ACLIA2-CS-0001" not in page
    assert "ACLIA2-CS-0001" in browser_for(app, "as2").get("/votes/").get_data(as_text=True)  # no languages: all


def test_organisers_delete_an_unused_topic_and_retire_a_used_one(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒"])
    make_topic(web_store, "ACLIA2-CS-0002", completed=False)
    vote(browser_for(app, "as1"), "ACLIA2-CS-0001", [])
    org = browser_for(app, "org")
    assert "Delete this topic" in org.get("/topics/ACLIA2-CS-0002").get_data(as_text=True)
    assert "Retire this topic" in org.get("/topics/ACLIA2-CS-0001").get_data(as_text=True)
    assert "this topic" not in browser_for(app, "dev").get("/topics/ACLIA2-CS-0001").get_data(as_text=True)
    assert org.post("/topics/ACLIA2-CS-0002/remove").status_code == 302
    assert org.post("/topics/ACLIA2-CS-0001/remove").status_code == 302
    with web_store.transaction() as session:
        assert session.get(Topic, "ACLIA2-CS-0002") is None
        retired = session.get(Topic, "ACLIA2-CS-0001")
        assert retired.retired and len(retired.nuggets) == 1 and len(retired.nuggets[0].votes) == 1
    org.get("/topics/")  # the page that shows the message
    assert 'href="/topics/ACLIA2-CS-0001"' not in org.get("/topics/").get_data(as_text=True)
    assert "ACLIA2-CS-0001" not in browser_for(app, "as2").get("/votes/").get_data(as_text=True)
