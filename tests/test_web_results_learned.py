"""The results pages with the learned matcher: organisers tick it when the store holds judgments, and
its tables equal `sepia evaluate --matcher learned --judgments` on the same files."""
from __future__ import annotations

import csv
import io
import json

from click.testing import CliRunner

from web_helpers import browser_for

from sepia.cli import main
from tests.test_web_results import CORPUS, sample_campaign


def test_organisers_choose_the_learned_matcher_when_judgments_are_stored(app, web_store):  # noqa: F811
    org = browser_for(app, "org")
    assert 'name="learned"' not in org.get("/results/").get_data(as_text=True)  # nothing to learn from yet
    sample_campaign(app, web_store)
    assert 'name="learned"' in org.get("/results/").get_data(as_text=True)
    plain = org.post("/results/score", follow_redirects=True).get_data(as_text=True)
    assert "(human, automatic (BINARIZED))" in plain and "CS-CS-learned" not in plain
    page = org.post("/results/score", data={"learned": "1"}, follow_redirects=True).get_data(as_text=True)
    assert "4 CCLQA runs scored (human, automatic (BINARIZED), automatic (learned))" in page
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(CORPUS / "gold.xml"), "--run", str(CORPUS / "runs"),
                                       "--matcher", "learned", "--judgments", str(CORPUS / "judgments.tsv"),
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    files = {r["run_id"]: r["score"] for r in json.loads(result.stdout)["runs"]}
    rows = list(csv.reader(io.StringIO(org.get("/results/tables/CS-CS-learned.csv").get_data(as_text=True))))
    assert len(rows) == 4 and {r[0] for r in rows[1:]} <= set(files)
    for row in rows[1:]:
        assert row[1] == f"{files[row[0]]:.4f}", row
