"""Helpers for the web tool's tests: an app on a fresh store, one account per role, documents in three
languages, a search engine double, and log-in with real CSRF tokens (the fixtures are in conftest.py)."""
from __future__ import annotations

import atexit
import functools
import re
import shutil
import tempfile
from pathlib import Path

from werkzeug.security import generate_password_hash

from sepia.search.engine import DocumentView, SearchHit, SearchPage, Span
from sepia.store.db import Store
from sepia.store.models import Document, User
from sepia.web import create_app
from sepia.services.accounts import team_named

PASSWORD = "correct-horse-1"
ACCOUNTS = {  # username -> (role, team)
    "org": ("organiser", None),
    "dev": ("topic_developer", None),
    "as1": ("assessor", None),
    "as2": ("assessor", None),
    "par": ("participant", "TEAMX"),
    "par2": ("participant", "TEAMY"),
}
ROLE_USER = {"organiser": "org", "topic_developer": "dev", "assessor": "as1", "participant": "par"}

# Small documents with text that tests offsets: 𠀀 (U+20000) and 🦆 are outside the BMP, so a
# browser counts them as two units and Python as one.
DOCUMENTS = [
    ("XIN_CMN_20080101.0001", "CS", "禽流感新闻", "2008-01-01",
     "新华社北京电。𠀀禽流感是一种由甲型流感病毒引起的禽类传染病。\n专家说，病毒可以传染给人。"),
    ("XIN_CMN_20080102.0002", "CS", "天气预报", "2008-01-02", "明天北京晴。<script>alert(1)</script>"),
    ("CNA_CMN_20080101.0001", "CT", "颱風消息", "2008-01-01",
     "中央社台北電。颱風🦆帶來豪雨，氣象局發布海上警報。"),
    ("YOMI_20080101.0001", "JA", "首相の辞任", "2008-01-01",
     "東京発。福田首相は辞任を表明した。𠀀後任は麻生氏が有力だ。"),
]


class FakeEngine:
    """A stand-in for sepia.search's engine: substring search over the documents above, returning
    the engine's own result classes, so the adapter is tested against the real interface."""

    def __init__(self, documents=DOCUMENTS):
        self.documents = documents
        self.calls = []

    def languages(self):
        return sorted({d[1] for d in self.documents})

    def _spans(self, text, query):
        spans = []
        for term in query.split():
            start = text.find(term)
            while start >= 0:
                spans.append(Span(start, start + len(term)))
                start = text.find(term, start + 1)
        return sorted(spans, key=lambda s: s.start)

    def search(self, lang, query, page=1, page_size=10):
        self.calls.append(("search", lang, query, page))
        found = [d for d in self.documents if d[1] == lang and any(t in d[4] or t in d[2] for t in query.split())]
        window = found[(page - 1) * page_size: page * page_size]
        hits = [SearchHit(rank=(page - 1) * page_size + i + 1, docid=d[0], title=d[2], date=d[3],
                          score=1.0 / (i + 1), snippet_html=self._snippet(d[4], query))
                for i, d in enumerate(window)]
        return SearchPage(lang, query, query, page, page_size, len(found), hits)

    def _snippet(self, text, query):
        from html import escape

        out, at = [], 0
        for span in self._spans(text, query):
            if span.start < at:
                continue
            out.append(escape(text[at:span.start]))
            out.append(f'<mark data-start="{span.start}">{escape(text[span.start:span.end])}</mark>')
            at = span.end
        out.append(escape(text[at:]))
        return "".join(out)

    def generate_query(self, lang, key_terms):
        self.calls.append(("generate", lang, tuple(key_terms)))
        return " ".join(key_terms)

    def document(self, lang, docid, query=None):
        doc = next((d for d in self.documents if d[0] == docid and d[1] == lang), None)
        if doc is None:
            return None
        return DocumentView(lang, docid, doc[2], doc[3], doc[4], self._spans(doc[4], query or ""))


def add_documents(store, documents=DOCUMENTS):
    with store.transaction() as session:
        for docid, lang, title, date, text in documents:
            session.add(Document(docid=docid, lang=lang, title=title, date=date, text=text))


@functools.lru_cache(maxsize=1)
def password_hash() -> str:
    """The test accounts' hash: scrypt as SEPIA makes it, at a cost of 2**10 instead of 2**15. A log-in
    verifies at the cost the stored hash names, so each of the suite's log-ins takes 3 ms of CPU
    instead of 90; test_web_auth checks the cost of the hashes SEPIA makes."""
    return generate_password_hash(PASSWORD, method="scrypt:1024:8:1")


def add_accounts(store):
    with store.transaction() as session:
        for username, (role, team) in ACCOUNTS.items():
            user = User(username=username, password_hash=password_hash(), role=role, active=True)
            if team:
                user.team = team_named(session, team)
            session.add(user)


@functools.lru_cache(maxsize=1)
def template_database() -> Path:
    """A migrated store with the accounts and documents, made once and copied for every test
    (running the migrations takes most of a test's time otherwise)."""
    folder = tempfile.mkdtemp(prefix="sepia-web-")
    atexit.register(shutil.rmtree, folder, True)
    path = Path(folder) / "template.db"
    store = Store(f"sqlite:///{path}")
    add_accounts(store)
    add_documents(store)
    with store.engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    store.dispose()
    return path


def web_app(folder: Path):
    """The web app on a copy of the template store in `folder` (conftest.py's `app` fixture)."""
    shutil.copyfile(template_database(), folder / "web.db")
    return create_app({
        "DATABASE_URL": f"sqlite:///{folder / 'web.db'}",
        "SECRET_KEY": "test-secret",
        "SEARCH_ENGINE": FakeEngine(),
        "TESTING": True,
        "SESSION_COOKIE_SECURE": False,
    })


TOKEN_RE = re.compile(r'<meta name="csrf-token" content="([^"]+)"')


def web_app_on(store_url: str, setup=None):
    """The web app on a fresh store of any backend, with the test accounts and documents (and what
    `setup(store)` adds)."""
    store = Store(store_url)
    add_accounts(store)
    add_documents(store)
    if setup is not None:
        setup(store)
    store.dispose()
    return create_app({"DATABASE_URL": store_url, "SECRET_KEY": "test-secret", "TESTING": True,
                       "SEARCH_ENGINE": FakeEngine(), "SESSION_COOKIE_SECURE": False})


def csrf_token(client, path="/login") -> str:
    page = client.get(path, follow_redirects=True).get_data(as_text=True)
    return TOKEN_RE.search(page).group(1)


class Browser:
    """A test client that carries the CSRF token the way the pages and scripts do."""

    def __init__(self, client):
        self.client = client
        self.token = None

    def login(self, username, password=PASSWORD):
        self.token = csrf_token(self.client)
        response = self.client.post("/login", data={"username": username, "password": password,
                                                    "csrf_token": self.token})
        self.token = csrf_token(self.client, "/")
        return response

    def get(self, path, **kwargs):
        return self.client.get(path, **kwargs)

    def post(self, path, data=None, **kwargs):
        data = dict(data or {})
        data.setdefault("csrf_token", self.token)
        return self.client.post(path, data=data, **kwargs)

    def post_json(self, path, payload):
        return self.client.post(path, json=payload, headers={"X-CSRFToken": self.token})


def browser_for(app, username=None) -> Browser:
    browser = Browser(app.test_client())
    if username:
        response = browser.login(username)
        assert response.status_code == 302, response.get_data(as_text=True)
    return browser


def make_topic(store, topic_id="ACLIA2-CS-0001", completed=True, answers=(), nuggets=()):
    """A topic straight in the store: answers are (docid, start, end), nuggets texts linked to all."""
    from sepia.store.models import AnswerText, Document, Nugget, Topic, TopicText

    with store.transaction() as session:
        lang = topic_id.split("-")[1]
        topic = Topic(id=topic_id, lang=lang, answer_type="DEFINITION", memo="",
                      status="completed" if completed else "in_progress")
        topic.texts = [TopicText(kind="question", lang=lang, text="什么是禽流感？", position=0),
                       TopicText(kind="question", lang="EN", text="What is bird flu?", position=1)]
        session.add(topic)
        made = []
        for docid, start, end in answers:
            text = session.query(Document).filter_by(docid=docid).one().text[start:end]
            made.append(AnswerText(docid=docid, start=start, end=end, text=text, created_by="dev"))
        topic.answer_texts = made
        with session.no_autoflush:
            topic.nuggets = [Nugget(label=f"N{i + 1:03d}", text=text, position=i, answer_texts=list(made))
                             for i, text in enumerate(nuggets)]
        session.flush()
        return topic.id


STAMP_RE = re.compile(r'<input type="hidden" name="shown" value="([^"]*)">')


def vote(browser, topic_id, vital_ids):
    """Submit an assessor's votes as the voting page does: with the stamp of the nuggets it showed."""
    page = browser.get(f"/votes/{topic_id}").get_data(as_text=True)
    stamp = STAMP_RE.search(page).group(1)
    return browser.post(f"/votes/{topic_id}", {"shown": stamp, "vital": [str(n) for n in vital_ids]})


VERSION_RE = r'action="/nuggets/{topic}/{nugget}(?:/delete)?"[^>]*>\s*<input[^>]*>\s*<input type="hidden" name="version" value="(\d+)">'


def nugget_version(browser, topic_id, nugget_id) -> str:
    """The version of a nugget as its edit form on the nuggets page carries it."""
    page = browser.get(f"/nuggets/{topic_id}").get_data(as_text=True)
    return re.search(VERSION_RE.format(topic=topic_id, nugget=nugget_id), page).group(1)
