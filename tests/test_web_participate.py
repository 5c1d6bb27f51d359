"""The participants' side: submission in the browser and over the API, receipts, replacement before
the deadline and refusal after it, the team's limit of runs, tokens, and what may be downloaded when."""
from __future__ import annotations

import hashlib
import io
import re
import zipfile

from sqlalchemy import event, select

from campaign_helpers import move_window, run_xml, schedule
from web_helpers import browser_for, make_topic

from sepia.campaign.submission import import_run_file
from sepia.formats.read import read_bytes
from sepia.store.models import ApiToken, Response, Run, RunTopic, Submission

CS1, CS2, JA1 = "ACLIA2-CS-0001", "ACLIA2-CS-0002", "ACLIA2-JA-0001"
DOC = "XIN_CMN_20080101.0001"
LONG = "禽流感𠀀" * 5000  # 20,000 characters, a quarter of them outside the BMP


def campaign(store, **windows):
    for topic_id in (CS1, CS2):
        make_topic(store, topic_id, answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒"])
    return schedule(store, "Formal run", [CS1, CS2], windows or {"cclqa": (-1, 2, None)})


def upload(browser, data: bytes, filename="run.xml"):
    return browser.client.post("/me/runs", data={"csrf_token": browser.token, "run": (io.BytesIO(data), filename)},
                               content_type="multipart/form-data")


def submissions(store):
    with store.transaction() as session:
        return [(s.run_id, s.kind, s.superseded_at is None, s.sha256)
                for s in session.scalars(select(Submission).order_by(Submission.id))]


def stored_texts(store, run_id):
    with store.transaction() as session:
        return session.scalars(select(Response.text).join(RunTopic).join(Run).where(Run.run_id == run_id)
                               .order_by(RunTopic.position, Response.rank)).all()


def test_a_run_is_accepted_with_a_receipt_and_stored_exactly(app, web_store):
    campaign(web_store)
    data = run_xml("cclqa", "TEAMX-CS-CS-01-T", {CS1: [LONG, "病毒 可以\n传染"], CS2: ["𠮷野家"]})
    par = browser_for(app, "par")
    response = upload(par, data, "TEAMX-CS-CS-01-T.xml")
    assert response.status_code == 302
    receipt = par.get(response.headers["Location"]).get_data(as_text=True)
    digest = hashlib.sha256(data).hexdigest()
    assert digest in receipt and "TEAMX-CS-CS-01-T" in receipt
    assert re.search(r"<dt>Topics</dt><dd>2</dd>", receipt) and re.search(r"<dt>Responses</dt><dd>3</dd>", receipt)
    assert stored_texts(web_store, "TEAMX-CS-CS-01-T") == [LONG, "病毒 可以\n传染", "𠮷野家"]
    with web_store.transaction() as session:
        stored = session.scalar(select(Submission))
        assert stored.content == data and stored.team == "TEAMX" and stored.submitted_by == "par"
        run = session.scalar(select(Run))
        assert (run.source_lang, run.target_lang, run.priority) == ("CS", "CS", 1)
    file = par.get(re.search(r'href="(/me/submissions/\d+/file)"', receipt).group(1))
    assert file.data == data


def test_a_broken_file_shows_every_problem_and_stores_nothing(app, web_store):
    campaign(web_store)
    broken = run_xml("cclqa", "TEAMX-CS-CS-01-T", {CS1: ["a", "b"]}).replace(b'RANK="2"', b'RANK="1"')
    broken = broken.replace(b"<DESCRIPTION>", b"<DESCRIPTION BOGUS='1'>")
    response = upload(browser_for(app, "par"), broken, "broken.xml")
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "was not accepted; nothing was stored" in page
    problems = re.findall(r"<li><code>(broken\.xml:\d+:\d+: [^<]+)</code></li>", page)
    assert len(problems) >= 2 and any("repeated" in p for p in problems) and any("BOGUS" in p for p in problems)
    assert submissions(web_store) == [] and stored_texts(web_store, "TEAMX-CS-CS-01-T") == []


def test_the_team_window_and_topics_are_checked(app, web_store):
    set_id = campaign(web_store, cclqa=(-1, 2, None))
    make_topic(web_store, JA1, nuggets=["辞任"])  # in no topic set
    par = browser_for(app, "par")
    cases = [
        (run_xml("cclqa", "TEAMY-CS-CS-01-T", {CS1: ["x"]}), "names team TEAMY; you submit for team TEAMX"),
        (run_xml("cclqa", "TEAMX-CS-CS-01-T", {"ACLIA2-CS-0099": ["x"]}), "Not topics of this campaign: ACLIA2-CS-0099"),
        (run_xml("cclqa", "TEAMX-JA-JA-01-T", {JA1: ["x"]}), "topics of no topic set"),
        (run_xml("ir4qa", "TEAMX-CS-CS-01-T", {CS1: [DOC]}), "takes no IR4QA runs"),
    ]
    for data, message in cases:
        response = upload(par, data)
        assert response.status_code == 422 and message in response.get_data(as_text=True), message
    move_window(web_store, set_id, "cclqa", 1, 2, None)
    response = upload(par, run_xml("cclqa", "TEAMX-CS-CS-01-T", {CS1: ["x"]}))
    assert response.status_code == 422 and "CCLQA submissions open at" in response.get_data(as_text=True)
    assert submissions(web_store) == []


def test_a_run_over_the_request_limit_gets_the_page_message_not_the_servers_413(app, web_store):
    from sepia.services.logins import digest
    from sepia.store.models import User

    campaign(web_store)
    with web_store.transaction() as session:
        par = session.scalar(select(User).where(User.username == "par"))
        session.add(ApiToken(user_id=par.id, name="x", token_hash=digest("sepia_par")))
    app.config["MAX_CONTENT_LENGTH"] = 80 * 1024  # below MAX_RUN_BYTES: runs up to 80 KiB less the 64 KiB margin
    data = run_xml("cclqa", "TEAMX-CS-CS-01-T", {CS1: ["病毒" * 3000]})
    assert 16 * 1024 < len(data) < 80 * 1024
    response = upload(browser_for(app, "par"), data)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "The file is larger than the limit of 16,384 bytes." in page
    assert "16,385" not in page  # what was read of it (one byte past the limit), not its size
    api = app.test_client().post("/api/runs", data=data, headers={"Authorization": "Bearer sepia_par"},
                                 content_type="application/xml")
    assert api.status_code == 422
    assert api.get_json()["problems"] == ["The file is larger than the limit of 16,384 bytes."]
    assert submissions(web_store) == []


def test_a_run_id_of_only_spaces_is_refused(app, web_store):
    campaign(web_store)
    response = upload(browser_for(app, "par"), run_xml("cclqa", " ", {CS1: ["x"]}))
    assert response.status_code == 422 and "is not of the form TEAM-SRC-TGT-NN-X" in response.get_data(as_text=True)
    assert submissions(web_store) == []


def test_a_run_is_replaced_before_the_deadline_and_refused_after_it(app, web_store):
    set_id = campaign(web_store)
    par = browser_for(app, "par")
    first = run_xml("cclqa", "TEAMX-CS-CS-01-T", {CS1: ["第一版"]})
    second = run_xml("cclqa", "TEAMX-CS-CS-01-T", {CS1: ["第二版"], CS2: ["又一个"]})
    assert upload(par, first).status_code == 302
    loaded = []  # a replacement supersedes the earlier file without reading it (up to 16 MB)

    def on_load(target, _context):
        loaded.append(target.id)

    event.listen(Submission, "load", on_load)
    try:
        response = upload(par, second)
    finally:
        event.remove(Submission, "load", on_load)
    assert response.status_code == 302 and loaded == [] and "replaced" in par.get("/me").get_data(as_text=True)
    assert [(r, current) for r, _, current, _ in submissions(web_store)] == [
        ("TEAMX-CS-CS-01-T", False), ("TEAMX-CS-CS-01-T", True)]
    assert stored_texts(web_store, "TEAMX-CS-CS-01-T") == ["第二版", "又一个"]
    with web_store.transaction() as session:  # the superseded file is kept byte for byte
        assert session.scalars(select(Submission.content).order_by(Submission.id)).all() == [first, second]
    move_window(web_store, set_id, "cclqa", -3, -1, None)
    response = upload(par, first)
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "closed at" in page and "the deadline has passed" in page
    assert stored_texts(web_store, "TEAMX-CS-CS-01-T") == ["第二版", "又一个"]


def test_a_team_submits_at_most_the_limit_of_runs_per_task_and_pair(app, web_store):
    for topic_id in (CS1, JA1):
        make_topic(web_store, topic_id, nuggets=["x"])
    schedule(web_store, "Formal run", [CS1, JA1], {"cclqa": (-1, 2, None)}, max_runs=2)
    par = browser_for(app, "par")
    for number in (1, 2):
        assert upload(par, run_xml("cclqa", f"TEAMX-CS-CS-0{number}-T", {CS1: ["x"]})).status_code == 302
    response = upload(par, run_xml("cclqa", "TEAMX-CS-CS-03-T", {CS1: ["x"]}))
    page = response.get_data(as_text=True)
    assert response.status_code == 422 and "has 2 CCLQA runs for CS-CS already" in page
    assert upload(par, run_xml("cclqa", "TEAMX-CS-CS-02-T", {CS1: ["y"]})).status_code == 302  # a replacement
    assert upload(par, run_xml("cclqa", "TEAMX-EN-CS-01-T", {CS1: ["x"]})).status_code == 302  # another pair
    assert upload(par, run_xml("cclqa", "TEAMX-JA-JA-01-T", {JA1: ["x"]})).status_code == 302


def test_submission_over_the_api_with_a_personal_token(app, web_store):
    campaign(web_store)
    par = browser_for(app, "par")
    page = par.post("/me/tokens", {"name": "laptop"}).get_data(as_text=True)
    token = re.search(r'<code id="new-token" class="token">([^<]+)</code>', page).group(1)
    assert token not in par.get("/me").get_data(as_text=True)  # shown once
    with web_store.transaction() as session:
        stored = session.scalar(select(ApiToken))
        assert stored.token_hash == hashlib.sha256(token.encode()).hexdigest() and token not in stored.token_hash
    data = run_xml("cclqa", "TEAMX-CS-CS-01-T", {CS1: [LONG]})
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}", "X-Filename": "mine.xml"}
    response = client.post("/api/runs", data=data, headers=headers, content_type="application/xml")
    assert response.status_code == 201
    receipt = response.get_json()["receipt"]
    assert receipt["sha256"] == hashlib.sha256(data).hexdigest() and receipt["responses"] == 1
    assert receipt["filename"] == "mine.xml" and stored_texts(web_store, "TEAMX-CS-CS-01-T") == [LONG]
    bad = client.post("/api/runs", data=b"<TOPIC_SET>", headers=headers, content_type="application/xml")
    assert bad.status_code == 422 and re.match(r"\d+:\d+: not well-formed", bad.get_json()["problems"][0])
    token_id = re.search(r'action="/me/tokens/(\d+)/revoke"', par.get("/me").get_data(as_text=True)).group(1)
    assert par.post(f"/me/tokens/{token_id}/revoke").status_code == 302
    assert client.post("/api/runs", data=data, headers=headers).status_code == 401
    assert client.post("/api/runs", data=data, headers={"Authorization": "Bearer nonsense"}).status_code == 401


def test_a_token_of_another_role_is_refused(app, web_store):
    from sepia.store.models import User
    from sepia.services.logins import digest

    with web_store.transaction() as session:
        dev = session.scalar(select(User).where(User.username == "dev"))
        session.add(ApiToken(user_id=dev.id, name="x", token_hash=digest("sepia_dev")))
    response = app.test_client().post("/api/runs", data=b"<x/>", headers={"Authorization": "Bearer sepia_dev"})
    assert response.status_code == 403


def test_downloads_follow_the_schedule(app, web_store):
    set_id = campaign(web_store, qa=(-3, -2, None), ir4qa=(-1, 2, None), cclqa=(3, 4, 5))
    par, par2, org = browser_for(app, "par"), browser_for(app, "par2"), browser_for(app, "org")
    move_window(web_store, set_id, "qa", -1, 1, None)  # QA open: both teams submit
    qa_x = run_xml("qa", "TEAMX-CS-CS-01-T", {CS1: ["DEFINITION"]})
    qa_y = run_xml("qa", "TEAMY-CS-CS-01-T", {CS1: ["PERSON"]})
    assert upload(par, qa_x).status_code == 302 and upload(par2, qa_y).status_code == 302
    url = f"/downloads/runs/{set_id}/qa.zip"
    assert par.get(url).status_code == 404 and org.get(url).status_code == 200  # still open
    with web_store.transaction() as session:
        theirs = session.scalar(select(Submission.id).where(Submission.team == "TEAMY"))
    assert par.get(f"/downloads/runs/file/{theirs}").status_code == 404
    move_window(web_store, set_id, "qa", -3, -2, None)
    bundle = zipfile.ZipFile(io.BytesIO(par2.get(url).data))
    assert bundle.read("TEAMX-CS-CS-01-T.xml") == qa_x and bundle.read("TEAMY-CS-CS-01-T.xml") == qa_y
    manifest = bundle.read("MANIFEST.tsv").decode().splitlines()
    assert manifest[0].startswith("run_id\tteam\ttask") and len(manifest) == 3
    assert hashlib.sha256(qa_x).hexdigest() in manifest[1]
    assert f'href="/downloads/runs/file/{theirs}">TEAMY-CS-CS-01-T</a>' in par.get("/me").get_data(as_text=True)
    assert par.get(f"/downloads/runs/file/{theirs}").data == qa_y
    # The topics went out when the first window opened; CCLQA runs and the gold stay hidden until release.
    assert par.get(f"/downloads/topics/{set_id}.xml").status_code == 200
    for hidden in (f"/downloads/runs/{set_id}/cclqa.zip", f"/downloads/gold/{set_id}.xml",
                   f"/downloads/judgments/{set_id}.tsv", f"/downloads/runs/{set_id}/ir4qa.zip"):
        assert par.get(hidden).status_code == 404, hidden
        assert org.get(hidden).status_code == 200, hidden
    move_window(web_store, set_id, "cclqa", -3, -2, -1)
    assert par.get(f"/downloads/gold/{set_id}.xml").status_code == 200
    assert par.get(f"/downloads/runs/{set_id}/cclqa.zip").status_code == 200


def test_runs_an_organiser_imports_are_downloadable_like_uploads(app, web_store):
    set_id = campaign(web_store, qa=(-3, -2, None))
    data = run_xml("qa", "TEAMY-CS-CS-01-T", {CS1: ["PERSON"]})
    with web_store.transaction() as session:  # what `sepia import` does with a run file
        import_run_file(session, read_bytes(data), "teamy.xml", data, replace=False)
    bundle = zipfile.ZipFile(io.BytesIO(browser_for(app, "par").get(f"/downloads/runs/{set_id}/qa.zip").data))
    assert bundle.read("TEAMY-CS-CS-01-T.xml") == data
    assert submissions(web_store) == [("TEAMY-CS-CS-01-T", "qa", True, hashlib.sha256(data).hexdigest())]


def test_topics_are_hidden_until_the_first_window_opens(app, web_store):
    set_id = campaign(web_store, qa=(1, 2, None), cclqa=(3, 4, None))
    par = browser_for(app, "par")
    assert par.get(f"/downloads/topics/{set_id}.xml").status_code == 404
    move_window(web_store, set_id, "qa", -1, 2, None)
    topics = par.get(f"/downloads/topics/{set_id}.xml").get_data(as_text=True)
    assert CS1 in topics and CS2 in topics


def test_organisers_set_the_schedule_and_are_warned_about_its_order(app, web_store):
    make_topic(web_store, CS1, nuggets=["x"])
    make_topic(web_store, JA1, nuggets=["y"])
    org = browser_for(app, "org")
    assert org.post("/campaign/schedule", {"name": "Dry run"}).status_code == 302
    page = org.get("/campaign/schedule").get_data(as_text=True)
    set_id = re.search(r'id="set-(\d+)"', page).group(1)
    response = org.post(f"/campaign/schedule/{set_id}/topics", {"topics": "ACLIA2-CS-*"})
    assert response.status_code == 302
    form = {"qa_opens": "2030-01-01T00:00", "qa_closes": "2030-01-10T00:00",
            "ir4qa_opens": "2030-01-05T00:00", "ir4qa_closes": "2030-01-20T00:00", "ir4qa_release": "2030-01-15T00:00",
            "cclqa_opens": "", "cclqa_closes": ""}
    page = org.post(f"/campaign/schedule/{set_id}/windows", form, follow_redirects=True).get_data(as_text=True)
    assert "IR4QA opens before Question Analysis closes" in page
    assert "IR4QA results are released before its window closes" in page
    assert "<span class=\"count\">1 topics</span>" in page
    assert '<time datetime="2030-01-10T00:00:00Z" data-local>2030-01-10 00:00 UTC</time>' not in page
    assert 'value="2030-01-10T00:00"' in page
    bad = org.post(f"/campaign/schedule/{set_id}/windows", {"qa_opens": "2030-01-01T00:00"}, follow_redirects=True)
    assert "give both the opening and the closing time" in bad.get_data(as_text=True)
    home = browser_for(app, "par").get("/me").get_data(as_text=True)
    assert '<time datetime="2030-01-10T00:00:00Z" data-local>2030-01-10 00:00 UTC</time>' in home


# (qa, ir4qa, cclqa) windows as (opens, closes, release) in hours from now, and what a participant may
# download then: topics, QA runs, IR4QA runs, CCLQA runs, gold, judgments.
STAGES = [
    ("before anything opens", [(1, 2, None), (3, 4, None), (5, 6, 7)], (0, 0, 0, 0, 0, 0)),
    ("QA open", [(-1, 2, None), (3, 4, None), (5, 6, 7)], (1, 0, 0, 0, 0, 0)),
    ("QA closed, IR4QA open", [(-2, -1, None), (-0.5, 4, None), (5, 6, 7)], (1, 1, 0, 0, 0, 0)),
    ("IR4QA closed, CCLQA open", [(-3, -2, None), (-2, -1, None), (-0.5, 6, 7)], (1, 1, 1, 0, 0, 0)),
    ("CCLQA closed, not released", [(-4, -3, None), (-3, -2, None), (-2, -1, 7)], (1, 1, 1, 0, 0, 0)),
    ("CCLQA released", [(-4, -3, None), (-3, -2, -2), (-2, -1, -0.5)], (1, 1, 1, 1, 1, 1)),
]


def test_every_download_as_every_role_at_every_stage(app, web_store):
    set_id = campaign(web_store, qa=(1, 2, None), ir4qa=(3, 4, None), cclqa=(5, 6, 7))
    urls = [f"/downloads/topics/{set_id}.xml", f"/downloads/runs/{set_id}/qa.zip",
            f"/downloads/runs/{set_id}/ir4qa.zip", f"/downloads/runs/{set_id}/cclqa.zip",
            f"/downloads/gold/{set_id}.xml", f"/downloads/judgments/{set_id}.tsv"]
    browsers = {name: browser_for(app, name) for name in ("par", "par2", "org", "dev", "as1")}
    for stage, windows, allowed in STAGES:
        for task, times in zip(("qa", "ir4qa", "cclqa"), windows):
            move_window(web_store, set_id, task, *times)
        for url, participant_may in zip(urls, allowed):
            for name, browser in browsers.items():
                status = browser.get(url).status_code
                if name.startswith("par"):
                    assert status == (200 if participant_may else 404), (stage, name, url, status)
                else:
                    assert status == (200 if name == "org" else 403), (stage, name, url, status)


def test_sepia_submit_sends_runs_to_a_running_server(app, web_store, tmp_path):
    import threading

    from click.testing import CliRunner
    from werkzeug.serving import make_server

    from sepia.cli import main

    campaign(web_store)
    par = browser_for(app, "par")
    page = par.post("/me/tokens", {"name": "cli"}).get_data(as_text=True)
    token = re.search(r'<code id="new-token" class="token">([^<]+)</code>', page).group(1)
    good, bad = tmp_path / "TEAMX-CS-CS-01-T.xml", tmp_path / "bad.xml"
    good.write_bytes(run_xml("cclqa", "TEAMX-CS-CS-01-T", {CS1: [LONG]}))
    bad.write_bytes(run_xml("cclqa", "TEAMX-CS-CS-02-T", {CS1: ["a", "b"]}).replace(b'RANK="2"', b'RANK="1"'))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        result = CliRunner().invoke(main, ["submit", str(good), str(bad), "--server", url],
                                    env={"SEPIA_TOKEN": token})
        wrong = CliRunner().invoke(main, ["submit", str(good), "--server", url], env={"SEPIA_TOKEN": "sepia_x"})
    finally:
        server.shutdown()
    assert result.exit_code == 1, result.output
    digest = hashlib.sha256(good.read_bytes()).hexdigest()
    assert f"{good}: accepted cclqa run TEAMX-CS-CS-01-T" in result.output and f"{digest} (matches)" in result.output
    assert re.search(rf"{re.escape(str(bad))}:\d+:\d+: .*repeated", result.output)
    assert stored_texts(web_store, "TEAMX-CS-CS-01-T") == [LONG] and stored_texts(web_store, "TEAMX-CS-CS-02-T") == []
    assert wrong.exit_code == 1 and "No valid token" in wrong.output
