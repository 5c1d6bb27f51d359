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
from web_helpers import app, browser_for, store  # noqa: F401  (fixtures)

from sepia.campaign import results
from sepia.cli import main
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.resources import resource_dir
from sepia.store import io as store_io
from sepia.store.models import EvaluationResult, TaskWindow
from sepia.vocab import ANSWER_TYPES

CORPUS = resource_dir("corpora") / "cs"
OWN = "TEAMX-EN-CS-01-T"


def expected(matcher: str) -> dict[str, dict]:
    """`sepia evaluate` on the files: the numbers the pages must show."""
    args = ["evaluate", "--gold", str(CORPUS / "gold.xml"), "--run", str(CORPUS / "runs"), "--matcher", matcher,
            "--format", "json"] + (["--judgments", str(CORPUS / "judgments.tsv")] if matcher == "human" else [])
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return {r["run_id"]: r for r in json.loads(result.stdout)["runs"]}


def sample_campaign(app, store):
    """The CS sample: topics and gold in the store, other teams' runs imported, TEAMX's uploaded."""
    with store.transaction() as session:
        store_io.import_topics(session, read_file(CORPUS / "topics.xml"))
        store_io.import_gold(session, read_file(CORPUS / "gold.xml"))
        for path in sorted((CORPUS / "runs").glob("TEAM[ABC]-*.xml")):
            store_io.import_run(session, read_file(path))
    topic_ids = [t.topic_id for t in read_file(CORPUS / "topics.xml").topics]
    set_id = schedule(store, "Formal run", topic_ids, {"cclqa": (-1, 1, None)})
    par = browser_for(app, "par")
    data = (CORPUS / "runs" / f"{OWN}.xml").read_bytes()
    response = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(data), f"{OWN}.xml")},
                               content_type="multipart/form-data")
    assert response.status_code == 302
    par.get(response.headers["Location"])  # the receipt, and its message is read
    with store.transaction() as session:
        store_io.import_judgments(session, read_judgments(CORPUS / "judgments.tsv"))
    return set_id, par


def test_organiser_tables_equal_sepia_evaluate_on_the_files(app, store):
    sample_campaign(app, store)
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
    with store.transaction() as session:
        scores = {m: results.load_results(session, m) for m in results.MATCHERS}
        every = [t for s in results.pair_sections(scores) for t in s.tables] + results.runs_by_team(session) + [
            results.collaboration(session, scores[m], m) for m in results.MATCHERS]
        assert keys == {t.key for t in every} and len(keys) == 7
        assert all(results.find_table(session, t.key) == t for t in every)
        assert [results.find_table(session, k) for k in ("CS-CS-other", "runs-x", "JA-JA-human", "")] == [None] * 4
    assert org.get("/results/tables/CS-CS-other.csv").status_code == 404
    # Scoring again replaces the stored scores instead of adding to them.
    before = org.get("/results/tables/CS-CS-human.csv").get_data(as_text=True)
    org.post("/results/score")
    assert org.get("/results/tables/CS-CS-human.csv").get_data(as_text=True) == before
    with store.transaction() as session:
        assert session.query(EvaluationResult).filter_by(topic_id=None, matcher="human").count() == 4


def test_the_collaboration_matrix_scores_cclqa_runs_by_their_ir4qa_run(app, store):
    sample_campaign(app, store)
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


def test_a_team_sees_its_own_results_only_after_release(app, store):
    set_id, par = sample_campaign(app, store)
    browser_for(app, "org").post("/results/score")
    page = par.get("/results/mine").get_data(as_text=True)
    assert "No results are released" in page and OWN not in page
    assert par.get("/results/charts/EN-CS.svg").status_code == 404
    move_window(store, set_id, "cclqa", -3, -2, -1)
    page = par.get("/results/mine").get_data(as_text=True)
    for matcher in ("human", "binarized"):
        files = expected(matcher)
        assert f"<strong>{files[OWN]['score']:.4f}</strong>" in page
        cs = [r for r in files.values() if r["run_id"].split("-")[1:3] == ["EN", "CS"]]
        assert f"{max(r['score'] for r in cs):.4f}" in page
    assert "TEAMA-CS-CS-01-T" not in page  # no other team's run IDs
    assert re.search(r"<td class=\"docid\">SEPIA-CS-0001</td>", page)  # per topic
    assert par.get("/results/charts/CS-CS.svg").status_code == 404
    with store.transaction() as session:
        session.query(TaskWindow).filter_by(topic_set_id=set_id).update({"publish_full_table": True})
    page = par.get("/results/mine").get_data(as_text=True)
    assert "TEAMA-CS-CS-01-T" in page and par.get("/results/charts/CS-CS.svg").status_code == 200


def test_a_released_dry_run_shows_nothing_of_a_formal_run_still_unreleased(app, store, tmp_path):
    """Scores are stored for every run, but a participant sees (in the full table, the charts and the
    pair's mean and best) only runs whose topic sets have released their results."""
    from campaign_helpers import run_xml

    from sepia.store.models import Run

    gold = read_file(CORPUS / "gold.xml")
    with store.transaction() as session:
        store_io.import_topics(session, read_file(CORPUS / "topics.xml"))
        store_io.import_gold(session, gold)
    nuggets = {t.topic_id: [n.text for n in t.nuggets] for t in gold.topics}
    dry, formal = sorted(nuggets)[:3], sorted(nuggets)[3:]
    dry_id = schedule(store, "Dry run", dry, {"cclqa": (-1, 1, None)})
    schedule(store, "Formal run", formal, {"cclqa": (-1, 1, None)})
    own = run_xml("cclqa", "TEAMX-CS-CS-01-T", {t: nuggets[t][:1] for t in dry})
    par = browser_for(app, "par")
    response = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(own), "own.xml")},
                               content_type="multipart/form-data")
    assert response.status_code == 302
    # the other teams' runs come in as an organiser imports them: TEAMB answers the formal run perfectly
    for run_id, topics, answers in (("TEAMA-CS-CS-01-T", dry, lambda t: ["无关的回答"]),
                                    ("TEAMB-CS-CS-01-T", formal, lambda t: nuggets[t])):
        (tmp_path / f"{run_id}.xml").write_bytes(run_xml("cclqa", run_id, {t: answers(t) for t in topics}))
        with store.transaction() as session:
            store_io.import_run(session, read_file(tmp_path / f"{run_id}.xml"))
    org = browser_for(app, "org")
    org.post("/results/score")
    assert "TEAMB-CS-CS-01-T" in org.get("/results/").get_data(as_text=True)  # organisers see every run
    move_window(store, dry_id, "cclqa", -3, -2, -1)
    with store.transaction() as session:
        session.query(TaskWindow).filter_by(topic_set_id=dry_id).update({"publish_full_table": True})
        secret = session.query(EvaluationResult.value).join(Run, Run.id == EvaluationResult.run_id).filter(
            Run.run_id == "TEAMB-CS-CS-01-T", EvaluationResult.topic_id.is_(None),
            EvaluationResult.answer_type.is_(None)).scalar()
    page = par.get("/results/mine").get_data(as_text=True)
    assert "TEAMX-CS-CS-01-T" in page and "TEAMA-CS-CS-01-T" in page  # released, and the full table is public
    assert "TEAMB-CS-CS-01-T" not in page and f"{secret:.4f}" not in page  # not in the table, the mean or the best
    chart = par.get("/results/charts/CS-CS.svg")
    assert chart.status_code == 200 and b"TEAMA-CS-CS-01-T" in chart.data and b"TEAMB-CS-CS-01-T" not in chart.data
