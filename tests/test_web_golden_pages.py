"""Every page the web tool shows (each GET route, as each role allowed it), and the pages of a
campaign scored and released on the web, byte for byte as they were before the views moved their
database work into services (issue 35): the files in tests/golden/pages/ were written by this test
on main at e7b0f96, before that change (`SEPIA_WRITE_GOLDEN=1`). What changes from run to run is
masked first: the session's CSRF token, the times of a campaign whose windows are set relative to
now, matplotlib's random IDs in an SVG, and a ZIP archive's file times."""
from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from golden_helpers import GOLDEN, as_golden
from test_web_permissions import released_campaign, routes
from web_helpers import ROLE_USER, browser_for

from sepia.store.models import ROLES

PAGES = GOLDEN / "pages"
MASKS = [
    (re.compile(rb'(name="csrf-token" content=|name="csrf_token" value=)"[^"]+"'), rb'\1"TOKEN"'),
    (re.compile(rb"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?(\+00:00|Z)?"), b"TIME"),
    (re.compile(rb"\d{4}-\d\d-\d\d"), b"DATE"),
    (re.compile(rb"\b\d+(\.\d+)? (seconds?|minutes?|hours?|days?)\b"), b"DURATION"),
    (re.compile(rb"\b[mp][0-9a-f]{10}\b"), b"SVG-ID"),  # matplotlib's random IDs of an SVG's paths
]


def content(response) -> bytes:
    """The response's bytes; a ZIP archive's, each member's name and bytes (not its file times)."""
    if response.mimetype != "application/zip":
        return response.data
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        return b"".join(name.encode() + b"\n" + archive.read(name) for name in archive.namelist())


def masked(body: bytes) -> bytes:
    for pattern, replacement in MASKS:
        body = pattern.sub(replacement, body)
    return body


def golden_name(role: str, url: str) -> Path:
    return PAGES / role / (re.sub(r"[^\w.-]+", "_", url.strip("/")) or "home")


@pytest.mark.parametrize("role", ROLES)
def test_every_page_is_as_it_was(app, role):
    released_campaign(app.extensions["sepia_store"])
    browser = browser_for(app, ROLE_USER[role])
    checked, differ = 0, []
    for _endpoint, method, url, roles in routes(app):
        if method != "GET" or roles in (None, "missing") or role not in roles:
            continue
        response = browser.get(url)
        got = f"{response.status_code} {response.headers.get('Location', '')}\n".encode() + masked(content(response))
        if not as_golden(golden_name(role, url), got):
            differ.append(url)
        checked += 1
    assert checked > 0 and differ == [], differ


CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"
SCORED = [  # (what, method, URL, form): the organiser scores the CS sample on the web, then reads it
    ("score", "POST", "/results/score", {"measures": "AP,nDCG@10", "gains": "1:2"}),
    ("score-strict", "POST", "/results/settings", {"matcher": "binarized", "theta": "0.5", "numbers": "strict",
                                                   "action": "score"}),
    ("release-strict", "POST", "/results/settings", {"matcher": "binarized", "theta": "0.5", "numbers": "strict",
                                                     "action": "release"}),
    ("overview", "GET", "/results/", None),
    ("settings-strict", "GET", "/results/settings?matcher=binarized&theta=0.5&numbers=strict", None),
    ("settings-softmatch", "GET", "/results/settings?matcher=softmatch&set=1", None),
    ("table-human", "GET", "/results/tables/CS-CS-human.csv", None),
    ("table-binarized", "GET", "/results/tables/EN-CS-binarized.tex", None),
    ("table-runs", "GET", "/results/tables/runs-cclqa.csv", None),
    ("table-ir4qa", "GET", "/results/tables/CS-CS-ir4qa.csv", None),
    ("chart", "GET", "/results/charts/CS-CS.svg", None),
    ("chart-qa", "GET", "/results/charts/qa/CS-CS.svg", None),
    ("votes", "GET", "/votes/overview", None),
    ("nuggets", "GET", "/nuggets/", None),
    ("topics", "GET", "/topics/", None),
    ("topic", "GET", "/topics/SEPIA-CS-0001", None),
    ("topic-nuggets", "GET", "/nuggets/SEPIA-CS-0001", None),
    ("gold", "GET", "/votes/gold.xml?lang=CS", None),
    ("assessors", "GET", "/assessors/", None),
]


def test_the_pages_of_a_scored_campaign_are_as_they_were(app, monkeypatch):
    """The CS sample imported with `sepia import`, scored and released from the results pages."""
    from click.testing import CliRunner

    from sepia.cli import main

    monkeypatch.chdir(CS)
    runs = sorted(p.relative_to(CS).as_posix() for folder in ("runs", "ir4qa", "qa") for p in (CS / folder).glob("*.xml"))
    imported = CliRunner().invoke(main, ["import", "topics.xml", "gold.xml", *runs, "judgments.tsv", "qrels.tsv"],
                                  env={"SEPIA_DATABASE_URL": app.config["DATABASE_URL"]})
    assert imported.exit_code == 0, imported.output
    org = browser_for(app, "org")
    differ = []
    for what, method, url, form in SCORED:
        response = org.post(url, form, follow_redirects=True) if method == "POST" else org.get(url)
        got = f"{response.status_code}\n".encode() + masked(content(response))
        if not as_golden(PAGES / "scored" / what, got):
            differ.append(what)
    assert differ == []


def test_a_change_of_one_byte_is_seen(app):
    """The comparison can fail: a page's bytes with one character changed are not the golden file's."""
    page = golden_name("organiser", "/results/").read_bytes()
    assert masked(page) == page and masked(page.replace(b"</html>", b"</html >")) != page
