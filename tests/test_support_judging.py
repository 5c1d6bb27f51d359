"""Citation support judged in the web tool and stored (SQLite and PostgreSQL), exported as the
support TSV and scored by `sepia evaluate-support`."""
from __future__ import annotations

import json
import re

from click.testing import CliRunner

from web_helpers import browser_for, make_topic

from sepia.cli import main
from sepia.formats.model import Answer, CCLQARun, CCLQATopic, Judgment, Metadata
from sepia.store.exchange.runs import import_run
from sepia.store.models import Document
from sepia.store.pools import assign_pool, build_pool
from sepia.store.support import citations, save_support, support_judgments
from tests.helpers import accounts

T1 = "RAG2025-EN-1"
SEG = ["msmarco_v2.1_doc_00_1#0_0", "msmarco_v2.1_doc_00_1#1_90", "msmarco_v2.1_doc_01_2#0_0"]


def add_run(session):
    for docid in SEG[:2]:
        session.add(Document(docid=docid, lang="EN", title=f"Title {docid[-4:]}", text=f"Segment text of {docid}."))
    import_run(session, CCLQARun(Metadata("TEAMX-EN-EN-01-T"), [CCLQATopic(T1, [
        Answer(1, "Coal fuelled it.", [SEG[0], SEG[1], SEG[0]]), Answer(2, "Steam too.", [SEG[2]]), Answer(3, "Alone.", [])])]))


def test_support_is_stored_replaced_and_exported(store_url):
    from sepia.store.db import Store

    s = Store(store_url)
    try:
        with s.transaction() as session:
            add_run(session)
        with s.transaction() as session:
            rows = citations(session, T1, "as1")
            assert [(r.text, r.docid, r.title, r.support) for r in rows] == [
                ("Coal fuelled it.", SEG[0], "Title #0_0", None), ("Coal fuelled it.", SEG[1], "Title 1_90", None),
                ("Steam too.", SEG[2], None, None)]  # a document cited twice is one citation; one not stored
            first, second, third = rows
            save_support(session, "as1", {(first.response_id, SEG[0]): 1.0, (second.response_id, SEG[1]): 0.0})
            save_support(session, "as2", {(first.response_id, SEG[0]): 0.5})
        with s.transaction() as session:
            save_support(session, "as1", {(second.response_id, SEG[1]): 0.5, (third.response_id, SEG[2]): 0.0})
        with s.transaction() as session:
            assert [r.support for r in citations(session, T1, "as1")] == [1.0, 0.5, 0.0]
            assert support_judgments(session) == [
                Judgment(T1, "TEAMX-EN-EN-01-T", 1, SEG[0], 1.0, "as1"), Judgment(T1, "TEAMX-EN-EN-01-T", 1, SEG[0], 0.5, "as2"),
                Judgment(T1, "TEAMX-EN-EN-01-T", 1, SEG[1], 0.5, "as1"), Judgment(T1, "TEAMX-EN-EN-01-T", 2, SEG[2], 0.0, "as1")]
    finally:
        s.dispose()


def pooled_for_as1(store, depth: int, viewer: str):
    """Topic T1 and the run stored, pooled to `depth` and assigned to as1: `viewer`'s citations."""
    make_topic(store, T1)
    with store.transaction() as session:
        add_run(session)
        build_pool(session, "rag", "cclqa", depth)
        assign_pool(session, "rag", ["as1"])
        return citations(session, T1, viewer)


def test_judged_in_the_browser_then_scored(app, web_store, tmp_path, monkeypatch):  # noqa: F811
    rows = pooled_for_as1(web_store, 10, "as1")
    as1 = browser_for(app, "as1")
    page = as1.get(f"/judge/support/{T1}").get_data(as_text=True)
    assert "citation support · 0 of 3 judged" in page and "Coal fuelled it." in page and "TEAMX" not in page  # blind
    fields = {f"support:{r.response_id}:{r.docid}": value for r, value in zip(rows, ("1", "0.5"))}
    response = as1.post(f"/judge/support/{T1}", fields)
    assert response.status_code == 302
    page = as1.get(f"/judge/support/{T1}").get_data(as_text=True)
    assert "2 citation judgments saved; 1 left open." in page and "citation support · 2 of 3 judged" in page
    bad = as1.post(f"/judge/support/{T1}", {f"support:{rows[0].response_id}:other#1": "1"})
    assert bad.status_code == 302 and "not of a citation of this topic" in as1.get(f"/judge/support/{T1}").get_data(as_text=True)
    assert as1.post(f"/judge/support/{T1}", {f"support:{rows[2].response_id}:{SEG[2]}": "2"}).status_code == 302
    par = browser_for(app, "par")
    assert par.get(f"/judge/support/{T1}").status_code in (302, 403)  # participants do not judge

    monkeypatch.setenv("SEPIA_DATABASE_URL", app.config["DATABASE_URL"])
    support = tmp_path / "support.tsv"
    assert CliRunner().invoke(main, ["export", "support", "--out", str(support)]).exit_code == 0
    run = tmp_path / "run.xml"
    assert CliRunner().invoke(main, ["export", "run", "TEAMX-EN-EN-01-T", "--out", str(run)]).exit_code == 0
    result = CliRunner().invoke(main, ["evaluate-support", "--run", str(run), "--support", str(support), "--format", "json"])
    scores = json.loads(result.output)["runs"][0]
    # citations: (s1, d0) 1, (s1, d1) 0.5, (s2, d2) unjudged 0 -> precision 1.5 / 3; sentences 1, 0, 0 (s3 cites nothing)
    assert (scores["precision"], scores["recall"]) == (0.5, 1 / 3)


def test_an_assessor_judges_only_the_citations_assigned_to_them(store_url):
    """Through pools: as1 has rank 1 of the run (depth 1), as2 nothing; the scope is one query on
    either backend."""
    from sepia.store.db import Store

    s = Store(store_url)
    try:
        with s.transaction() as session:
            add_run(session)
            build_pool(session, "rag", "cclqa", 1)
            accounts(session, "as1")
            assign_pool(session, "rag", ["as1"])
        with s.transaction() as session:
            assert [(r.text, r.docid) for r in citations(session, T1, "as1", assigned_only=True)] == [
                ("Coal fuelled it.", SEG[0]), ("Coal fuelled it.", SEG[1])]
            assert citations(session, T1, "as2", assigned_only=True) == []
            assert len(citations(session, T1, "as2")) == 3  # an organiser's view: every citation
    finally:
        s.dispose()


def test_the_screen_shows_an_assessor_their_queue_only(app, web_store):  # noqa: F811
    rows = pooled_for_as1(web_store, 1, "org")
    as1 = browser_for(app, "as1")
    page = as1.get(f"/judge/support/{T1}").get_data(as_text=True)
    assert "citation support · 0 of 2 judged" in page and "Steam too." not in page
    unassigned = {f"support:{rows[2].response_id}:{SEG[2]}": "1"}  # rank 2 is not in as1's queue
    assert as1.post(f"/judge/support/{T1}", unassigned).status_code == 302
    assert "not of a citation of this topic" in as1.get(f"/judge/support/{T1}").get_data(as_text=True)
    as2 = browser_for(app, "as2")
    assert as2.get(f"/judge/support/{T1}").status_code == 404
    assert as2.post(f"/judge/support/{T1}", unassigned).status_code == 404
    org = browser_for(app, "org")
    assert "citation support · 0 of 3 judged" in org.get(f"/judge/support/{T1}").get_data(as_text=True)
    with web_store.transaction() as session:
        assert support_judgments(session) == []


def test_disputes_adjudicated_and_the_official_judgments(store_url):
    """as1 and as2 differ on (s1, d0) and agree on (s1, d1): one dispute; the decision replaces both
    in the official judgments, and agreement is over the assessors' own."""
    from sepia.metaeval.support_agreement import support_agreement
    from sepia.store.db import Store
    from sepia.scoring.adjudication import ADJUDICATED
    from sepia.store.support import TopicSupport, adjudicate_support, support_disputes, support_overview

    s = Store(store_url)
    try:
        with s.transaction() as session:
            add_run(session)
            first, second, _ = citations(session, T1, "as1")
            d0, d1 = (first.response_id, SEG[0]), (second.response_id, SEG[1])
            save_support(session, "as1", {d0: 1.0, d1: 0.0})
            save_support(session, "as2", {d0: 0.5, d1: 0.0})
        with s.transaction() as session:
            [dispute] = support_disputes(session, T1)
            assert (dispute.text, dispute.docid, dispute.by_assessor, dispute.decided) == (
                "Coal fuelled it.", SEG[0], {"as1": 1.0, "as2": 0.5}, None)
            individual = support_judgments(session, individual=True)
            agreement = support_agreement(individual)
            # by hand: counts (none, partial, full) [0,1,1] and [2,0,0]; P = (0 + 1) / 2, Pe = .5² + .25² + .25²
            assert (agreement.pairs, agreement.exact) == (2, 0.5)
            assert abs(agreement.fleiss_kappa - (0.5 - 0.375) / (1 - 0.375)) < 1e-12
            adjudicate_support(session, {d0: 0.5})
        with s.transaction() as session:
            assert support_disputes(session, T1)[0].decided == 0.5
            run = "TEAMX-EN-EN-01-T"
            assert support_judgments(session) == [
                Judgment(T1, run, 1, SEG[0], 0.5, ADJUDICATED), Judgment(T1, run, 1, SEG[1], 0.0, "as1"),
                Judgment(T1, run, 1, SEG[1], 0.0, "as2")]
            assert support_judgments(session, individual=True) == individual
            assert support_overview(session) == [TopicSupport(T1, citations=2, judgments=4, disputed=1, decided=1)]
    finally:
        s.dispose()


def test_an_organiser_decides_a_dispute_in_the_browser(app, web_store, tmp_path, monkeypatch):  # noqa: F811
    rows = pooled_for_as1(web_store, 10, "org")
    with web_store.transaction() as session:
        assign_pool(session, "rag", ["as2"])  # the same items again: their second judgments
        save_support(session, "as1", {(rows[0].response_id, SEG[0]): 1.0, (rows[1].response_id, SEG[1]): 0.5})
        save_support(session, "as2", {(rows[0].response_id, SEG[0]): 0.0, (rows[1].response_id, SEG[1]): 0.5})
    org = browser_for(app, "org")
    assert "Disputes and agreement" in org.get(f"/judge/support/{T1}").get_data(as_text=True)
    page = org.get(f"/judge/support/{T1}/disputes").get_data(as_text=True)
    assert "1 disputed citation(s)" in page and "as1: full, as2: none" in page
    assert "On 2 citation(s) judged by two assessors or more: exact 0.500" in page
    agreed = {f"support:{rows[1].response_id}:{SEG[1]}": "1"}  # not disputed: not the organiser's to decide here
    assert org.post(f"/judge/support/{T1}/disputes", agreed).status_code == 302
    assert "not of a citation of this topic" in org.get(f"/judge/support/{T1}/disputes").get_data(as_text=True)
    decided = org.post(f"/judge/support/{T1}/disputes", {f"support:{rows[0].response_id}:{SEG[0]}": "0.5"})
    assert decided.status_code == 302
    page = org.get(f"/judge/support/{T1}/disputes").get_data(as_text=True)
    assert "Decided 1 disputed citation(s) of RAG2025-EN-1" in page and "decided</span>" in page
    assert browser_for(app, "as1").get(f"/judge/support/{T1}/disputes").status_code == 403
    overview = org.get("/judge/support").get_data(as_text=True)
    assert "1 topic(s) with support judgments" in overview and "exact 0.500" in overview
    assert [cell.strip() for cell in overview.split(f">{T1}</a></td>")[1].split("</tr>")[0].split("</td>")[:4]] == [
        '<td class="num">2', '<td class="num">4', '<td class="num">1', '<td class="num">1']
    assert browser_for(app, "as1").get("/judge/support").status_code == 403

    monkeypatch.setenv("SEPIA_DATABASE_URL", app.config["DATABASE_URL"])
    official, individual = tmp_path / "official.tsv", tmp_path / "individual.tsv"
    assert CliRunner().invoke(main, ["export", "support", "--out", str(official)]).exit_code == 0
    assert CliRunner().invoke(main, ["export", "support", "--individual", "--out", str(individual)]).exit_code == 0
    assert [line.split("\t")[3:] for line in official.read_text().splitlines()[1:]] == [
        [SEG[0], "0.5", "(adjudicated)"], [SEG[1], "0.5", "as1"], [SEG[1], "0.5", "as2"]]
    assert len(individual.read_text().splitlines()) == 5 and "(adjudicated)" not in individual.read_text()


def test_a_second_organiser_deciding_from_an_older_page_is_told(app, web_store):  # noqa: F811
    rows = pooled_for_as1(web_store, 10, "org")
    with web_store.transaction() as session:
        assign_pool(session, "rag", ["as2"])
        save_support(session, "as1", {(rows[0].response_id, SEG[0]): 1.0})
        save_support(session, "as2", {(rows[0].response_id, SEG[0]): 0.0})
    first, second = browser_for(app, "org"), browser_for(app, "org")
    url, field = f"/judge/support/{T1}/disputes", f"support:{rows[0].response_id}:{SEG[0]}"
    seen = [re.search(r'name="seen" value="([^"]*)"', b.get(url).get_data(as_text=True)).group(1) for b in (first, second)]
    assert seen == ["", ""]
    assert first.post(url, {field: "1", "seen": seen[0]}).status_code == 302
    assert second.post(url, {field: "0", "seen": seen[1]}).status_code == 302
    page = second.get(url).get_data(as_text=True)
    assert f"Citations of {T1} were decided by another organiser since you opened this page" in page
    with web_store.transaction() as session:
        assert [j.match for j in support_judgments(session) if j.assessor == "(adjudicated)"] == [1.0]
    now = re.search(r'name="seen" value="([^"]*)"', page).group(1)
    assert now == f"{rows[0].response_id}:{SEG[0]}:1"
    second.post(url, {field: "0", "seen": now})  # from a page showing the decision: changes it
    with web_store.transaction() as session:
        assert [j.match for j in support_judgments(session) if j.assessor == "(adjudicated)"] == [0.0]
