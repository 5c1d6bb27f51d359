"""Hardening, round two (issue 20): a stray control character, an account field too long or unusable
in run IDs, a full disk. Each test runs on SQLite and, when SEPIA_TEST_DATABASE_URL is set, on
PostgreSQL, and failed before its fix."""
from __future__ import annotations

import io as io_module
import logging
import re
import sqlite3
import threading
from contextlib import contextmanager
from unittest import mock

import psycopg
import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, Pool, event, select
from sqlalchemy.exc import OperationalError
from werkzeug.serving import make_server

from campaign_helpers import run_xml, schedule
from web_helpers import browser_for, make_topic, web_app_on

from sepia import vocab
from sepia.cli import main
from sepia.formats import model
from sepia.campaign import submission
from sepia.formats.read import read_bytes
from sepia.formats.write import to_xml
from sepia.store.exchange.gold import export_gold
from sepia.store.exchange.topics import export_topics
from sepia.store.db import Store
from sepia.store.models import AnswerText, ApiToken, Nugget, Submission, Team, Topic, TopicSet, TopicText, User
from sepia.store.models import Pool as JudgingPool

TOPIC, TOPIC2 = "ACLIA2-CS-0001", "ACLIA2-CS-0002"
DOC = "XIN_CMN_20080101.0001"


@pytest.fixture
def web(store_url):
    """The web tool on a fresh store of each backend, with the test accounts and documents."""
    application = web_app_on(store_url)
    yield application
    application.extensions["sepia_store"].dispose()


def stored(web, query):
    with web.extensions["sepia_store"].transaction() as session:
        return session.scalars(query).all()


# ---------------------------------------------------------------- 1. control characters

# (user, path, form, the field named): a topic, a nugget, a comment-like text, a pool, a topic set
# and an account; NUL and the vertical tab that pasting from a word processor brings.
FORMS = [
    ("dev", f"/topics/{TOPIC}", {"version": "1", "memo": "备注\x0b", "question_target": "什么是禽流感？"}, "memo"),
    ("dev", f"/topics/{TOPIC}", {"version": "1", "memo": "", "question_target": "什么是\x00禽流感？"},
     "question_target"),
    ("dev", f"/nuggets/{TOPIC}", {"text": "甲型\x00流感病毒"}, "text"),
    ("org", "/pools/", {"name": "pool\x0b1", "kind": "cclqa", "lang": "CS", "depth": "5"}, "name"),
    ("org", "/schedule", {"name": "Formal run", "description": "first\x1fset"}, "description"),
    ("org", "/admin/users", {"username": "as9", "password": "correct-horse-1", "role": "assessor",
                             "display_name": "佐藤\x00"}, "display_name"),
]


@pytest.mark.parametrize("username, path, form, field", FORMS)
def test_a_control_character_is_refused_at_the_door_naming_the_field(web, username, path, form, field):
    make_topic(web.extensions["sepia_store"], TOPIC, completed=False, answers=[(DOC, 8, 29)])
    response = browser_for(web, username).post(path, form)
    page = response.get_data(as_text=True)
    assert response.status_code == 422, page[:500]
    assert f"The field “{field}” holds the control character U+00" in page
    assert stored(web, select(Nugget)) == [] and stored(web, select(JudgingPool)) == []
    assert stored(web, select(TopicSet)) == [] and stored(web, select(User).where(User.username == "as9")) == []
    texts = [t.text for t in stored(web, select(TopicText))] + [t.memo for t in stored(web, select(Topic))]
    assert not any("\x00" in t or "\x0b" in t for t in texts)


def test_a_pasted_passage_with_a_control_character_is_refused_as_json(web):
    make_topic(web.extensions["sepia_store"], TOPIC, completed=False)
    dev = browser_for(web, "dev")
    response = dev.post_json(f"/topics/{TOPIC}/answers", {"docid": DOC, "start": 8, "end": 29, "text": "甲\x0b"})
    assert response.status_code == 422 and "“text”" in response.get_json()["error"]
    response = dev.post_json(f"/topics/{TOPIC}/answers", {"docid": DOC, "start": 8, "end": 29,
                                                          "terms": ["ok", "不\x00"]})
    assert response.status_code == 422 and "“terms[1]”" in response.get_json()["error"]


def test_an_uploaded_file_whose_name_holds_a_control_character_is_refused(web):
    make_topic(web.extensions["sepia_store"], TOPIC)
    par = browser_for(web, "par")
    data = run_xml("cclqa", "TEAMX-CS-CS-01-T", {TOPIC: ["甲型流感病毒"]})
    response = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io_module.BytesIO(data), "r\x00.xml")},
                               content_type="multipart/form-data")
    assert response.status_code == 422 and "The field “run” holds the control character U+0000" in \
        response.get_data(as_text=True)
    assert stored(web, select(Submission)) == []


def test_text_that_xml_can_carry_still_passes(web):
    make_topic(web.extensions["sepia_store"], TOPIC, answers=[(DOC, 8, 29)])
    answer = stored(web, select(AnswerText.id))[0]
    # tabs, line breaks, characters beyond the BMP and U+E000 are all XML 1.0 characters
    response = browser_for(web, "dev").post(f"/nuggets/{TOPIC}", {"text": "甲型\t流感\r\n病毒 𠀀 \ue000",
                                                                  "answer_ids": [str(answer)]})
    assert response.status_code == 302
    assert [n.text for n in stored(web, select(Nugget))] == ["甲型 流感 病毒 𠀀 \ue000"]  # spaces made one


def test_a_store_already_holding_control_characters_still_exports(store, caplog):
    """Stored before the door was closed (PostgreSQL refuses NUL itself, so U+000B and U+001F here):
    the exports drop them and name each record in a warning."""
    with store.transaction() as session:
        session.add(Topic(id=TOPIC, lang="CS", answer_type="DEFINITION", status="completed", memo="m\x1f", texts=[
            TopicText(kind="question", lang="CS", text="什么是\x0b禽流感？", position=0)],
            nuggets=[Nugget(label="N001", text="甲型\x0b流感\x1f病毒", position=0)]))
    with caplog.at_level(logging.WARNING), store.transaction() as session:
        gold = read_bytes(to_xml(export_gold(session)), "gold")
        topics = read_bytes(to_xml(export_topics(session)), "topic")
        public = read_bytes(to_xml(export_topics(session, questions_only=True)), "topic")
    assert gold.topics[0].nuggets[0].text == "甲型流感病毒" and gold.topics[0].questions[0].text == "什么是禽流感？"
    assert topics.topics[0].memo == "m" and public.topics[0].questions[0].text == "什么是禽流感？"
    warnings = [r.getMessage() for r in caplog.records]
    assert f"warning: TOPIC {TOPIC}, NUGGET N001: 2 character(s) XML cannot carry (first U+000B) dropped from TEXT" \
        in warnings
    assert f"warning: TOPIC {TOPIC}: 1 character(s) XML cannot carry (first U+001F) dropped from MEMO" in warnings


# ---------------------------------------------------------------- 4. account fields

ACCOUNT_FORMS = [
    ({"display_name": "名" * 300}, "at most 200 characters"),
    ({"role": "participant", "team": "T" * 150}, "1 to 100 letters A-Z, digits or _"),
    ({"role": "participant", "team": "チーム <b>A</b>"}, "TEAM part of its run IDs"),
    ({"role": "participant", "team": "TEAM-B"}, "TEAM part of its run IDs"),
]


@pytest.mark.parametrize("fields, message", ACCOUNT_FORMS)
def test_account_fields_are_checked_with_what_is_allowed(web, fields, message):
    organiser = browser_for(web, "org")
    form = {"username": "new1", "password": "correct-horse-1", "role": "assessor", **fields}
    response = organiser.post("/admin/users", form)
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert stored(web, select(User).where(User.username == "new1")) == []
    par = stored(web, select(User).where(User.username == "par"))[0]
    response = organiser.post(f"/admin/users/{par.id}", {"role": "participant", "team": "TEAMX", "active": "1",
                                                          **fields})
    assert response.status_code == 422 and message in response.get_data(as_text=True)
    assert sorted(t.name for t in stored(web, select(Team))) == ["TEAMX", "TEAMY"]


def test_every_team_name_accepted_can_name_a_run():
    from sepia.services.accounts import TEAM_RE

    for team in ("A", "KECIR", "team_2", "X" * 100):
        assert TEAM_RE.fullmatch(team) and vocab.parse_run_id(f"{team}-CS-CS-01-T").team == team
    for team in ("", "A-B", "チーム", "A B", "X" * 101):
        assert not TEAM_RE.fullmatch(team)


def test_a_valid_team_and_a_long_display_name_within_the_column_are_stored(web):
    response = browser_for(web, "org").post("/admin/users", {
        "username": "new1", "password": "correct-horse-1", "role": "participant", "team": "NEW_TEAM_1",
        "display_name": " " + "名" * 200 + " "})
    assert response.status_code == 302
    user = stored(web, select(User).where(User.username == "new1"))[0]
    assert user.display_name == "名" * 200


# ---------------------------------------------------------------- 5. a full disk

@contextmanager
def full_disk(store_url):
    """Every connection made from now on finds the disk full: on SQLite for real (the file may not
    grow by a page), on PostgreSQL as its driver reports it (SQLSTATE 53100) on every write."""
    if store_url.startswith("sqlite"):
        def full(dbapi_connection, _record):
            pages = dbapi_connection.execute("PRAGMA page_count").fetchone()[0]
            dbapi_connection.execute(f"PRAGMA max_page_count={max(pages, 1)}")
        target, name = Pool, "connect"
    else:
        def full(_connection, _cursor, statement, *_args):
            if statement.lstrip().split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE", "CREATE"):
                raise psycopg.errors.DiskFull("could not extend file \"base/1/2\": No space left on device")
        target, name = Engine, "before_cursor_execute"
    event.listen(target, name, full)
    try:
        yield
    finally:
        event.remove(target, name, full)


def big_topics(path):
    """A topic file whose import needs pages a full SQLite file does not have (40,000 bytes of text)."""
    topic = model.Topic(TOPIC, [model.LangText("CS", "禽流感𠀀" * 4000), model.LangText("EN", "What?")])
    path.write_bytes(to_xml(model.TopicSet([topic], "CS")))
    return path


def test_sepia_import_on_a_full_disk_says_so_in_one_line_and_saves_nothing(store_url, tmp_path):
    Store(store_url).dispose()  # the store exists, migrated, before the disk fills
    with full_disk(store_url):
        result = CliRunner().invoke(main, ["import", str(big_topics(tmp_path / "topics.xml"))],
                                    env={"SEPIA_DATABASE_URL": store_url})
    assert result.exit_code == 1 and result.stderr == "disk full: nothing was saved\n", result.output
    store = Store(store_url)
    with store.transaction() as session:
        assert session.scalars(select(Topic)).all() == []
    store.dispose()


@pytest.mark.real_migrations  # the migrations themselves meet the full disk
def test_sepia_db_upgrade_on_a_full_disk_says_so_in_one_line(store_url):
    with full_disk(store_url):
        result = CliRunner().invoke(main, ["db", "upgrade"], env={"SEPIA_DATABASE_URL": store_url})
    assert result.exit_code == 1 and result.stderr == "disk full: nothing was saved\n", result.output
    store = Store(store_url)  # the store was left as it was, and migrates once there is room
    store.dispose()


def test_the_api_answers_a_full_disk_in_json_and_sepia_submit_says_it(web, tmp_path):
    store = web.extensions["sepia_store"]
    for topic_id in (TOPIC, TOPIC2):
        make_topic(store, topic_id, answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒"])
    schedule(store, "Formal run", [TOPIC, TOPIC2], {"cclqa": (-1, 2, None)})
    page = browser_for(web, "par").post("/me/tokens", {"name": "cli"}).get_data(as_text=True)
    token = re.search(r'<code id="new-token" class="token">([^<]+)</code>', page).group(1)
    run = tmp_path / "TEAMX-CS-CS-01-T.xml"
    run.write_bytes(run_xml("cclqa", "TEAMX-CS-CS-01-T", {TOPIC: ["禽流感𠀀" * 5000]}))
    server = make_server("127.0.0.1", 0, web, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    store.engine.dispose()  # connections made before the disk filled would not know
    try:
        with full_disk(store.engine.url.render_as_string(hide_password=False)):
            direct = web.test_client().post("/api/runs", data=run.read_bytes(), content_type="application/xml",
                                            headers={"Authorization": f"Bearer {token}"})
            result = CliRunner().invoke(main, ["submit", str(run), "--server", f"http://127.0.0.1:{server.server_port}"],
                                        env={"SEPIA_TOKEN": token})
    finally:
        server.shutdown()
        store.engine.dispose()
    assert direct.status_code == 507 and direct.get_json() == {
        "accepted": False, "error": "disk full: nothing was saved", "problems": ["disk full: nothing was saved"]}
    assert result.exit_code == 1 and result.output == f"{run}: disk full: nothing was saved\n"
    assert stored(web, select(Submission)) == []


def test_a_gunicorn_worker_that_cannot_boot_for_a_full_disk_says_so_in_one_line():
    from sepia.web.gunicorn_conf import post_fork

    class Worker:
        def __init__(self, error):
            self.error, self.log = error, mock.Mock()

        def load_wsgi(self):
            raise self.error

    full = Worker(OperationalError("INSERT", {}, sqlite3.OperationalError("database or disk is full")))
    post_fork(None, full)
    with pytest.raises(SystemExit) as stopped:
        full.load_wsgi()
    assert stopped.value.code == 3 and full.log.error.call_args.args == ("disk full: nothing was saved",)
    other = Worker(OperationalError("INSERT", {}, sqlite3.OperationalError("no such table: user")))
    post_fork(None, other)
    with pytest.raises(OperationalError):
        other.load_wsgi()


# ---------------------------------------------------------------- 2. a run upload blocks no other writer

def submission_campaign(web):
    store = web.extensions["sepia_store"]
    for topic_id in (TOPIC, TOPIC2):
        make_topic(store, topic_id, answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒"])
    schedule(store, "Formal run", [TOPIC, TOPIC2], {"cclqa": (-1, 2, None)})
    page = browser_for(web, "par").post("/me/tokens", {"name": "cli"}).get_data(as_text=True)
    return re.search(r'<code id="new-token" class="token">([^<]+)</code>', page).group(1)


WRITES = ("INSERT", "UPDATE", "DELETE")


def test_an_upload_validates_before_its_first_write_and_then_notes_the_token(web, monkeypatch):
    """The first write opens SQLite's write transaction (and locks rows on PostgreSQL) until the
    commit: while a run is validated no write may be pending, whoever sends it."""
    token = submission_campaign(web)
    store, steps = web.extensions["sepia_store"], []
    real_validate = submission.validate_bytes

    def validate(*args, **kwargs):
        checked = real_validate(*args, **kwargs)
        steps.append("validated")
        return checked

    def statement(_connection, _cursor, sql, *_args):
        steps.append(sql.lstrip().split(None, 1)[0].upper())

    monkeypatch.setattr(submission, "validate_bytes", validate)
    event.listen(store.engine, "before_cursor_execute", statement)
    data = run_xml("cclqa", "TEAMX-CS-CS-01-T", {TOPIC: ["甲型流感病毒"]})
    try:
        api = web.test_client().post("/api/runs", data=data, content_type="application/xml",
                                     headers={"Authorization": f"Bearer {token}"})
        api_steps, steps[:] = steps[:], []
        par = browser_for(web, "par")
        steps.clear()
        page = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io_module.BytesIO(data), "r.xml")},
                               content_type="multipart/form-data")
    finally:
        event.remove(store.engine, "before_cursor_execute", statement)
    assert api.status_code == 201 and page.status_code == 302, api_steps
    for taken in (api_steps, steps):
        first_write = next(i for i, step in enumerate(taken) if step in WRITES)
        assert taken.index("validated") < first_write, taken
    assert api_steps[-1] == "UPDATE"  # the token's note, after the run was stored
    assert stored(web, select(ApiToken.last_used_at))[0] is not None


# ---------------------------------------------------------------- 3. memory handed back after a large upload

def test_a_worker_hands_back_freed_memory_after_a_large_request_only(web, monkeypatch):
    from sepia.web import memory

    trims = mock.Mock()
    monkeypatch.setattr(memory, "MALLOC_TRIM", trims)
    client = web.test_client()
    assert client.post("/api/runs", data=b"<x/>" * 10).status_code == 401
    assert trims.call_count == 0
    assert client.post("/api/runs", data=b" " * memory.LARGE_BODY).status_code == 401
    assert trims.call_args_list == [mock.call(0)]
