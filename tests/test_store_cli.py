"""`sepia import` / `sepia export` / `sepia db` on the embedded store: whole files or nothing."""
from click.testing import CliRunner

from sepia.cli import main
from sepia.resources import resource_dir

CS = resource_dir("corpora") / "cs"


def run(*args):
    return CliRunner().invoke(main, list(map(str, args)))


def test_import_then_export_gives_the_same_files(tmp_path):
    assert run("import", CS / "topics.xml", CS / "gold.xml", *sorted((CS / "runs").glob("*.xml")),
               CS / "judgments.tsv").exit_code == 0
    exported = tmp_path / "gold.xml"
    assert run("export", "gold", "--lang", "CS", "--out", exported).exit_code == 0
    assert exported.read_bytes() == (CS / "gold.xml").read_bytes()
    run_file = CS / "runs" / "TEAMA-CS-CS-01-T.xml"
    out = tmp_path / "run.xml"
    assert run("export", "run", "TEAMA-CS-CS-01-T", "--out", out).exit_code == 0
    assert out.read_bytes() == run_file.read_bytes()
    judgments = run("export", "judgments", "--run", "TEAMA-CS-CS-01-T").stdout.splitlines()
    original = [line for line in (CS / "judgments.tsv").read_text().splitlines() if "TEAMA-CS-CS-01-T" in line]
    assert sorted(judgments[1:]) == sorted(original)
    info = run("db", "info").stdout
    assert "topics: 6" in info and "runs: 4" in info


def test_a_bad_file_stops_the_import_before_anything_is_written(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<TOPIC_SET><TOPIC ID='nonsense'/></TOPIC_SET>")
    result = run("import", CS / "topics.xml", bad)
    assert result.exit_code == 1 and f"{bad}:1:" in result.output and "nothing imported" in result.output
    assert "topics: 0" in run("db", "info").stdout


def test_judgments_for_unknown_answers_are_refused_whole(tmp_path):
    assert run("import", CS / "gold.xml").exit_code == 0
    result = run("import", CS / "judgments.tsv")
    assert result.exit_code == 1 and "no stored answer" in result.output
    assert "nugget judgments: 0" in run("db", "info").stdout
    assert run("import", CS / "gold.xml").exit_code == 1  # already there: refused, not doubled
    assert run("import", "--replace", CS / "gold.xml").exit_code == 0


def test_an_imported_run_is_its_teams_submission(tmp_path):
    """Runs an organiser imports are kept byte for byte as their team's current submission (so they
    can be downloaded and their team sees their results); a re-import with --replace supersedes it."""
    from sqlalchemy import select

    from sepia.store.db import Store
    from sepia.store.models import Submission

    run_file = CS / "runs" / "TEAMA-CS-CS-01-T.xml"
    assert run("import", CS / "topics.xml", run_file).exit_code == 0
    refused = run("import", run_file)
    assert refused.exit_code == 1 and "already stored" in refused.output
    changed = tmp_path / "TEAMA-CS-CS-01-T.xml"
    changed.write_bytes(run_file.read_bytes().replace(b"</DESCRIPTION>", b" (corrected)</DESCRIPTION>", 1))
    assert changed.read_bytes() != run_file.read_bytes()
    assert run("import", "--replace", changed).exit_code == 0
    store = Store()
    with store.transaction() as session:
        rows = session.scalars(select(Submission).order_by(Submission.id)).all()
        kept = [(r.run_id, r.team, r.kind, r.submitted_by, r.filename, r.content, r.superseded_at is None)
                for r in rows]
    store.dispose()
    assert kept == [("TEAMA-CS-CS-01-T", "TEAMA", "cclqa", "sepia import", run_file.name, run_file.read_bytes(), False),
                    ("TEAMA-CS-CS-01-T", "TEAMA", "cclqa", "sepia import", changed.name, changed.read_bytes(), True)]
