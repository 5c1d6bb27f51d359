"""Rubric judging in the web tool (test client): the organiser sets the rubric and imports grades,
an assessor grades answers blind, the guidelines of the rubric task are acknowledged first, and the
organiser's page shows agreement, disputes and scores computed from what was saved."""
from __future__ import annotations

import io as bytes_io
import re

import pytest
from test_rubric import R1, R2, RUBRIC, _add_runs
from web_helpers import browser_for, web_app_on

from sepia.store import guidelines
from sepia.store import rubric as store_rubric
from tests.helpers import accounts


def _answers(web_store):
    with web_store.transaction() as session:
        _add_runs(session)


def test_organiser_sets_the_rubric_and_an_assessor_grades_blind(app, web_store):
    _answers(web_store)
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    assert "has not set a rubric yet" in as1.get("/rubric/judge").get_data(as_text=True)
    assert as1.get("/rubric/").status_code == 403 and as1.post("/rubric/", {"text": RUBRIC}).status_code == 403
    bad = org.post("/rubric/", {"text": RUBRIC.replace('scale = [1, 3]', 'scale = [1, 12]')}, follow_redirects=True)
    assert "The rubric was not saved: dimension &#39;fluency&#39;: scale must be" in bad.get_data(as_text=True)
    assert org.post("/rubric/", {"text": RUBRIC}).status_code == 302
    page = org.get("/rubric/").get_data(as_text=True)
    assert "version 1 by org" in page and "Everything right" in page and "Save as version 2" in page

    queue = as1.get("/rubric/judge").get_data(as_text=True)
    assert "0 graded, 6 left" in queue and "Start grading" in queue
    answer_id = int(re.search(r'href="/rubric/judge/(\d+)"', queue).group(1))
    screen = as1.get(f"/rubric/judge/{answer_id}").get_data(as_text=True)
    assert "rubric grading · 0 graded, 6 left" in screen and "And another." in screen and "TEAM" not in screen
    assert screen.count('type="radio"') == 4 + 4 + 3 and "One small error" in screen
    missing = as1.post(f"/rubric/judge/{answer_id}", {"grade:correctness": "3", "grade:completeness": "2"})
    assert missing.status_code == 422 and "missing: Fluency" in missing.get_data(as_text=True)
    assert 'value="3" required checked' in missing.get_data(as_text=True)  # what was sent is kept
    grades = {"grade:correctness": "3", "grade:completeness": "2", "grade:fluency": "1"}
    saved = as1.post(f"/rubric/judge/{answer_id}", grades)
    assert saved.status_code == 302 and saved.headers["Location"] != f"/rubric/judge/{answer_id}"  # the next one
    assert "1 graded, 5 left" in as1.get(saved.headers["Location"]).get_data(as_text=True)
    assert as1.post("/rubric/judge/999999", grades).status_code == 404  # no such answer: nothing graded

    with web_store.transaction() as session:  # new guidelines for the rubric task: acknowledged first
        guidelines.save(session, "rubric", "Grade the **whole** answer.", "org")
    refused = as1.post(f"/rubric/judge/{answer_id}", {**grades, "grade:fluency": "2"})
    assert refused.status_code == 409 and "rubric grading guidelines changed" in refused.get_data(as_text=True)
    assert as1.post(f"/rubric/judge/{answer_id}", {**grades, "grade:fluency": "2", "guidelines_read": "1"}
                    ).status_code == 302
    with web_store.transaction() as session:
        assert [(g.assessor, g.dimension, g.grade) for g in store_rubric.grades(session)] == [
            ("as1", "completeness", 2), ("as1", "correctness", 3), ("as1", "fluency", 2)]


def test_grades_import_checked_whole_and_the_report(app, web_store):
    _answers(web_store)
    org = browser_for(app, "org")
    org.post("/rubric/", {"text": RUBRIC})
    lines = ["topic_id\trun_id\tassessor\tdimension\tgrade"]
    for assessor, grades in (("as1", (0, 3)), ("as2", (3, 3))):
        for run, grade in zip((R1, R2), grades):
            lines += [f"T1\t{run}\t{assessor}\tcorrectness\t{grade}", f"T1\t{run}\t{assessor}\tcompleteness\t{grade}",
                      f"T1\t{run}\t{assessor}\tfluency\t3"]
    good = "\n".join(lines) + "\n"

    def upload(text, name="grades.tsv"):
        return org.post("/rubric/grades", {"grades": (bytes_io.BytesIO(text.encode()), name)},
                        content_type="multipart/form-data", follow_redirects=True).get_data(as_text=True)

    page = upload(good + "T9\tX\tas1\tfluency\t3\n", "bad.tsv")
    assert "bad.tsv was not imported, nothing of it stored: 1 graded answers are not in the store" in page
    page = upload(good.replace("fluency\t3", "fluency\t0", 1), "bad.tsv")
    assert "bad.tsv:4:5: grade &#39;0&#39; is not on the fluency scale 1-3" in page
    with web_store.transaction() as session:
        assert store_rubric.grades(session) == []
    page = upload(good)
    assert "12 grades imported from grades.tsv." in page
    # R1 on T1: as1 0, as2 3 on correctness and completeness -> two disputes of spread 3; R2 all 3.
    disputes = re.findall(r"<tr><td>(\w+)</td><td>T1</td><td>([\w-]+)</td><td class=\"num\">(\d)</td>", page)
    assert disputes == [("correctness", R1, "3"), ("completeness", R1, "3")]
    # Scores: R2 all top grades = 1; R1 means 1.5, 1.5, 3 -> (2 * 0.5 + 0.5 + 1) / 4 = 0.625.
    assert re.search(rf"<td>{R2}</td><td class=\"num\">1</td><td class=\"num\">1.000</td>", page)
    assert re.search(rf"<td>{R1}</td><td class=\"num\">1</td><td class=\"num\">0.625</td>", page)
    exported = org.get("/rubric/grades.tsv")
    with web_store.transaction() as session:
        assert exported.get_data(as_text=True).splitlines()[1:] == [
            "\t".join(map(str, (g.topic_id, g.run_id, g.assessor, g.dimension, g.grade)))
            for g in sorted(store_rubric.grades(session))]


def test_a_grades_file_over_the_limit_gets_the_page_message_not_the_servers_413(app, web_store):
    _answers(web_store)
    app.config["MAX_CONTENT_LENGTH"] = 80 * 1024  # files up to 80 KiB less the form's 64 KiB margin
    org = browser_for(app, "org")
    org.post("/rubric/", {"text": RUBRIC})
    header = "topic_id\trun_id\tassessor\tdimension\tgrade\n"
    row = f"T1\t{R1}\tas1\tfluency\t3\n"

    def upload(text):
        return org.post("/rubric/grades", {"grades": (bytes_io.BytesIO(text.encode()), "big.tsv")},
                        content_type="multipart/form-data", follow_redirects=True)

    too_large = upload(header + row * (16 * 1024 // len(row) + 1))  # 16,384 + a row: one row too many
    assert too_large.status_code == 200
    assert "big.tsv was not imported, nothing of it stored: the file is larger than the limit of 16,384 bytes." in \
        too_large.get_data(as_text=True)
    fits = upload(header + row)
    assert "1 grades imported from big.tsv." in fits.get_data(as_text=True)


@pytest.fixture
def web(store_url):
    """The web tool on a fresh store of each backend holding the answers (the access rule on PostgreSQL too)."""
    application = web_app_on(store_url, _answers)
    yield application
    application.extensions["sepia_store"].dispose()


def test_the_organiser_shares_the_answers_out_and_each_assessor_grades_only_theirs(web):
    store = web.extensions["sepia_store"]  # 3 topics x 2 runs
    org, as1, as2 = browser_for(web, "org"), browser_for(web, "as1"), browser_for(web, "as2")
    org.post("/rubric/", {"text": RUBRIC})
    assert "every assessor grades every answer" in org.get("/rubric/").get_data(as_text=True)
    assert "0 graded, 6 left" in as2.get("/rubric/judge").get_data(as_text=True)
    assert "0 graded, 6 left" in org.get("/rubric/judge").get_data(as_text=True)  # organisers grade too
    with store.transaction() as session:
        answers = {store_rubric.answer(session, i, "org").topic_id: i
                   for i in store_rubric.queue(session, "org", store_rubric.require(session))[0]}
    # Not shared out yet: anyone with the role opens any answer (saving, tests above).
    assert org.get(f"/rubric/judge/{answers['T1']}").status_code == as2.get(f"/rubric/judge/{answers['T1']}"
                                                                              ).status_code == 200
    refused = org.post("/rubric/assign", {"assessors": ["as1"], "overlap": "50"}, follow_redirects=True)
    assert "The answers were not shared out: overlap needs at least two assessors." in refused.get_data(as_text=True)
    with store.transaction() as session:
        accounts(session, inactive=("gone",))
    refused = org.post("/rubric/assign", {"assessors": ["as1", "asl", "org", "gone"], "overlap": "0"},
                       follow_redirects=True)
    assert "The answers were not shared out: not active assessors: asl, org, gone." in refused.get_data(as_text=True)
    with store.transaction() as session:
        assert not store_rubric.shared_out(session)
    assert as1.post("/rubric/assign", {"assessors": ["as1", "as2"], "overlap": "0"}).status_code == 403
    done = org.post("/rubric/assign", {"assessors": ["as1", "as2"], "overlap": "0"}, follow_redirects=True)
    # T1 and T3 to as1 (turns 0 and 2), T2 to as2; nothing twice
    assert "6 answers assigned to as1, as2." in done.get_data(as_text=True)
    assert "answers assigned: as1 4, as2 2" in done.get_data(as_text=True)
    assert "0 graded, 4 left" in as1.get("/rubric/judge").get_data(as_text=True)
    queue = as2.get("/rubric/judge").get_data(as_text=True)
    assert "0 graded, 2 left" in queue
    answer_id = int(re.search(r'href="/rubric/judge/(\d+)"', queue).group(1))
    assert "<h1>T2 " in as2.get(f"/rubric/judge/{answer_id}").get_data(as_text=True)

    # as2's answer is not in as1's queue: refused as a pool item assigned to another is, nothing stored.
    grades = {"grade:correctness": "3", "grade:completeness": "2", "grade:fluency": "1"}
    for response in (as1.get(f"/rubric/judge/{answer_id}"), as1.post(f"/rubric/judge/{answer_id}", grades)):
        assert response.status_code == 404 and "This answer is not in your queue." in response.get_data(as_text=True)
    # Organisers judge no pool item, and grade no answer once they are shared out: the judging screens' 403.
    for response in (org.get(f"/rubric/judge/{answer_id}"), org.post(f"/rubric/judge/{answer_id}", grades)):
        assert response.status_code == 403 and "Your role does not give access" in response.get_data(as_text=True)
    with store.transaction() as session:
        assert store_rubric.grades(session) == []
    assert as2.post(f"/rubric/judge/{answer_id}", grades).status_code == 302  # their own: saved
    with store.transaction() as session:
        assert [(g.topic_id, g.assessor) for g in store_rubric.grades(session)] == [("T2", "as2")] * 3

    # The organiser's queue: not an empty one of their own but the assessors', as the Pools page shows.
    page = org.get("/rubric/judge").get_data(as_text=True)
    assert "1 of 6 assigned answers graded" in page and "Start grading" not in page
    assert re.findall(r"<tr><td>(\w+)</td><td class=\"num\">(\d)</td><td class=\"num\">(\d)</td>", page) == [
        ("as1", "0", "4"), ("as2", "1", "2")]
    assert "Grading progress" in org.get("/rubric/").get_data(as_text=True)
