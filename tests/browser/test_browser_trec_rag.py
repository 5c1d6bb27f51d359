"""A TREC RAG-shaped campaign end to end in a real browser: the track's topics (JSONL) converted and
imported, a small MS MARCO v2.1-shaped segment collection (gzipped shards) added and searched in the
topic screen, three AG answer files converted (a broken one refused with its lines) and uploaded by a
team, pooled and judged sentence by sentence with their citations as links to the segments, scored,
and the judgments exported to nuggetizer, whose metrics give SEPIA's four scores.
Screenshots go to test-artifacts/rag-*.png."""
from __future__ import annotations

import gzip
import json
from collections import defaultdict

import pytest
from click.testing import CliRunner
from nuggetizer.core.metrics import calculate_global_metrics

from conftest import LiveServer, accounts_app, log_in, shoot, switch_user

from campaign_helpers import schedule
from sepia.cli import main
from sepia.convert.nuggetizer_export import assignments
from sepia.formats import model
from sepia.formats.read import read_file
from sepia.scoring.evaluate import evaluate_runs
from sepia.services.documents import ingest
from sepia.store.exchange.gold import export_gold, import_gold
from sepia.store.exchange.judgments import export_judgments
from sepia.store.exchange.runs import export_run
from sepia.store.exchange.topics import import_topics
from sepia.store.pools import assign_pool, build_pool
from sepia.store.support import citations, save_support

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TOPICS = [{"id": "1", "title": "I want to understand vicarious trauma. Who suffers it and how do counsellors cope?"},
          {"id": "2", "title": "How did steam engines change textile mills? What happened to the workers?"},
          {"id": "3", "title": "Why are glaciers retreating? Explain the role of warmer summers."}]
NUGGETS = {"1": [("counsellors suffer vicarious trauma", True), ("supervision helps counsellors cope", False)],
           "2": [("steam engines powered textile mills", True)],
           "3": [("warmer summers melt glaciers", True)]}
PASSAGES = ["Vicarious trauma affects counsellors who hear their clients' stories.",
            "Regular supervision helps counsellors cope with vicarious trauma.",
            "Steam engines powered the first textile mills and moved workers into towns.",
            "Glaciers retreat as warmer summers melt more ice than winters bring."]


def segment_id(i: int) -> str:
    return f"msmarco_v2.1_doc_{i % 2:02d}_{1000 + i}#{i % 3}_{17 * i}"


def write_segments(folder):
    folder.mkdir()
    for shard in range(2):
        with gzip.open(folder / f"msmarco_v2.1_doc_segmented_{shard:02d}.json.gz", "wt", encoding="utf-8") as f:
            for i in range(shard, 12, 2):
                text = PASSAGES[i % len(PASSAGES)] + f" (part {i})"
                f.write(json.dumps({"docid": segment_id(i), "url": f"https://example.org/{i}", "title": f"Page {i}",
                                    "headings": f"Page {i}\n", "segment": text, "start_char": 0,
                                    "end_char": len(text)}) + "\n")


def answer_file(path, run_id, sentences_by_topic):
    refs = [segment_id(i) for i in range(12)]
    rows = [{"metadata": {"team_id": "team-x", "run_id": run_id, "type": "automatic", "narrative_id": qid,
                          "narrative": next((t["title"] for t in TOPICS if t["id"] == qid), "")},
             "references": refs, "answer": [{"text": text, "citations": cites} for text, cites in sentences]}
            for qid, sentences in sentences_by_topic.items()]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


RUNS = {  # priority -> answers by topic: (sentence, citation indices into the references)
    1: {"1": [("Counsellors suffer vicarious trauma from their clients' stories.", [0]),
              ("Supervision helps counsellors cope.", [1, 5])],
        "2": [("Steam engines powered textile mills.", [2])], "3": [("Warmer summers melt glaciers.", [3])]},
    2: {"1": [("Counsellors suffer vicarious trauma from their clients' stories.", [4])],
        "2": [("Mills used water wheels.", [])]},
    3: {"1": [("Vicarious trauma is a kind of stress.", [8])], "3": [("Glaciers grow in winter.", [7])]},
}


@pytest.fixture
def site(tmp_path):
    from sepia.search import open_engine
    from sepia.services.indexing import build_index

    app = accounts_app(tmp_path, "rag")
    store = app.extensions["sepia_store"]
    write_segments(tmp_path / "segments")
    assert ingest(store, "EN", [tmp_path / "segments"], progress=False).ok
    build_index(store, "EN", index_dir=tmp_path / "index", rebuild=True, procs=1, progress=False)
    app.config["SEARCH_ENGINE"] = open_engine(tmp_path / "index")
    app.config["TEST_URL"] = app.config["DATABASE_URL"]
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def test_a_trec_rag_campaign(chromium, site, tmp_path):
    def shot(page, name):
        shoot(page, f"rag-{name}.png", full_page=True)

    store = site.app.extensions["sepia_store"]
    cli = CliRunner()
    # The organiser converts the track's topics and imports them with their nuggets.
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(t) + "\n" for t in TOPICS), encoding="utf-8")
    result = cli.invoke(main, ["convert", "rag-topics", str(tmp_path / "queries.jsonl"), "--year", "2025",
                               "--out", str(tmp_path / "rag25")])
    assert result.exit_code == 0, result.output
    topic_ids = {t["id"]: f"RAG2025-EN-{t['id']}" for t in TOPICS}
    gold = model.GoldStandard("EN", [model.GoldTopic(topic_ids[qid], "OTHER", [model.LangText("EN", "q")], [
        model.GoldNugget(f"N{i + 1:02d}", text, votes=[("as1", vital), ("as2", vital)])
        for i, (text, vital) in enumerate(nuggets)]) for qid, nuggets in NUGGETS.items()])
    with store.transaction() as session:
        import_topics(session, read_file(tmp_path / "rag25" / "topics.xml"))
        import_gold(session, gold)
    schedule(store, "TREC RAG 2025", list(topic_ids.values()), {"cclqa": (-1, 2, None)})

    # A topic developer searches the segment collection from the topic screen.
    dev = log_in(chromium, site, "dev")
    dev.goto(f"{site.url}/topics/RAG2025-EN-1")
    dev.fill("#query", "vicarious trauma")
    dev.keyboard.press("Enter")
    dev.wait_for_selector(".hit")
    hits = dev.locator(".hit").all_inner_texts()
    assert any(segment_id(0) in h for h in hits), hits
    shot(dev, "search")
    dev.locator(".hit-title").first.click()
    dev.wait_for_selector("#document:not([hidden])")
    assert "#" in dev.inner_text("#doc-docid") and "Vicarious trauma" in dev.inner_text("#doc-text")
    shot(dev, "segment")

    # The team converts its three AG files (a broken one first: refused line by line) and uploads them.
    broken = answer_file(tmp_path / "broken.jsonl", "x", {"1": [("Cites nothing real.", [40])], "9": [("?", [])]})
    result = cli.invoke(main, ["convert", "rag-answers", str(broken), "--topics-map", str(tmp_path / "rag25" / "topics.tsv"),
                               "--out", str(tmp_path / "broken.xml")])
    assert result.exit_code == 1 and not (tmp_path / "broken.xml").exists()
    assert f"{broken}:1:1: answer sentence 0: citation 40 is not an index into the 12 references" in result.output
    assert f"{broken}:2:1: topic '9' is not among the campaign's topics (topics.tsv)" in result.output
    par = switch_user(dev, site, "par")  # one browser, each role logged in in turn
    for priority, answers in RUNS.items():
        source = answer_file(tmp_path / f"ag{priority}.jsonl", f"team-x-run-{priority}", answers)
        run_path = tmp_path / f"TEAMX-EN-EN-0{priority}-T.xml"
        result = cli.invoke(main, ["convert", "rag-answers", str(source), "--topics-map", str(tmp_path / "rag25" / "topics.tsv"),
                                   "--team", "TEAMX", "--priority", str(priority), "--out", str(run_path)])
        assert result.exit_code == 0, result.output
        par.goto(f"{site.url}/me")
        par.set_input_files("input[name=run]", str(run_path))
        with par.expect_navigation():
            par.get_by_role("button", name="Upload and check").click()
        assert "Receipt" in par.locator("h1").inner_text(), par.locator("main").inner_text()
    shot(par, "receipt")

    # The organiser pools the three runs; an assessor judges topic 1's sentences, citations in view.
    with store.transaction() as session:
        build_pool(session, "rag", "cclqa", 10)
        assign_pool(session, "rag", ["as1"])
    judge = switch_user(par, site, "as1")
    judge.goto(f"{site.url}/judge/1/RAG2025-EN-1")
    cites = judge.locator("a.docid").all_inner_texts()
    assert cites and all("#" in c for c in cites), cites
    shot(judge, "judging")
    with judge.expect_popup() as popup:  # a citation opens its segment
        judge.locator("a.docid").first.click()
    segment = popup.value
    segment.wait_for_load_state()
    assert cites[0] in segment.locator("main").inner_text()
    assert any(p.split(".")[0] in segment.locator("main").inner_text() for p in PASSAGES)
    shot(segment, "cited-segment")
    segment.close()
    judged = 0
    while judge.locator("blockquote.response").count():  # each distinct sentence of topic 1 once
        judged += 1
        response = judge.locator("blockquote.response").inner_text()
        keys = [digit for digit, word in (("1", "suffer"), ("2", "Supervision")) if word in response]
        for key in keys:
            judge.keyboard.press(key)
        with judge.expect_navigation():
            judge.keyboard.press("Enter" if keys else "n")
    assert judged == 3  # run 2's sentence is run 1's first: one item, judged once
    assert "Every item of this topic in your queue is judged" in judge.locator("main").inner_text()

    # Citation support: the assessor says of each sentence of topic 1 whether its segments support it.
    judge.goto(f"{site.url}/judge/1/RAG2025-EN-2")
    with judge.expect_navigation():
        judge.get_by_role("link", name="citation support").click()  # from the judging screen
    assert judge.url.endswith("/judge/support/RAG2025-EN-2") and judge.locator("table.support tbody tr").count() == 1
    judge.goto(f"{site.url}/judge/support/RAG2025-EN-1")
    rows = judge.locator("table.support tbody tr")
    assert rows.count() == 5  # run 1: 1 + 2 citations, run 2: 1, run 3: 1 (support is judged per run's citation)
    judge.keyboard.press("?")  # the keys are listed with the others
    assert "full, partial, no support for the marked citation" in judge.locator("#shortcuts").inner_text()
    judge.keyboard.press("Escape")
    for i in range(rows.count()):  # by keys: each one judges the marked citation and marks the next
        assert "current" in rows.nth(i).get_attribute("class")
        sentence = rows.nth(i).locator("td").first.inner_text()
        judge.keyboard.press("p" if "stress" in sentence else "f")
        if i == 0:
            judge.keyboard.press("k")  # back to the first: it is partial or full, as just said
            assert rows.nth(0).locator("input:checked").count() == 1
            judge.keyboard.press("j")
    shot(judge, "support")
    with judge.expect_navigation():
        judge.keyboard.press("Enter")
    assert "All 5 citations of RAG2025-EN-1 judged." in judge.locator("#flashes").inner_text()

    # A second assessor differs on the first citation; the organiser decides it (as1's full stands).
    with store.transaction() as session:
        first = citations(session, "RAG2025-EN-1", "as1")[0]
        save_support(session, "as2", {(first.response_id, first.docid): 0.0})
    org = switch_user(judge, site, "org")
    org.goto(f"{site.url}/judge/support/RAG2025-EN-1")
    with org.expect_navigation():
        org.get_by_role("link", name="Disputes and agreement").click()
    assert "1 disputed citation(s)" in org.locator("main").inner_text()
    assert "On 1 citation(s) judged by two assessors or more: exact 0.000" in org.locator("main").inner_text()
    org.locator("#dispute-1").get_by_label("full").check()
    with org.expect_navigation():
        org.get_by_role("button", name="Save the decisions").click()
    assert "now the official ones" in org.locator("#flashes").inner_text()
    shot(org, "support-disputes")
    with org.expect_navigation():
        org.get_by_role("link", name="All topics").click()
    assert org.locator("#support-topics tbody tr").count() == 1  # topic 1: 5 citations judged, 1 disputed, decided
    assert org.locator("#support-topics tbody tr td").all_inner_texts()[1:5] == ["5", "6", "1", "1"]
    shot(org, "support-overview")

    # Scores from the store, and the export nuggetizer reads: the same four numbers.
    env = {"SEPIA_DATABASE_URL": site.app.config["TEST_URL"]}
    assert cli.invoke(main, ["export", "support", "--out", str(tmp_path / "support.tsv")], env=env).exit_code == 0
    for p in RUNS:
        assert cli.invoke(main, ["export", "run", f"TEAMX-EN-EN-0{p}-T", "--out", str(tmp_path / f"r{p}.xml")],
                          env=env).exit_code == 0
    result = cli.invoke(main, ["evaluate-support", "--support", str(tmp_path / "support.tsv"), "--format", "json",
                               *[arg for p in RUNS for arg in ("--run", str(tmp_path / f"r{p}.xml"))]])
    support_scores = {r["run_id"]: (r["precision"], r["recall"]) for r in json.loads(result.output)["runs"]}
    # run 3, topic 1: its one citation partial (0.5, 0.5); topic 3 unjudged (0, 0): means 0.25, 0.25
    assert support_scores["TEAMX-EN-EN-03-T"] == (0.25, 0.25)
    result = cli.invoke(main, ["evaluate", "--store", "--matcher", "human", "--measures", "nuggetizer",
                               "--format", "json", "--no-save"], env=env)
    assert result.exit_code == 0, result.output
    printed = {r["run_id"]: r["nuggetizer"]["answered_topics"] for r in json.loads(result.stdout)["runs"]}
    with store.transaction() as session:
        gold = export_gold(session, "EN")
        runs = [export_run(session, f"TEAMX-EN-EN-0{p}-T") for p in RUNS]
        judgments = export_judgments(session)
    records = defaultdict(list)
    for record in assignments(gold, runs, judgments):
        records[record["run_id"]].append(record)
    assert printed.keys() == records.keys() == {f"TEAMX-EN-EN-0{p}-T" for p in RUNS}
    for run_id, means in printed.items():
        theirs = calculate_global_metrics(records[run_id])
        assert {m: theirs[f"{m}_score"] for m in means} == means
    # Run 1 on topic 1: both nuggets supported; topics 2 and 3 are unjudged (no support).
    assert printed["TEAMX-EN-EN-01-T"]["strict_all"] == pytest.approx((1 + 0 + 0) / 3)
    assert evaluate_runs(gold, runs, matcher="human", judgments=judgments)[0].topics[0].recall == 1.0
