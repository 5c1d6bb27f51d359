"""`sepia import` of a run for topics that are not in the store (issue 21, item 7): imported, with a
warning naming them (a team's upload of it is refused); topic sets of the same command count, and
are imported first whatever the order of the files."""
from __future__ import annotations

from click.testing import CliRunner
from sqlalchemy import func, select

from sepia.cli import main
from sepia.resources import resource_dir
from sepia.store import models as db
from sepia.store.db import Store

CS = resource_dir("corpora") / "cs"
RUN = CS / "ir4qa" / "TEAMA-CS-CS-01-T.xml"


def run_import(store_url, monkeypatch, *files):
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    return CliRunner().invoke(main, ["import", *map(str, files)])


def test_a_run_for_unknown_topics_is_imported_with_a_warning(store_url, monkeypatch):
    result = run_import(store_url, monkeypatch, RUN)
    assert result.exit_code == 0, result.output
    assert f"warning: {RUN}: not topics of this campaign: SEPIA-CS-0001, SEPIA-CS-0002" in result.stderr
    assert "and 1 more" in result.stderr  # six topics: five named
    assert f"{RUN}: imported ir4qa run TEAMA-CS-CS-01-T" in result.stdout


def test_topic_sets_of_the_same_command_count_and_come_first(store_url, monkeypatch):
    result = run_import(store_url, monkeypatch, RUN, CS / "topics.xml")
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{CS / 'topics.xml'}: imported") and lines[1].startswith(f"{RUN}: imported")
    store = Store(store_url)
    try:
        with store.transaction() as session:
            assert session.scalar(select(func.count()).select_from(db.Topic)) == 6
    finally:
        store.dispose()
    again = run_import(store_url, monkeypatch, "--replace", RUN)  # topics now stored
    assert again.exit_code == 0 and "warning" not in again.stderr
