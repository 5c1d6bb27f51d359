"""Nugget extraction: only completed topics, nuggets linked to answer texts, labels, edit, delete."""
from __future__ import annotations

from web_helpers import browser_for, make_topic, nugget_version, vote

from sepia.store.models import Nugget, Topic

DOC = "XIN_CMN_20080101.0001"


def nuggets_of(store, topic_id):
    with store.transaction() as session:
        topic = session.get(Topic, topic_id)
        return [(n.label, n.text, sorted(a.id for a in n.answer_texts), len(n.votes)) for n in topic.nuggets]


def answer_ids(store, topic_id):
    with store.transaction() as session:
        return [a.id for a in session.get(Topic, topic_id).answer_texts]


def test_only_completed_topics_are_listed_and_open(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=True, answers=[(DOC, 8, 29)])
    make_topic(web_store, "ACLIA2-CS-0002", completed=False, answers=[(DOC, 8, 29)])
    dev = browser_for(app, "dev")
    listing = dev.get("/nuggets/").get_data(as_text=True)
    assert "ACLIA2-CS-0001" in listing and "ACLIA2-CS-0002" not in listing
    response = dev.get("/nuggets/ACLIA2-CS-0002")
    assert response.status_code == 409 and "still in development" in response.get_data(as_text=True)
    page = dev.get("/nuggets/ACLIA2-CS-0001").get_data(as_text=True)
    assert "禽流感是一种由甲型流感病毒引起的禽类传染病" in page and "什么是禽流感？" in page


def test_add_edit_and_delete_nuggets(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=True, answers=[(DOC, 8, 29), (DOC, 33, 44)])
    first, second = answer_ids(web_store, "ACLIA2-CS-0001")
    dev = browser_for(app, "dev")
    url = "/nuggets/ACLIA2-CS-0001"
    assert dev.post(url, {"text": " 由甲型流感病毒\n引起 ", "answer_ids": [str(first)]}).status_code == 302
    assert dev.post(url, {"text": "病毒可以传染给人", "answer_ids": [str(first), str(second)]}).status_code == 302
    assert nuggets_of(web_store, "ACLIA2-CS-0001") == [
        ("N001", "由甲型流感病毒 引起", [first], 0),
        ("N002", "病毒可以传染给人", sorted([first, second]), 0)]
    page = dev.get(url).get_data(as_text=True)
    assert "10 chars" in page and "8 chars" in page  # the length of each nugget, in characters
    with web_store.transaction() as session:
        n1 = session.query(Nugget).filter_by(label="N001").one().id
    version = nugget_version(dev, "ACLIA2-CS-0001", n1)
    assert dev.post(f"{url}/{n1}", {"text": "甲型流感病毒", "answer_ids": [str(second)],
                                    "version": version}).status_code == 302
    assert nuggets_of(web_store, "ACLIA2-CS-0001")[0] == ("N001", "甲型流感病毒", [second], 0)
    version = nugget_version(dev, "ACLIA2-CS-0001", n1)
    assert dev.post(f"{url}/{n1}/delete", {"version": version}).status_code == 302
    # A new nugget takes the next free label, never one in use.
    dev.post(url, {"text": "禽类传染病", "answer_ids": [str(first)]})
    assert [n[0] for n in nuggets_of(web_store, "ACLIA2-CS-0001")] == ["N002", "N003"]


def test_nugget_errors_are_explained_and_nothing_is_saved(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=True, answers=[(DOC, 8, 29)])
    make_topic(web_store, "ACLIA2-CS-0002", completed=True, answers=[(DOC, 33, 44)])
    other = answer_ids(web_store, "ACLIA2-CS-0002")[0]
    mine = answer_ids(web_store, "ACLIA2-CS-0001")[0]
    dev = browser_for(app, "dev")
    url = "/nuggets/ACLIA2-CS-0001"
    for form, message in (({"text": "  ", "answer_ids": [str(mine)]}, "needs a text"),
                          ({"text": "病毒"}, "at least one answer text"),
                          ({"text": "病毒", "answer_ids": [str(other)]}, "no longer belongs"),
                          ({"text": "病毒", "answer_ids": ["x"]}, "is not a valid answer text"),
                          ({"text": "病毒", "answer_ids": ["²"]}, "is not a valid answer text"),
                          ({"text": "病毒", "answer_ids": ["9" * 5000]}, "is not a valid answer text"),
                          ({"text": "病" * 1001, "answer_ids": [str(mine)]}, "at most 1,000 are allowed")):
        response = dev.post(url, form)
        assert response.status_code == 422 and message in response.get_data(as_text=True), form
    assert nuggets_of(web_store, "ACLIA2-CS-0001") == []
    assert dev.post(f"{url}/999").status_code == 404


def test_deleting_a_voted_nugget_says_so(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=True, answers=[(DOC, 8, 29)], nuggets=["病毒"])
    vote(browser_for(app, "as1"), "ACLIA2-CS-0001", [])
    with web_store.transaction() as session:
        nugget_id = session.query(Nugget).one().id
    dev = browser_for(app, "dev")
    dev.post(f"/nuggets/ACLIA2-CS-0001/{nugget_id}/delete",
             {"version": nugget_version(dev, "ACLIA2-CS-0001", nugget_id)})
    assert "with its 1 vote(s)" in dev.get("/nuggets/ACLIA2-CS-0001").get_data(as_text=True)
