"""`sepia demo` builds the sample campaign and scores it; the store path agrees with the file path."""
import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.demo import collection_files, sample_collections
from sepia.formats.judgments import read_judgments
from sepia.formats.model import CCLQARun
from sepia.formats.read import read_file
from sepia.resources import resource_dir
from sepia.scoring.evaluate import evaluate_runs


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """One demo campaign for the module's tests: its data directory and what it printed."""
    home = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(main, ["demo", "--home", str(home), "--no-serve", "--no-progress"])
    assert result.exit_code == 0, result.output
    return home, result


def test_demo_scores_every_sample_run_as_the_files_do(demo):
    home, result = demo
    collections = sample_collections(resource_dir("corpora"))
    assert [c.name for c in collections][:1] and (home / "sepia.db").exists()
    for folder in collections:
        files = collection_files(folder)
        gold = read_file(files["gold"])
        runs = [r for r in (read_file(p) for p in files["runs"]) if isinstance(r, CCLQARun)]
        assert len(runs) >= 3
        judgments = read_judgments(files["judgments"])
        for matcher in ("human", "binarized"):
            for score in evaluate_runs(gold, runs, matcher=matcher, judgments=judgments):
                row = next(line for line in result.output.splitlines()
                           if line.startswith(score.run_id + " ") and matcher.upper() in line)
                assert row.split()[2] == f"{score.score:.4f}", (matcher, row)


def test_demo_topics_have_the_passages_their_nuggets_come_from(demo):
    from collections import Counter

    from sqlalchemy import select
    from sqlalchemy.orm import selectinload

    from sepia.store.db import Store
    from sepia.store.models import AnswerText, Document, Topic

    home, _ = demo
    store = Store(f"sqlite:///{home / 'sepia.db'}")
    with store.transaction() as session:
        topics = session.scalars(select(Topic).options(selectinload(Topic.answer_texts).selectinload(
            AnswerText.nuggets))).all()
        documents = dict(session.execute(select(Document.docid, Document.text)).all())
        assert topics and all(t.status == "completed" and t.answer_texts for t in topics)
        for topic in topics:
            for answer in topic.answer_texts:
                # Exactly the document's text at the offsets, one sentence, holding each linked
                # nugget or at least half of its characters (the sample nuggets paraphrase).
                assert documents[answer.docid][answer.start:answer.end] == answer.text
                assert "。" not in answer.text.rstrip("。") and answer.text == answer.text.strip()
                for nugget in answer.nuggets:
                    chars = Counter(c for c in nugget.text if not c.isspace())
                    assert nugget.text in answer.text or \
                        2 * sum((chars & Counter(answer.text)).values()) >= sum(chars.values())
    store.dispose()


def test_demo_scores_the_question_analysis_runs_as_the_files_do(demo):
    import re

    _, result = demo
    assert "== Question Analysis: answer-type accuracy" in result.output
    for folder in sample_collections(resource_dir("corpora")):
        for path in sorted((folder / "qa").glob("*.xml")):
            files = CliRunner().invoke(main, ["evaluate-qa", "--topics", str(folder / "topics.xml"), "--run", str(path)])
            assert files.exit_code == 0, files.output
            run_id = path.stem
            expected = re.search(rf"^{run_id} .*$", files.stdout, re.M).group(0)
            assert expected in result.output
            accuracy = float(expected.split()[1])
            assert 0 < accuracy < 1  # every third topic's first guess is wrong: 4 of 6 right
