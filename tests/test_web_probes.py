"""The adversarial probes page: organisers only, the stored gold standard, the numbers of `sepia
metaeval adversarial` on the same gold file."""
from __future__ import annotations

import json
import re

from click.testing import CliRunner

from web_helpers import browser_for

from sepia.cli import main
from sepia.formats.read import read_file
from sepia.resources import resource_dir
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.topics import import_topics

CORPUS = resource_dir("corpora") / "cs"


def test_probes_page_shows_what_the_command_computes(app, web_store):
    with web_store.transaction() as session:
        import_topics(session, read_file(CORPUS / "topics.xml"))
        import_gold(session, read_file(CORPUS / "gold.xml"))
    org = browser_for(app, "org")
    assert "Run the probes" in org.get("/results/probes/").get_data(as_text=True)
    page = org.post("/results/probes/").get_data(as_text=True)
    command = json.loads(CliRunner().invoke(main, ["metaeval", "adversarial", "--gold", str(CORPUS / "gold.xml"),
                                                   "--format", "json"]).stdout)
    for row in command["fooled"]:
        assert f"{round(100 * row['fooled_rate'])}% <span class=\"muted\">({row['fooled']}/{row['topics']})" in page
    assert re.search(r'<img class="chart"[^>]*src="data:image/png;base64,[A-Za-z0-9+/=]{100,}"', page)
    tsv = org.post("/results/probes/", data={"format": "tsv"})
    assert tsv.headers["Content-Disposition"] == "attachment; filename=fooled.tsv"
    lines = tsv.get_data(as_text=True).splitlines()
    assert lines[0].startswith("matcher\tprobe\ttopics\tfooled") and len(lines) == 1 + len(command["fooled"])


def test_probes_are_for_organisers_and_need_nuggets(app, web_store):
    assert browser_for(app, "par").get("/results/probes/").status_code == 403
    org = browser_for(app, "org")
    response = org.post("/results/probes/", follow_redirects=True)
    assert "No probes run: the gold standard has no nuggets" in response.get_data(as_text=True)
    assert browser_for(app).post("/results/probes/").status_code in (302, 400)  # no login, no token
