"""A whole campaign in a real browser, for a CS, a CT and a JA topic set: the organiser sets the
schedule (a topic still in development is left out of its set, named); merges a copy of a nugget;
two teams submit Question Analysis, IR4QA and CCLQA runs (broken files, every problem shown in one
pass and nothing stored); a team replaces a run before the deadline and is refused after it; the
IR4QA team downloads the QA runs and the CCLQA team the IR4QA runs; the organiser scores, previews
what each team will receive and releases now; each team sees its own results, equal to the preview
and to `sepia evaluate` on the same files. Screenshots go to test-artifacts/campaign-*.png."""
from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from campaign_helpers import run_xml
from conftest import LiveServer, shoot
from conftest import log_in as log_in_as
from web_helpers import PASSWORD, add_accounts

from sepia.cli import main
from sepia.formats.judgments import judgments_to_tsv, read_judgments
from sepia.formats.read import read_file
from sepia.resources import resource_dir
from sepia.services.documents import ingest
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.judgments import import_judgments
from sepia.store.exchange.topics import import_topics
from sepia.store.models import Nugget, Response, Run, RunTopic, Submission, Topic, Vote, utcnow
from sepia.web import create_app
from sepia.services.accounts import create_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CORPORA = resource_dir("corpora")
LANGS = ("CS", "CT", "JA")
LONG = "禽流感𠮷" * 5000
TASKS = ("qa", "ir4qa", "cclqa")
UNFINISHED = "SEPIA-CS-0099"


def corpus(lang):
    return CORPORA / lang.lower()


@pytest.fixture
def site(tmp_path):
    url = f"sqlite:///{tmp_path / 'campaign.db'}"
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "browser-test", "SESSION_COOKIE_SECURE": False})
    store = app.extensions["sepia_store"]
    add_accounts(store)  # org, and par of team TEAMX
    with store.transaction() as session:
        create_user(session, "alice", PASSWORD, "participant", team="TEAMA", display_name="Alice")
        for lang in LANGS:
            import_topics(session, read_file(corpus(lang) / "topics.xml"))
            import_gold(session, read_file(corpus(lang) / "gold.xml"))
        session.add(Topic(id=UNFINISHED, lang="CS", status="in_progress"))  # no question yet
        session.flush()
        # A copy of a nugget from before copies were refused (full-width spaces), with an assessor's vote
        # (as on the first: the numbers stay those of the gold file).
        first = session.scalars(select(Nugget).where(Nugget.topic_id == "SEPIA-CS-0001").order_by(Nugget.position)).first()
        session.add(Nugget(topic_id=first.topic_id, label="N099", text=f"\u3000{first.text}\u3000", position=99,
                           votes=[Vote(assessor="cs-a2", vital=True)]))
    ingest(store, "CS", sorted((corpus("CS") / "docs").glob("*.sgml")), progress=False)  # DOCIDs are looked up
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def log_in(chromium, site, username):
    # Tokyo: the schedule must show local times that are not UTC.
    return log_in_as(chromium, site, username, viewport={"width": 1300, "height": 900}, locale="en-GB",
                     timezone_id="Asia/Tokyo")


def origin(page) -> str:
    parts = urlsplit(page.url)
    return f"{parts.scheme}://{parts.netloc}"


def at(hours: float) -> str:
    """A time `hours` from now as a datetime-local value (UTC, to the minute)."""
    return (utcnow() + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M")


def set_windows(page, set_name, windows):
    """The organiser fills one topic set's schedule: {task: (opens, closes, release)} in hours."""
    page.goto(origin(page) + "/campaign/schedule")
    section = page.locator("section", has=page.get_by_role("heading", name=set_name))
    for task, (opens, closes, release) in windows.items():
        section.locator(f"input[name={task}_opens]").fill(at(opens))
        section.locator(f"input[name={task}_closes]").fill(at(closes))
        section.locator(f"input[name={task}_release]").fill(at(release) if release is not None else "")
    with page.expect_navigation():
        section.get_by_role("button", name=f"Save schedule of {set_name}").click()
    assert "saved" in page.locator("#flashes").inner_text()


def upload(page, path, expect_ok=True):
    page.goto(origin(page) + "/me")
    page.set_input_files("input[name=run]", str(path))
    with page.expect_navigation():
        page.get_by_role("button", name="Upload and check").click()
    if expect_ok:
        assert "Receipt" in page.locator("h1").inner_text(), page.locator("main").inner_text()
    return page


def download(page, link_text) -> bytes:
    page.goto(origin(page) + "/me")
    with page.expect_download() as info:
        page.get_by_role("link", name=link_text).click()
    return open(info.value.path(), "rb").read()


def release_now(page, set_name):
    """The organiser's Release now of a topic set's CCLQA results."""
    page.goto(origin(page) + "/campaign/schedule")
    section = page.locator("section", has=page.get_by_role("heading", name=set_name))
    with page.expect_navigation():
        section.get_by_role("button", name=f"Release CCLQA results of {set_name} now").click()
    assert "released now" in page.locator("#flashes").inner_text()


def test_a_whole_campaign(chromium, site, tmp_path):
    def shot(page, name, at=None):
        if at:
            page.locator(at).scroll_into_view_if_needed()
        shoot(page, f"campaign-{name}.png")

    files = tmp_path / "runs"
    files.mkdir()

    def write(name, data):
        (files / name).write_bytes(data)
        return files / name

    topics = {lang: [t.topic_id for t in read_file(corpus(lang) / "topics.xml").topics] for lang in LANGS}
    docids = {lang: [d.docid for t in read_file(corpus(lang) / "ir4qa" / f"TEAMA-{lang}-{lang}-01-T.xml").topics
                     for d in t.documents][:5] for lang in LANGS}

    # The organiser makes a topic set per language: QA open now, IR4QA and CCLQA later.
    org = log_in(chromium, site, "org")
    for lang in LANGS:
        org.goto(f"{site.url}/campaign/schedule")
        org.fill("input[name=name]", f"{lang} formal run")
        with org.expect_navigation():
            org.get_by_role("button", name="Create topic set").click()
        section = org.locator("section", has=org.get_by_role("heading", name=f"{lang} formal run"))
        section.locator("input[name=topics]").fill(f"SEPIA-{lang}-*")
        with org.expect_navigation():
            section.get_by_role("button", name=f"Add to {lang} formal run").click()
        flashes = org.locator("#flashes").inner_text()
        assert (f"Left out, not completed (or without a question): {UNFINISHED}." in flashes) == (lang == "CS"), flashes
        set_windows(org, f"{lang} formal run", {"qa": (-1, 24, None), "ir4qa": (25, 48, None),
                                                 "cclqa": (49, 72, 96)})
    shot(org, "schedule", "h1")
    assert "opens before" not in org.locator("main").inner_text()

    # The copy of a nugget: listed for the organiser, merged into the first, its vote kept.
    org.goto(f"{site.url}/nuggets/")
    shot(org, "nugget-copies", "#copies")
    with org.expect_navigation():
        org.locator("#copies").get_by_role("button", name="Merge into N001").click()
    assert "SEPIA-CS-0001: N099 merged into N001 (1 vote(s)" in org.locator("#flashes").inner_text()
    with site.app.extensions["sepia_store"].transaction() as session:
        assert session.scalars(select(Nugget.label).join(Vote).where(Vote.assessor == "cs-a2", Nugget.topic_id ==
                                                                     "SEPIA-CS-0001").order_by(Nugget.position)).first() == "N001"
        assert session.scalar(select(Nugget).where(Nugget.label == "N099")) is None

    alice, par = log_in(chromium, site, "alice"), log_in(chromium, site, "par")
    shot(par, "participant-home")
    # Question Analysis: both teams, every language; a broken file first.
    broken = run_xml("qa", "TEAMX-EN-CS-01-T", {topics["CS"][0]: ["DEFINITION"], topics["CS"][1]: ["PERSON"]})
    broken = broken.replace(topics["CS"][1].encode(), topics["CS"][0].encode()).replace(b"<DESCRIPTION>", b"<DESCRIPTION BOGUS=\"1\">")
    broken = broken.replace(b"</TOPIC_SET>", b'<TOPIC ID="SEPIA-CS-0999"><QUESTION_ANALYSIS><ANSWER_TYPE SCORE="1">'
                            b"DATE</ANSWER_TYPE></QUESTION_ANALYSIS></TOPIC></TOPIC_SET>")
    upload(par, write("broken-qa.xml", broken), expect_ok=False)
    problems = par.locator("#problems li").all_inner_texts()
    # Every problem at once: the file's (the schema's, a topic twice) and the campaign's (a topic outside it).
    located = [p for p in problems if p.startswith("broken-qa.xml:")]
    assert len(located) >= 2 and "Not topics of this campaign: SEPIA-CS-0999." in problems, problems
    assert any("BOGUS" in p for p in located) and any("repeated" in p or "more than once" in p for p in located), problems
    shot(par, "broken-file", "#submit")
    for lang in LANGS:
        upload(alice, write(f"qa-A-{lang}.xml", run_xml("qa", f"TEAMA-{lang}-{lang}-01-T",
                                                         {t: ["DEFINITION"] for t in topics[lang]})))
        upload(par, write(f"qa-X-{lang}.xml", run_xml("qa", f"TEAMX-EN-{lang}-01-T",
                                                       {t: ["EVENT"] for t in topics[lang]})))
    shot(par, "receipt")
    with site.app.extensions["sepia_store"].transaction() as session:
        assert session.query(Submission).count() == 6

    # QA closes, IR4QA opens: the IR4QA team downloads every team's QA runs.
    for lang in LANGS:
        set_windows(org, f"{lang} formal run", {"qa": (-3, -2, None), "ir4qa": (-1, 24, None),
                                                 "cclqa": (49, 72, 96)})
    bundle = zipfile.ZipFile(io.BytesIO(download(par, "All Question Analysis runs of CS formal run (zip)")))
    assert sorted(bundle.namelist()) == ["MANIFEST.tsv", "TEAMA-CS-CS-01-T.xml", "TEAMX-EN-CS-01-T.xml"]
    assert bundle.read("TEAMA-CS-CS-01-T.xml") == (files / "qa-A-CS.xml").read_bytes()
    broken = run_xml("ir4qa", "TEAMX-EN-CS-02-T", {topics["CS"][0]: [docids["CS"][0], "NOPE_999"]})
    upload(par, write("broken-ir4qa.xml", broken.replace(b'RANK="2"', b'RANK="1"')), expect_ok=False)
    problems = par.locator("#problems li").all_inner_texts()
    assert any("document NOPE_999 is not in the CS collection" in p for p in problems), problems
    assert any("rank 1 is repeated" in p for p in problems), problems
    shot(par, "broken-ir4qa", "#submit")
    for lang in LANGS:
        upload(alice, corpus(lang) / "ir4qa" / f"TEAMA-{lang}-{lang}-01-T.xml")
        upload(par, write(f"ir4qa-X-{lang}.xml", run_xml("ir4qa", f"TEAMX-EN-{lang}-01-T",
                                                          {t: docids[lang] for t in topics[lang]})))

    # IR4QA closes, CCLQA opens: the CCLQA team downloads the IR4QA runs.
    for lang in LANGS:
        set_windows(org, f"{lang} formal run", {"qa": (-5, -4, None), "ir4qa": (-3, -2, None),
                                                 "cclqa": (-1, 24, 48)})
    bundle = zipfile.ZipFile(io.BytesIO(download(alice, "All IR4QA runs of JA formal run (zip)")))
    assert "TEAMX-EN-JA-01-T.xml" in bundle.namelist() and "MANIFEST.tsv" in bundle.namelist()
    shot(alice, "downloads", "#downloads")
    own = {}
    for lang in LANGS:
        upload(alice, corpus(lang) / "runs" / f"TEAMA-{lang}-{lang}-01-T.xml")
        # TEAMX sends a first version, then replaces it before the deadline with the real one. The
        # draft's response has 20,000 characters, many outside the BMP: stored exactly, not cut.
        first = run_xml("cclqa", f"TEAMX-EN-{lang}-01-T", {topics[lang][0]: [LONG]})
        upload(par, write(f"cclqa-X-{lang}-draft.xml", first))
        with site.app.extensions["sepia_store"].transaction() as session:
            assert session.scalars(select(Response.text).join(RunTopic).join(Run).where(
                Run.run_id == f"TEAMX-EN-{lang}-01-T", Run.kind == "cclqa")).all() == [LONG]
        own[lang] = corpus(lang) / "runs" / f"TEAMX-EN-{lang}-01-T.xml"
        upload(par, own[lang])
    par.goto(f"{site.url}/me")
    assert par.locator("#submissions tr.inactive").count() == 3  # the drafts, superseded and kept
    shot(par, "replaced", "#submissions")

    # The CCLQA deadline passes while a page opened before it is still up: the upload is refused with
    # the deadline, in the reader's time zone and without the file's name before it; the page loaded
    # anew has its upload form off.
    par.goto(f"{site.url}/me")
    par.set_input_files("input[name=run]", str(own["CS"]))
    for lang in LANGS:
        set_windows(org, f"{lang} formal run", {"qa": (-7, -6, None), "ir4qa": (-5, -4, None),
                                                 "cclqa": (-3, -2, 48)})
    with par.expect_navigation():
        par.get_by_role("button", name="Upload and check").click()
    late = par.locator("#problems li").first.inner_text()
    assert late.startswith("CCLQA submissions closed at ") and "the deadline has passed" in late, late
    assert "UTC" not in late and ("JST" in late or "GMT+9" in late), late  # Tokyo time
    assert par.get_by_role("button", name="Upload and check").is_disabled()

    # Assessment happens elsewhere; its judgments of the submitted runs come into the store.
    submitted = {f"TEAMA-{lang}-{lang}-01-T" for lang in LANGS} | {f"TEAMX-EN-{lang}-01-T" for lang in LANGS}
    judgments = [j for lang in LANGS for j in read_judgments(corpus(lang) / "judgments.tsv") if j.run_id in submitted]
    with site.app.extensions["sepia_store"].transaction() as session:
        import_judgments(session, judgments)
    org.goto(f"{site.url}/results/")
    with org.expect_navigation():
        org.get_by_role("button", name="Score the stored runs now").click()
    assert "6 CCLQA runs scored" in org.locator("#flashes").inner_text()
    shot(org, "results")

    # Before release the teams see nothing; the organiser releases CS and CT now from the schedule,
    # previews JA (the topics file, each team's results page) and releases it.
    par.goto(f"{site.url}/results/mine")
    assert "No results are released" in par.locator("main").inner_text()
    for lang in LANGS:
        if lang != "JA":
            release_now(org, f"{lang} formal run")
    org.goto(f"{site.url}/campaign/schedule")
    org.locator("#flashes").evaluate("flashes => flashes.remove()")  # the picture shows the page as it stays
    shot(org, "release-now", "section:has(h2:has-text('JA formal run')) .actions")
    with org.expect_navigation():
        org.locator("section", has=org.get_by_role("heading", name="JA formal run")).get_by_role(
            "link", name="Preview what the teams receive").click()
    assert org.locator("#topics-file pre").inner_text().strip() == download(alice, "Topics of JA formal run").decode().strip()
    preview = {team: org.locator(f"#team-{team} #mine-cclqa").inner_text() for team in ("TEAMA", "TEAMX")}
    shot(org, "preview", "h1")
    par.goto(f"{site.url}/results/mine")
    assert "JA" not in par.locator("main").inner_text().replace("JA formal run", "")  # a preview releases nothing
    release_now(org, "JA formal run")
    (tmp_path / "judgments.tsv").write_text(judgments_to_tsv(judgments), encoding="utf-8")
    for page, team_runs in ((par, [own[lang] for lang in LANGS]),
                            (alice, [corpus(lang) / "runs" / f"TEAMA-{lang}-{lang}-01-T.xml" for lang in LANGS])):
        page.goto(f"{site.url}/results/mine")
        text = page.locator("main").inner_text()
        for lang, path in zip(LANGS, team_runs):
            for matcher in ("human", "binarized"):
                args = ["evaluate", "--gold", str(corpus(lang) / "gold.xml"), "--run", str(path), "--matcher",
                        matcher, "--format", "json"]
                if matcher == "human":
                    args += ["--judgments", str(tmp_path / "judgments.tsv")]
                result = CliRunner().invoke(main, args)
                assert result.exit_code == 0, result.output
                assert f"{json.loads(result.stdout)['runs'][0]['score']:.4f}" in text, (path.name, matcher)
        others = ("TEAMA" if page is par else "TEAMX")
        assert others not in text  # no other team's run IDs: the full table is not published
        assert preview["TEAMX" if page is par else "TEAMA"] == page.locator("#mine-cclqa").inner_text()  # as previewed
    shot(par, "team-results")
