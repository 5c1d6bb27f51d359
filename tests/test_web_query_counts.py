"""No page issues a query per topic, nugget, vote or run: the number of SQL statements a page sends
stays the same when the campaign grows."""
from __future__ import annotations

from sqlalchemy import event

from campaign_helpers import run_xml, schedule
from web_helpers import browser_for, make_topic, vote

from sepia.campaign.submission import submit_run

DOC = "XIN_CMN_20080101.0001"
PAGES = {
    "as1": ["/votes/", "/votes/ACLIA2-CS-0001"],
    "dev": ["/topics/", "/topics/ACLIA2-CS-0001", "/nuggets/", "/nuggets/ACLIA2-CS-0001"],
    "org": ["/votes/overview", "/campaign/schedule", "/campaign/submissions", "/results/", "/admin/users"],
    "par": ["/me"],
}


def grow(app, store, first: int, count: int) -> None:
    """`count` more topics of `count` nuggets each, with votes and a run of the participant's team."""
    ids = [f"ACLIA2-CS-{i:04d}" for i in range(first, first + count)]
    for topic_id in ids:
        make_topic(store, topic_id, answers=[(DOC, 8, 29)], nuggets=[f"信息{j}" for j in range(count)])
    set_id = schedule(store, f"Set {first}", ids, {"cclqa": (-1, 1, None)})
    with store.transaction() as session:
        submit_run(session, "TEAMX", "par", "run.xml",
                   run_xml("cclqa", f"TEAMX-CS-CS-{first:02d}-T", {t: ["病毒"] * count for t in ids}), 10**6)
    browser = browser_for(app, "as2")
    for topic_id in ids:
        vote(browser, topic_id, [])
    assert set_id


def statements(app) -> dict[str, int]:
    engine = app.extensions["sepia_store"].engine
    counts = {}
    for user, pages in PAGES.items():
        browser = browser_for(app, user)
        for page in pages:
            seen = []

            def listener(*args, seen=seen, **kwargs):
                seen.append(1)

            event.listen(engine, "before_cursor_execute", listener)
            try:
                assert browser.get(page).status_code == 200, page
            finally:
                event.remove(engine, "before_cursor_execute", listener)
            counts[page] = len(seen)
    return counts


def test_page_queries_do_not_grow_with_the_campaign(app, web_store):
    grow(app, web_store, 1, 2)
    small = statements(app)
    grow(app, web_store, 10, 6)
    assert statements(app) == small
