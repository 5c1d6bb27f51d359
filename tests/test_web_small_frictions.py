"""Smaller frictions met running a campaign: the zip manifest's times carry their zone, the `?`
overlay lists the judging keys, an organiser on an empty store sees the first steps (ticked as they
are done), and a team's runs stand in the same rows of every results table."""
from __future__ import annotations

import io
import re
import zipfile

import pytest

from campaign_helpers import move_window, run_xml, schedule
from web_helpers import browser_for, make_topic

from sepia.campaign import results
from sepia.campaign.tables import Table
from sepia.services.first_steps import first_steps

CS1 = "ACLIA2-CS-0001"


def test_the_run_manifest_gives_submission_times_in_utc_with_the_zone(app, web_store):
    make_topic(web_store, CS1)
    set_id = schedule(web_store, "Formal run", [CS1], {"qa": (-1, 1, None)})
    par = browser_for(app, "par")
    response = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (
        io.BytesIO(run_xml("qa", "TEAMX-CS-CS-01-T", {CS1: ["DEFINITION"]})), "qa.xml")},
        content_type="multipart/form-data")
    assert response.status_code == 302
    move_window(web_store, set_id, "qa", -3, -2, None)
    bundle = zipfile.ZipFile(io.BytesIO(par.get(f"/downloads/runs/{set_id}/qa.zip").data))
    header, row = (line.split("\t") for line in bundle.read("MANIFEST.tsv").decode().splitlines())
    submitted = dict(zip(header, row))["submitted_at"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00", submitted), submitted


def test_the_shortcut_overlay_lists_the_judging_keys(app):
    page = browser_for(app, "as1").get("/judge/").get_data(as_text=True)
    overlay = page.split('<dialog id="shortcuts"')[1].split("</dialog>")[0]
    for key in ("<kbd>n</kbd>", "<kbd>s</kbd>", "<kbd>c</kbd>", "<kbd>b</kbd>", "<kbd>Enter</kbd>", "<kbd>0</kbd>"):
        assert key in overlay
    assert "relevance level" in overlay and "toggle nugget" in overlay


def test_an_organiser_on_an_empty_store_sees_the_first_steps(app, web_store):
    org = browser_for(app, "org")
    page = org.get("/", follow_redirects=True).get_data(as_text=True)
    assert 'id="first-steps"' in page
    with web_store.transaction() as session:
        done = {s.title: s.done for s in first_steps(session)}
    # the test store holds documents and one account per role, nothing else yet
    assert done == {"Add the collections": True, "Create the accounts": True, "Develop or import topics": False,
                    "Schedule the tasks": False, "Collect runs": False, "Pool and judge": False,
                    "Score and release": False}
    assert '<a href="/campaign/schedule">Schedule the tasks</a>' in page
    make_topic(web_store, CS1, completed=False)  # a topic not yet votable: the campaign has begun all the same
    assert 'id="first-steps"' not in org.get("/votes/overview").get_data(as_text=True)
    with web_store.transaction() as session:
        assert first_steps(session) is None


def test_a_teams_rows_follow_run_ids_with_the_pairs_mean_and_best_once():
    table = Table("CS-CS-human", "CS-CS: human F3 (4 runs)", ["Run", "ALL", "DEF"],
                  [["TEAMA-CS-CS-01-T", 0.9, 0.8], ["TEAMX-CS-CS-02-T", 0.6, None], ["TEAMB-CS-CS-01-T", 0.5, 0.2],
                   ["TEAMX-CS-CS-01-T", 0.3, 0.4]])
    mine = results.team_table(table, {"TEAMX-CS-CS-01-T", "TEAMX-CS-CS-02-T"})
    assert mine.title == "CS-CS: human F3" and mine.context == 2
    assert mine.rows[:2] == [["TEAMX-CS-CS-01-T", 0.3, 0.4], ["TEAMX-CS-CS-02-T", 0.6, None]]
    assert mine.rows[2][0] == "CS-CS mean of the released runs"
    assert mine.rows[2][1:] == pytest.approx([(0.9 + 0.6 + 0.5 + 0.3) / 4, (0.8 + 0.2 + 0.4) / 3])  # None left out
    assert mine.rows[3] == ["CS-CS best released run", 0.9, 0.8]
    assert results.team_table(table, {"TEAMY-CS-CS-01-T"}) is None
    automatic = Table("CS-CS-binarized", "CS-CS: automatic (BINARIZED) F3 (4 runs)", ["Run", "ALL"], table.rows)
    assert results.team_table(automatic, {"TEAMX-CS-CS-01-T"}).title == "CS-CS: automatic (BINARIZED) F3"
