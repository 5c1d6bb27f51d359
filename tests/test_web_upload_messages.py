"""What a team reads when it uploads in the browser: the warnings the API and `sepia submit` give
(FILE:LINE:COLUMN: message), refusals without a location not prefixed with the file's name and with
their times in the reader's time zone, and no upload form to use while no window is open."""
from __future__ import annotations

import html
import io
import re

from campaign_helpers import move_window, run_xml, schedule
from web_helpers import browser_for, make_topic

from sepia.web import participate

CS1 = "ACLIA2-CS-0001"
DOC = "XIN_CMN_20080101.0001"


def upload(browser, data: bytes, filename: str):
    return browser.client.post("/me/runs", data={"csrf_token": browser.token, "run": (io.BytesIO(data), filename)},
                               content_type="multipart/form-data")


def campaign(store, windows):
    make_topic(store, CS1, answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒"])
    return schedule(store, "Formal run", [CS1], windows)


def test_browser_upload_shows_the_warnings_the_api_gives(app, web_store):
    campaign(web_store, {"ir4qa": (-1, 2, None)})
    data = run_xml("ir4qa", "TEAMX-CS-CS-01-T", {CS1: [DOC, "NOPE_999", "NOPE_998"]})
    par = browser_for(app, "par")
    response = upload(par, data, "mine.xml")
    assert response.status_code == 302
    page = html.unescape(par.get(response.headers["Location"]).get_data(as_text=True))
    assert "TEAMX-CS-CS-01-T accepted, with 2 warnings." in page
    warnings = re.findall(r'<div class="flash flash-warning" role="status">([^<]*)</div>', page)
    assert re.fullmatch(r"mine\.xml:\d+:\d+: document NOPE_999 is not in the CS collection", warnings[0])
    # the same lines as the API's receipt gives, and `sepia submit` prints (FILE:warning)
    token = re.search(r'<code id="new-token" class="token">([^<]+)</code>',
                      par.post("/me/tokens", {"name": "cli"}).get_data(as_text=True)).group(1)
    api = app.test_client().post("/api/runs", data=data, content_type="application/xml",
                                 headers={"Authorization": f"Bearer {token}", "X-Filename": "mine.xml"})
    assert api.status_code == 201
    assert warnings == [f"mine.xml:{w}" for w in api.get_json()["receipt"]["warnings"]] and len(warnings) == 2
    # a clean upload shows none
    clean = upload(par, run_xml("ir4qa", "TEAMX-CS-CS-01-T", {CS1: [DOC]}), "mine.xml")
    page = par.get(clean.headers["Location"]).get_data(as_text=True)
    assert "TEAMX-CS-CS-01-T replaced." in page and 'flash-warning" role' not in page


def test_many_warnings_are_summed_up_after_the_first(app, web_store, monkeypatch):
    monkeypatch.setattr(participate, "WARNINGS_SHOWN", 2)
    campaign(web_store, {"ir4qa": (-1, 2, None)})
    par = browser_for(app, "par")
    response = upload(par, run_xml("ir4qa", "TEAMX-CS-CS-01-T", {CS1: [f"NOPE_{i}" for i in range(5)]}), "m.xml")
    page = html.unescape(par.get(response.headers["Location"]).get_data(as_text=True))
    assert "with 5 warnings" in page and page.count("is not in the CS collection") == 2
    assert "m.xml: 3 more warnings; `sepia validate m.xml` lists every one." in page


def test_a_late_upload_is_refused_in_the_readers_time_and_the_form_is_off(app, web_store):
    set_id = campaign(web_store, {"cclqa": (-1, 2, None)})
    par = browser_for(app, "par")
    assert 'name="run" accept=".xml,.jsonl,application/xml,text/xml" required>' in par.get("/me").get_data(as_text=True)
    move_window(web_store, set_id, "cclqa", -3, -1, None)
    response = upload(par, run_xml("cclqa", "TEAMX-CS-CS-01-T", {CS1: ["病毒"]}), "late.xml")
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    problem = re.search(r'<ol class="problem-list">\s*<li>(.*?)</li>', page, re.S).group(1)
    assert problem.startswith("CCLQA submissions closed at <time datetime=")  # no "late.xml:" before it
    assert "data-local>" in problem and problem.endswith("</time>: the deadline has passed.")
    # a located problem keeps the file's name, as `sepia submit` prints it
    broken = upload(par, b"<TOPIC_SET><METADATA>", "broken.xml").get_data(as_text=True)
    assert re.search(r"<li><code>broken\.xml:\d+:\d+: ", broken)
    # no window is open: the form cannot be used (the server refuses anyway)
    home = par.get("/me").get_data(as_text=True)
    assert "required disabled>" in home and 'disabled title="No submission window is open now"' in home


def test_local_times_marks_each_utc_moment_and_escapes_the_rest():
    out = str(participate.local_times("<b> opens at 2026-05-01 12:00 UTC, closes at 2026-05-02 09:30 UTC."))
    assert out.startswith("&lt;b&gt; opens at <time datetime=\"2026-05-01T12:00:00Z\" data-local>2026-05-01 12:00 UTC</time>")
    assert out.endswith('<time datetime="2026-05-02T09:30:00Z" data-local>2026-05-02 09:30 UTC</time>.')
