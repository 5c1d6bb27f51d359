"""The organiser's results page under other matcher settings: the matchers and their options offered
are the registry's descriptors; scoring with numbers strict from the web gives what `sepia evaluate
--numbers strict` gives on the same files, and the default scores stay as they were."""
from __future__ import annotations

import re

from campaign_helpers import move_window
from web_helpers import browser_for

from test_web_results import OWN, expected, sample_campaign
from sepia import matchers
from sepia.store.models import EvaluationResult


def rows(page: str, title: str = " F3 (") -> dict[str, list[str]] | dict[str, str]:
    """Run ID -> ALL of the chosen settings' F3 tables (with another `title`: every cell of those tables)."""
    found: dict = {}
    for block in page.split('id="chosen"', 1)[1].split("<h3>")[1:]:
        if title in block.split("</h3>", 1)[0]:
            for run, cells in re.findall(r'<tr[^>]*><td class="docid">([^<]+)</td>(.*?)</tr>', block):
                values = re.findall(r'<td class="num">([^<]*)</td>', cells)
                found[run] = values[0] if title == " F3 (" else values
    return found


def test_the_page_offers_every_registered_matcher_with_its_options(app, web_store):
    org = browser_for(app, "org")
    overview = org.get("/results/").get_data(as_text=True)
    assert 'href="/results/settings"' in overview and 'href="/results/support"' in overview
    page = org.get("/results/settings").get_data(as_text=True)
    offered = re.findall(r'id="settings-([a-z_]+)"', page)
    assert offered == [n for n in matchers.names() if not matchers.kind(n).opt_in] and "llm" not in offered
    for name in offered:
        form = page.split(f'id="settings-{name}"', 1)[1].split("</form>", 1)[0]
        fields = set(re.findall(r'name="(theta|numbers|partial|as_set)"', form))
        assert fields == set(matchers.kind(name).options) & {"theta", "numbers", "partial", "as_set"}, name
    assert {"binarized", "softmatch", "human", "exact"} <= set(offered)
    assert browser_for(app, "par").get("/results/settings").status_code in (302, 403)


def test_numbers_strict_scored_from_the_web_equals_sepia_evaluate(app, web_store):
    sample_campaign(app, web_store)
    org = browser_for(app, "org")
    chosen = {"matcher": "binarized", "theta": "0.5", "numbers": "strict"}
    page = org.post("/results/settings", data={**chosen, "action": "show"}, follow_redirects=True).get_data(as_text=True)
    assert "No scores are stored under these settings" in page
    page = org.post("/results/settings", data={**chosen, "action": "score"}, follow_redirects=True).get_data(as_text=True)
    assert "4 CCLQA runs scored (automatic (BINARIZED), θ 0.5, numbers strict)" in page
    strict, lenient = expected("binarized", "--numbers", "strict"), expected("binarized")
    shown = rows(page)
    assert shown == {run: f"{strict[run]['score']:.4f}" for run in strict}
    # TREC RAG's four scores beside F3, over every topic and over the answered ones, as `--measures nuggetizer`
    rag = expected("binarized", "--numbers", "strict", "--measures", "nuggetizer")
    assert rows(page, "TREC RAG") == {run: [f"{r['nuggetizer'][over][m]:.4f}" for over in ("all_topics", "answered_topics")
                                            for m in ("strict_vital", "vital", "strict_all", "all")]
                                      for run, r in rag.items()}
    # the sample's wrong numbers: strict takes credit away that the default gives
    assert all(strict[r]["score"] <= lenient[r]["score"] for r in strict)
    assert strict[OWN]["score"] < lenient[OWN]["score"]
    # The default settings' scores are untouched; both are stored, each under its own settings.
    org.post("/results/score")
    page = org.get("/results/settings", query_string=chosen).get_data(as_text=True)
    assert rows(page) == shown
    default = org.get("/results/settings", query_string={"matcher": "binarized"}).get_data(as_text=True)
    assert rows(default) == {run: f"{lenient[run]['score']:.4f}" for run in lenient}
    assert org.get("/results/tables/EN-CS-binarized.csv").get_data(as_text=True).splitlines()[1].startswith(
        f"{OWN},{lenient[OWN]['score']:.4f}")
    with web_store.transaction() as session:
        assert session.query(EvaluationResult).filter_by(topic_id=None, matcher="binarized", measure="F3").count() == 8


def test_partial_credit_and_softmatch_from_the_web(app, web_store):
    sample_campaign(app, web_store)
    org = browser_for(app, "org")
    page = org.post("/results/settings", data={"matcher": "human", "partial": "1", "action": "score"},
                    follow_redirects=True).get_data(as_text=True)
    files = expected("human", "--partial", "1")
    assert rows(page) == {run: f"{files[run]['score']:.4f}" for run in files}
    page = org.post("/results/settings", data={"matcher": "softmatch", "as_set": "1", "action": "score"},
                    follow_redirects=True).get_data(as_text=True)
    files = expected("softmatch", "--set")
    assert "tokens as a set" in page and rows(page) == {run: f"{files[run]['score']:.4f}" for run in files}


def test_bad_settings_score_nothing(app, web_store):
    sample_campaign(app, web_store)
    org = browser_for(app, "org")
    for data, message in (({"matcher": "binarized", "theta": "2"}, "θ must be between 0 and 1"),
                          ({"matcher": "binarized", "numbers": "loose"}, "numbers must be one of lenient, strict"),
                          ({"matcher": "llm"}, "choose one of the matchers"),
                          ({"matcher": "human", "partial": "x"}, "partial credit must be a number")):
        page = org.post("/results/settings", data={**data, "action": "score"}, follow_redirects=True).get_data(as_text=True)
        assert message in page and "runs scored" not in page, data
    with web_store.transaction() as session:
        assert session.query(EvaluationResult).count() == 0


STRICT = {"matcher": "binarized", "theta": "0.5", "numbers": "strict"}
SOFTMATCH = {"matcher": "softmatch", "numbers": "lenient"}


def _scored_twice(app, web_store):
    """(the organiser, the participant) once the sample's results are released and scored under
    numbers strict and softmatch, neither released yet."""
    set_id, par = sample_campaign(app, web_store)
    org = browser_for(app, "org")
    org.post("/results/score")
    move_window(web_store, set_id, "cclqa", -3, -2, -1)  # the task's results are released
    for chosen in (STRICT, SOFTMATCH):
        org.post("/results/settings", data={**chosen, "action": "score"})
    return org, par


def test_teams_see_only_the_settings_released(app, web_store):
    org, par = _scored_twice(app, web_store)
    page = par.get("/results/mine").get_data(as_text=True)
    assert "numbers strict" not in page and "softmatch" not in page  # scored, not released
    page = org.post("/results/settings", data={**STRICT, "action": "release"}, follow_redirects=True).get_data(as_text=True)
    assert "Released to the teams: automatic (BINARIZED), θ 0.5, numbers strict" in page and "Withdraw" in page
    files = expected("binarized", "--numbers", "strict")
    page = par.get("/results/mine").get_data(as_text=True)
    assert "EN-CS: automatic (BINARIZED), θ 0.5, numbers strict F3" in page and "softmatch" not in page
    assert page.count(f'<td class="docid">{OWN}</td><td class="num">{files[OWN]["score"]:.4f}</td>') == 1
    assert f'<td class="docid">{OWN}</td><td class="num">{expected("binarized")[OWN]["score"]:.4f}</td>' in page
    assert "TEAMA-CS-CS-01-T" not in page
    org.post("/results/settings", data={**STRICT, "action": "withdraw"})
    assert "numbers strict" not in par.get("/results/mine").get_data(as_text=True)


def test_citation_support_from_the_stored_judgments(app, web_store):
    from test_support_judging import SEG, T1, add_run

    from sepia.store.support import citations, save_support

    org = browser_for(app, "org")
    assert "no citation support judgments" in org.get("/results/support").get_data(as_text=True)
    with web_store.transaction() as session:
        add_run(session)
        first, second, _ = citations(session, T1, "as1")
        save_support(session, "as1", {(first.response_id, SEG[0]): 1.0, (second.response_id, SEG[1]): 0.5})
    page = org.get("/results/support").get_data(as_text=True)
    # citations (s1, d0) 1, (s1, d1) 0.5, (s2, d2) unjudged 0: precision 1.5 / 3; sentences 1, 0, 0: recall 1 / 3
    assert re.search(r'TEAMX-EN-EN-01-T</td><td class="num">0\.5000</td><td class="num">0\.3333</td>\s*'
                     r'<td class="num">1</td><td class="num">3</td>\s*<td class="num">1</td>', page), page
    assert browser_for(app, "par").get("/results/support").status_code in (302, 403)


def test_teams_see_the_trec_rag_scores_of_the_settings_released(app, web_store):
    """Issue 33: teams saw only the F3 of the settings released; the TREC RAG scores stored with them
    were the organisers' alone. Now a team sees them for its runs, with the pair's mean and best of
    the released runs, as `sepia evaluate --measures nuggetizer` gives them; never those of settings
    scored but not released, nor of the defaults."""
    org, par = _scored_twice(app, web_store)
    assert "TREC RAG" not in par.get("/results/mine").get_data(as_text=True)   # scored, not released
    org.post("/results/settings", data={**STRICT, "action": "release"})
    page = par.get("/results/mine").get_data(as_text=True)
    assert page.count("TREC RAG nugget scores") == 1  # not the defaults', stored with them too
    block = page.split("EN-CS: automatic (BINARIZED), θ 0.5, numbers strict, TREC RAG nugget scores", 1)[1]
    block = block.split("</table>", 1)[0]
    rag = expected("binarized", "--numbers", "strict", "--measures", "nuggetizer")
    measures = [(over, m) for over in ("all_topics", "answered_topics") for m in ("strict_vital", "vital", "strict_all", "all")]
    cells = {run: re.findall(r'<td class="num">([^<]*)</td>', row)
             for run, row in re.findall(r'<tr[^>]*><td class="docid">([^<]+)</td>(.*?)</tr>', block, re.S)}
    assert cells[OWN] == [f"{rag[OWN]['nuggetizer'][over][m]:.4f}" for over, m in measures]
    pair = [run for run in rag if "-EN-CS-" in run]
    assert cells["EN-CS mean of the released runs"] == [
        f"{sum(rag[r]['nuggetizer'][over][m] for r in pair) / len(pair):.4f}" for over, m in measures]
    assert cells["EN-CS best released run"] == [
        f"{max(rag[r]['nuggetizer'][over][m] for r in pair):.4f}" for over, m in measures]
    assert set(cells) == {OWN, "EN-CS mean of the released runs", "EN-CS best released run"}
    org.post("/results/settings", data={**STRICT, "action": "withdraw"})
    assert "TREC RAG" not in par.get("/results/mine").get_data(as_text=True)
