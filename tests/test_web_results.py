"""Results pages: organisers score the stored runs and see the overview's tables (equal to `sepia
evaluate` on the same files), download them as CSV and LaTeX; a team sees only its own runs, and only
after release, beside the mean and the best of the language pair."""
from __future__ import annotations

import csv
import io
import json
import re

from click.testing import CliRunner

from campaign_helpers import move_window, schedule
from web_helpers import browser_for

from sepia.campaign import results
from sepia.cli import main
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.resources import resource_dir
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.judgments import import_judgments
from sepia.store.exchange.runs import import_run
from sepia.store.exchange.topics import import_topics
from sepia.store.models import EvaluationResult, TaskWindow
from sepia.vocab import ANSWER_TYPES

CORPUS = resource_dir("corpora") / "cs"
OWN = "TEAMX-EN-CS-01-T"


def expected(matcher: str, *options: str) -> dict[str, dict]:
    """`sepia evaluate` on the files (with these options): the numbers the pages must show."""
    args = ["evaluate", "--gold", str(CORPUS / "gold.xml"), "--run", str(CORPUS / "runs"), "--matcher", matcher,
            "--format", "json", *options] + (["--judgments", str(CORPUS / "judgments.tsv")] if matcher == "human" else [])
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return {r["run_id"]: r for r in json.loads(result.stdout)["runs"]}


def sample_campaign(app, store):
    """The CS sample: topics and gold in the store, other teams' runs imported, TEAMX's uploaded."""
    with store.transaction() as session:
        import_topics(session, read_file(CORPUS / "topics.xml"))
        import_gold(session, read_file(CORPUS / "gold.xml"))
        for path in sorted((CORPUS / "runs").glob("TEAM[ABC]-*.xml")):
            import_run(session, read_file(path))
    topic_ids = [t.topic_id for t in read_file(CORPUS / "topics.xml").topics]
    set_id = schedule(store, "Formal run", topic_ids, {"cclqa": (-1, 1, None)})
    par = browser_for(app, "par")
    data = (CORPUS / "runs" / f"{OWN}.xml").read_bytes()
    response = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(data), f"{OWN}.xml")},
                               content_type="multipart/form-data")
    assert response.status_code == 302
    par.get(response.headers["Location"])  # the receipt, and its message is read
    with store.transaction() as session:
        import_judgments(session, read_judgments(CORPUS / "judgments.tsv"))
    return set_id, par


def test_organiser_tables_equal_sepia_evaluate_on_the_files(app, web_store):
    sample_campaign(app, web_store)
    org = browser_for(app, "org")
    assert "No scores are stored yet" in org.get("/results/").get_data(as_text=True)
    page = org.post("/results/score", follow_redirects=True).get_data(as_text=True)
    assert "4 CCLQA runs scored (human, automatic (BINARIZED))" in page
    for matcher in ("human", "binarized"):
        files = expected(matcher)
        table = org.get(f"/results/tables/CS-CS-{matcher}.csv").get_data(as_text=True)
        rows = list(csv.reader(io.StringIO(table)))
        assert rows[0][:2] == ["Run", "ALL"] and len(rows) == 4
        for row in rows[1:]:
            assert row[1] == f"{files[row[0]]['score']:.4f}", (matcher, row)
            by_type = files[row[0]]["by_type"]
            assert [v for v in row[2:]] == [f"{by_type[t]:.4f}" for t in sorted(by_type, key=ANSWER_TYPES.index)]
        en_cs = org.get(f"/results/tables/EN-CS-{matcher}.csv").get_data(as_text=True).splitlines()
        assert en_cs[1].startswith(f"{OWN},{files[OWN]['score']:.4f}")
    latex = org.get("/results/tables/CS-CS-human.tex").get_data(as_text=True)
    assert r"\toprule" in latex and r"TEAMA-CS-CS-01-T &" in latex and r"\caption{CS-CS: human F3 (3 runs)}" in latex
    assert r"\caption{EN-CS: human F3 (1 run)}" in org.get("/results/tables/EN-CS-human.tex").get_data(as_text=True)
    counts = org.get("/results/tables/runs-cclqa.csv").get_data(as_text=True).splitlines()
    assert counts == ["Team,EN-CS,CS-CS,All", "TEAMA,0,1,1", "TEAMB,0,1,1", "TEAMC,0,1,1", "TEAMX,1,0,1",
                      "Total,1,3,4"]
    chart = org.get("/results/charts/CS-CS.svg")
    assert chart.mimetype == "image/svg+xml" and b"<svg" in chart.data and b"TEAMA-CS-CS-01-T" in chart.data
    # Each download is made from only what it shows, and is the table the overview shows.
    keys = set(re.findall(r'/results/tables/([^"/]+)\.csv', org.get("/results/").get_data(as_text=True)))
    with web_store.transaction() as session:
        scores = {m: results.load_results(session, m) for m in results.MATCHERS}
        every = [t for s in results.pair_sections(scores) for t in s.tables] + results.runs_by_team(session) + [
            c for m in results.MATCHERS if (c := results.collaboration(session, scores[m], m)) is not None]
        assert keys == {t.key for t in every} and len(keys) == 7
        assert all(results.find_table(session, t.key) == t for t in every)
        assert [results.find_table(session, k) for k in ("CS-CS-other", "runs-x", "JA-JA-human", "")] == [None] * 4
    assert org.get("/results/tables/CS-CS-other.csv").status_code == 404
    # Scoring again replaces the stored scores instead of adding to them.
    before = org.get("/results/tables/CS-CS-human.csv").get_data(as_text=True)
    org.post("/results/score")
    assert org.get("/results/tables/CS-CS-human.csv").get_data(as_text=True) == before
    with web_store.transaction() as session:
        assert session.query(EvaluationResult).filter_by(topic_id=None, matcher="human", measure="F3").count() == 4


def test_the_collaboration_matrix_scores_cclqa_runs_by_their_ir4qa_run(app, web_store):
    sample_campaign(app, web_store)
    org = browser_for(app, "org")
    org.post("/results/score")
    named = {r.metadata.run_id: r.metadata.ir4qa_run_id for r in map(read_file, (CORPUS / "runs").glob("*.xml"))}
    files = expected("binarized")
    matrix = list(csv.reader(io.StringIO(org.get("/results/tables/collaboration-binarized.csv").get_data(as_text=True))))
    teams = matrix[0][1:]
    for row in matrix[1:]:
        for team, cell in zip(teams, row[1:]):
            runs = [r for r, source in named.items() if source == row[0] and r.startswith(team + "-")]
            assert cell == (f"{max(files[r]['score'] for r in runs):.4f}" if runs else ""), (row[0], team)


def test_a_team_sees_its_own_results_only_after_release(app, web_store):
    set_id, par = sample_campaign(app, web_store)
    browser_for(app, "org").post("/results/score")
    page = par.get("/results/mine").get_data(as_text=True)
    assert "No results are released" in page and OWN not in page
    assert par.get("/results/charts/EN-CS.svg").status_code == 404
    move_window(web_store, set_id, "cclqa", -3, -2, -1)
    page = par.get("/results/mine").get_data(as_text=True)
    for matcher in ("human", "binarized"):
        files = expected(matcher)
        assert f'<td class="docid">{OWN}</td><td class="num">{files[OWN]["score"]:.4f}</td>' in page
        cs = [r for r in files.values() if r["run_id"].split("-")[1:3] == ["EN", "CS"]]
        assert f'EN-CS best released run</td><td class="num">{max(r["score"] for r in cs):.4f}</td>' in page
    # the pair's mean and best once per table (one table per matcher), not under every run
    assert page.count("EN-CS mean of the released runs") == 2 and page.count("EN-CS best released run") == 2
    assert "TEAMA-CS-CS-01-T" not in page  # no other team's run IDs
    assert re.search(r"<td class=\"docid\">SEPIA-CS-0001</td>", page)  # per topic
    assert par.get("/results/charts/CS-CS.svg").status_code == 404
    with web_store.transaction() as session:
        session.query(TaskWindow).filter_by(topic_set_id=set_id).update({"publish_full_table": True})
    page = par.get("/results/mine").get_data(as_text=True)
    assert "TEAMA-CS-CS-01-T" in page and par.get("/results/charts/CS-CS.svg").status_code == 200


def test_a_released_dry_run_shows_nothing_of_a_formal_run_still_unreleased(app, web_store, tmp_path):
    """Scores are stored for every run, but a participant sees (in the full table, the charts and the
    pair's mean and best) only runs whose topic sets have released their results."""
    from campaign_helpers import run_xml

    from sepia.store.models import Run

    gold = read_file(CORPUS / "gold.xml")
    with web_store.transaction() as session:
        import_topics(session, read_file(CORPUS / "topics.xml"))
        import_gold(session, gold)
    nuggets = {t.topic_id: [n.text for n in t.nuggets] for t in gold.topics}
    dry, formal = sorted(nuggets)[:3], sorted(nuggets)[3:]
    dry_id = schedule(web_store, "Dry run", dry, {"cclqa": (-1, 1, None)})
    schedule(web_store, "Formal run", formal, {"cclqa": (-1, 1, None)})
    own = run_xml("cclqa", "TEAMX-CS-CS-01-T", {t: nuggets[t][:1] for t in dry})
    par = browser_for(app, "par")
    response = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(own), "own.xml")},
                               content_type="multipart/form-data")
    assert response.status_code == 302
    # the other teams' runs come in as an organiser imports them: TEAMB answers the formal run perfectly
    for run_id, topics, answers in (("TEAMA-CS-CS-01-T", dry, lambda t: ["无关的回答"]),
                                    ("TEAMB-CS-CS-01-T", formal, lambda t: nuggets[t])):
        (tmp_path / f"{run_id}.xml").write_bytes(run_xml("cclqa", run_id, {t: answers(t) for t in topics}))
        with web_store.transaction() as session:
            import_run(session, read_file(tmp_path / f"{run_id}.xml"))
    org = browser_for(app, "org")
    org.post("/results/score")
    assert "TEAMB-CS-CS-01-T" in org.get("/results/").get_data(as_text=True)  # organisers see every run
    move_window(web_store, dry_id, "cclqa", -3, -2, -1)
    with web_store.transaction() as session:
        session.query(TaskWindow).filter_by(topic_set_id=dry_id).update({"publish_full_table": True})
        secret = session.query(EvaluationResult.value).join(Run, Run.id == EvaluationResult.run_id).filter(
            Run.run_id == "TEAMB-CS-CS-01-T", EvaluationResult.topic_id.is_(None),
            EvaluationResult.answer_type.is_(None), EvaluationResult.measure == "F3").scalar()
    page = par.get("/results/mine").get_data(as_text=True)
    assert "TEAMX-CS-CS-01-T" in page and "TEAMA-CS-CS-01-T" in page  # released, and the full table is public
    assert "TEAMB-CS-CS-01-T" not in page and f"{secret:.4f}" not in page  # not in the table, the mean or the best
    chart = par.get("/results/charts/CS-CS.svg")
    assert chart.status_code == 200 and b"TEAMA-CS-CS-01-T" in chart.data and b"TEAMB-CS-CS-01-T" not in chart.data


def cli_json(store, *args) -> dict:
    """A `--store` command on the web tool's store, without saving: the numbers the pages must show."""
    result = CliRunner(env={"SEPIA_DATABASE_URL": str(store.engine.url)}).invoke(
        main, [*args, "--no-save", "--format", "json"])
    assert result.exit_code == 0, result.output
    return {r["run_id"]: r for r in json.loads(result.stdout)["runs"]}


def ir4qa_and_qa_campaign(app, store, tmp_path):
    """The CS sample's topics, qrels and TEAMA's IR4QA and QA runs imported; TEAMX uploads its own
    IR4QA and QA runs in open windows."""
    from campaign_helpers import run_xml

    from sepia.ir4qa.qrels import read_qrels_rows
    from sepia.store.relevance import import_qrels

    with store.transaction() as session:
        import_topics(session, read_file(CORPUS / "topics.xml"))
        import_qrels(session, read_qrels_rows(CORPUS / "qrels.tsv"))
        import_run(session, read_file(CORPUS / "ir4qa" / "TEAMA-CS-CS-01-T.xml"))
        import_run(session, read_file(CORPUS / "qa" / "TEAMA-CS-CS-01-T.xml"))
    topics = read_file(CORPUS / "topics.xml").topics
    set_id = schedule(store, "Formal run", [t.topic_id for t in topics], {"qa": (-1, 1, None), "ir4qa": (-1, 1, None)})
    relevant = [line.split("\t")[1] for line in (CORPUS / "qrels.tsv").read_text().splitlines()[1:]]
    par = browser_for(app, "par")
    own = {"ir4qa": run_xml("ir4qa", "TEAMX-CS-CS-01-T", {t.topic_id: relevant[::-3][:5] for t in topics[:4]}),
           "qa": run_xml("qa", "TEAMX-CS-CS-01-T", {t.topic_id: ["DEFINITION"] for t in topics})}
    for kind, data in own.items():
        response = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(data), f"{kind}.xml")},
                                   content_type="multipart/form-data")
        assert response.status_code == 302, response.get_data(as_text=True)
        par.get(response.headers["Location"])
    return set_id, par


def csv_rows(browser, key: str) -> list[list[str]]:
    response = browser.get(f"/results/tables/{key}.csv")
    assert response.status_code == 200, key
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def test_ir4qa_and_qa_scored_from_the_results_page_equal_the_store_commands(app, web_store, tmp_path):
    ir4qa_and_qa_campaign(app, web_store, tmp_path)
    org = browser_for(app, "org")
    bad = org.post("/results/score", data={"measures": "AP,Nope@3"}, follow_redirects=True).get_data(as_text=True)
    assert "Nothing scored" in bad and "Nope" in bad
    with web_store.transaction() as session:
        assert session.query(EvaluationResult).count() == 0
    old = org.post("/results/score", data={"measures": "AP,Q"}, follow_redirects=True).get_data(as_text=True)
    assert "Nothing scored: unknown measure &#39;Q&#39;: NTCIREVAL&#39;s Q-measure is ntcir:Q" in old
    ndcg = org.post("/results/score", data={"measures": "nDCG@10"}, follow_redirects=True).get_data(as_text=True)
    assert "Note: nDCG@10 is ir_measures&#39; (rank r divided by log2(r + 1)); NTCIREVAL&#39;s original nDCG" in ndcg
    page = org.post("/results/score", data={"measures": "P@10, ntcir:nERR@10", "gains": ""},
                    follow_redirects=True).get_data(as_text=True)
    assert "Note: " not in page
    assert "2 IR4QA runs scored (AP, ntcir:Q, ntcir:nDCG, P@10, ntcir:nERR@10; gains 1:2)" in page
    assert "2 Question Analysis runs scored" in page
    assert "CCLQA runs scored" not in page and "CCLQA: nothing scored" not in page  # no CCLQA run is stored
    ir4qa = cli_json(web_store, "evaluate-ir4qa", "--store", "--measures", "AP,ntcir:Q,ntcir:nDCG,P@10,ntcir:nERR@10")
    rows = csv_rows(org, "CS-CS-ir4qa")
    assert rows[0] == ["Run", "AP", "ntcir:Q", "ntcir:nDCG", "P@10", "ntcir:nERR@10"]
    assert [r[0] for r in rows[1:]] == list(ir4qa)  # ranked as the command ranks
    for row in rows[1:]:
        assert row[1:] == [f"{ir4qa[row[0]][m]:.4f}" for m in rows[0][1:]], row
    qa = cli_json(web_store, "evaluate-qa", "--store")
    rows = csv_rows(org, "CS-CS-qa")
    assert rows[0][:2] == ["Run", "Accuracy"] and rows[0][-2:] == ["KT recall", "KT precision"]
    assert [r[0] for r in rows[1:]] == list(qa)
    for row in rows[1:]:
        expected_row = [qa[row[0]]["accuracy"], *(qa[row[0]]["by_type"].get(t) for t in ANSWER_TYPES
                                                  if t[:3] in rows[0][2:-2]),
                        qa[row[0]]["key_term_recall"], qa[row[0]]["key_term_precision"]]
        assert row[1:] == ["" if v is None else f"{v:.4f}" for v in expected_row], row
    latex = org.get("/results/tables/CS-CS-ir4qa.tex").get_data(as_text=True)
    assert r"\caption{CS-CS: IR4QA (2 runs)}" in latex and "nERR@10" in latex
    overview = org.get("/results/").get_data(as_text=True)
    assert 'value="AP,ntcir:Q,ntcir:nDCG,P@10,ntcir:nERR@10"' in overview  # the organiser's choice is kept
    for task in ("ir4qa", "qa"):
        assert f"/results/charts/{task}/CS-CS.svg" in overview and f"/results/tables/CS-CS-{task}.csv" in overview
        chart = org.get(f"/results/charts/{task}/CS-CS.svg")
        assert chart.status_code == 200 and b"TEAMX-CS-CS-01-T" in chart.data
        # matplotlib's inline styles may apply when the SVG is opened on its own; nothing may run
        policy = chart.headers["Content-Security-Policy"]
        assert "style-src 'unsafe-inline'" in policy and "default-src 'none'" in policy and "script" not in policy
    assert org.get("/results/charts/nope/CS-CS.svg").status_code == 404
    assert org.get("/results/charts/ir4qa/JA-JA.svg").status_code == 404
    # the command, saving, stores the same numbers under the same settings: the page does not change
    before = csv_rows(org, "CS-CS-ir4qa")
    result = CliRunner(env={"SEPIA_DATABASE_URL": str(web_store.engine.url)}).invoke(
        main, ["evaluate-ir4qa", "--store", "--measures", "P@10,ntcir:nERR@10"])
    assert result.exit_code == 0 and csv_rows(org, "CS-CS-ir4qa") == before


def test_a_team_sees_its_ir4qa_and_qa_results_after_each_tasks_release(app, web_store, tmp_path):
    set_id, par = ir4qa_and_qa_campaign(app, web_store, tmp_path)
    org = browser_for(app, "org")
    org.post("/results/score", data={"measures": "AP,ntcir:Q,ntcir:nDCG"})
    page = par.get("/results/mine").get_data(as_text=True)
    assert "No results are released" in page and "TEAMX-CS-CS-01-T" not in page
    assert par.get("/results/charts/ir4qa/CS-CS.svg").status_code == 404
    move_window(web_store, set_id, "ir4qa", -3, -2, -1)  # IR4QA released, QA not yet
    ir4qa = cli_json(web_store, "evaluate-ir4qa", "--store")
    page = par.get("/results/mine").get_data(as_text=True)
    own = ir4qa["TEAMX-CS-CS-01-T"]
    assert 'id="mine-ir4qa"' in page and 'id="mine-qa"' not in page
    assert (f'<td class="docid">TEAMX-CS-CS-01-T</td><td class="num">{own["AP"]:.4f}</td>'
            f'<td class="num">{own["ntcir:Q"]:.4f}</td><td class="num">{own["ntcir:nDCG"]:.4f}</td>') in page
    mean_q = sum(r["ntcir:Q"] for r in ir4qa.values()) / len(ir4qa)
    assert f'<td class="num">{mean_q:.4f}</td>' in page.split("CS-CS mean of the released runs")[1][:200]
    assert "TEAMA-CS-CS-01-T" not in page  # no other team's run IDs
    assert re.search(r'<td class="docid">SEPIA-CS-0001</td>', page)  # per topic
    assert par.get("/results/charts/ir4qa/CS-CS.svg").status_code == 404  # the full table is not public
    with web_store.transaction() as session:
        session.query(TaskWindow).filter_by(topic_set_id=set_id, task="ir4qa").update({"publish_full_table": True})
    page = par.get("/results/mine").get_data(as_text=True)
    assert "TEAMA-CS-CS-01-T" in page and par.get("/results/charts/ir4qa/CS-CS.svg").status_code == 200
    assert par.get("/results/charts/qa/CS-CS.svg").status_code == 404
    move_window(web_store, set_id, "qa", -3, -2, -1)
    page = par.get("/results/mine").get_data(as_text=True)
    qa = cli_json(web_store, "evaluate-qa", "--store")["TEAMX-CS-CS-01-T"]
    assert 'id="mine-qa"' in page and f'<td class="num">{qa["accuracy"]:.4f}</td>' in page
