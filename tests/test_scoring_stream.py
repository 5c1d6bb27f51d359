"""`sepia evaluate` reads and scores one run at a time: its output is what scoring all the runs at
once and rendering them together gives, and its memory does not grow with the number of runs."""
import json
import random
import tempfile
import tracemalloc
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sepia.cli import main
from sepia.commands import evaluate as command
from sepia.formats.judgments import judgments_to_tsv
from sepia.formats.model import Answer, CCLQARun, CCLQATopic, Judgment, Metadata
from sepia.formats.write import to_xml
from sepia.scoring import output
from sepia.scoring.evaluate import Evaluator, Settings
from sepia.scoring.report import table, tsv_header, tsv_rows
from sepia.versions import analyzer_versions
from tests.helpers import gold, nugget, topic

CHARS = "甲乙丙丁戊己庚辛壬癸张三李四 abAB1，"
GOLD = gold("CS", topic("X-CS-0001", "DEFINITION", nugget("N1", "甲乙丙丁", 2, 3), nugget("N2", "戊己庚 ab", 1, 3)),
            topic("X-CS-0002", "PERSON", nugget("N1", "张三", 3, 3), nugget("N2", "李四", 0, 3)),
            topic("X-CS-0003", "WHY", nugget("N1", "壬癸 AB1", 1, 2)),
            topic("X-CS-0004", "DATE"))  # no nuggets: a warning in every run
TOPICS = ["X-CS-0001", "X-CS-0002", "X-CS-0003"]

answer_lists = st.lists(st.text(CHARS, min_size=1, max_size=12), max_size=4)
run_answers = st.fixed_dictionaries({}, optional={t: answer_lists for t in TOPICS + ["X-CS-0009"]})


def make_run(run_id: str, answers: dict[str, list[str]]) -> CCLQARun:
    return CCLQARun(Metadata(run_id), [CCLQATopic(t, [Answer(i + 1, text) for i, text in enumerate(texts)])
                                       for t, texts in answers.items()])


def judgments_of(runs: list[CCLQARun], seed: int) -> list[Judgment]:
    rng = random.Random(seed)
    return [Judgment(t.topic_id, r.run_id, a.rank, n, rng.choice([1.0, 0.5, 0.0]), assessor)
            for r in runs[1:] for t in r.topics for a in t.answers for n in ("N1", "N2")
            for assessor in ("a", "b")[:rng.randint(0, 2)]]


def whole_batch(runs, judgments, matcher: str, fmt: str, measures: tuple[str, ...]) -> str:
    """What `sepia evaluate` printed when it scored every run before writing any: all runs ranked by
    one evaluator, rendered in one piece."""
    s = Settings(matcher)
    results = Evaluator(GOLD, s, judgments if matcher == "human" else None).rank(runs)
    if fmt == "json":
        return json.dumps({"runs": [r.as_dict(measures) for r in results], "settings": s.describe(),
                           "versions": analyzer_versions()}, ensure_ascii=False, indent=2) + "\n"
    if fmt == "tsv":
        return tsv_header(measures) + "".join(tsv_rows(r, measures) for r in results)
    return table(results, TITLES[matcher])


TITLES = {"binarized": "F3 with the BINARIZED matcher (theta 0.5), pyramid weights, C = mean gold nugget length per "
                       "language and type; tokens: character unigrams for CJK, words otherwise; stemming off, stop "
                       "words kept, as a bag",
          "human": "F3 with the HUMAN matcher (partial support counts 0.5), pyramid weights, C = mean gold nugget "
                   "length per language and type; tokens: character unigrams for CJK, words otherwise; stemming "
                   "off, stop words kept, as a bag"}


@settings(max_examples=25, deadline=None)
@given(st.lists(run_answers, min_size=2, max_size=6), st.sampled_from(["binarized", "human"]),
       st.sampled_from(["json", "tsv", "table"]), st.sampled_from([(), ("nuggetizer",)]), st.integers(0, 9))
def test_streamed_output_equals_the_whole_batch(answer_sets, matcher, fmt, measures, seed):
    # Even runs repeat the answers of the run before them: equal scores, ranked by run ID.
    runs = [make_run(f"T{i % 3}{9 - i}-CS-CS-01-T", answer_sets[i - i % 2] if i % 2 else a)
            for i, a in enumerate(answer_sets)]
    judgments = judgments_of(runs, seed)
    with tempfile.TemporaryDirectory() as tmp:
        gold_path = Path(tmp) / "gold.xml"
        gold_path.write_bytes(to_xml(GOLD))
        args = ["evaluate", "--gold", str(gold_path), "--format", fmt, "--matcher", matcher]
        for r in runs:
            (Path(tmp) / f"{r.run_id}.xml").write_bytes(to_xml(r))
            args += ["--run", str(Path(tmp) / f"{r.run_id}.xml")]
        if matcher == "human":
            (Path(tmp) / "j.tsv").write_text(judgments_to_tsv(judgments))
            args += ["--judgments", str(Path(tmp) / "j.tsv")]
        for m in measures:
            args += ["--measures", m]
        result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    expected = whole_batch(runs, judgments, matcher, fmt, measures)
    if fmt == "table" and measures:
        from sepia.scoring.report import nuggetizer_table

        s = Settings(matcher)
        expected += "\n" + nuggetizer_table(Evaluator(GOLD, s, judgments if matcher == "human" else None).rank(runs))
    assert result.stdout == expected
    assert "warning: topic X-CS-0004 has no nuggets in the gold standard and is left out" in result.stderr


def test_runs_named_twice_are_refused_after_reading(tmp_path):
    (tmp_path / "gold.xml").write_bytes(to_xml(GOLD))
    path = tmp_path / "A-CS-CS-01-T.xml"
    path.write_bytes(to_xml(make_run("A-CS-CS-01-T", {"X-CS-0001": ["甲乙"]})))
    copy = tmp_path / "copy" / "A-CS-CS-01-T.xml"
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(tmp_path / "gold.xml"), str(path), str(copy)])
    assert result.exit_code == 2 and "the same run ID is given more than once: A-CS-CS-01-T" in result.output
    assert "RUN" not in result.stdout  # nothing is written


def peak_while_scoring(paths: list[Path], gold_path: Path, fmt: str) -> int:
    """Bytes allocated at the peak of reading, scoring and writing these runs, beyond what was
    allocated before."""
    out = output.RankedOutput(fmt, (), {})
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        command._score_files(out, str(gold_path), [str(p) for p in paths], None, Settings())
        out.write(lambda text: None)
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_number_of_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(output, "IN_MEMORY", 1)  # rendered runs go to disk at once
    rng = random.Random(1)
    gold_path = tmp_path / "gold.xml"
    gold_path.write_bytes(to_xml(GOLD))
    paths = []
    for i in range(20):
        answers = {t: ["".join(rng.choices(CHARS, k=80)) for _ in range(30)] for t in TOPICS}
        paths.append(tmp_path / f"R{i:02d}-CS-CS-01-T.xml")
        paths[-1].write_bytes(to_xml(make_run(paths[-1].stem, answers)))
    for fmt in ("json", "table"):
        peak_while_scoring(paths[:2], gold_path, fmt)  # caches and lazy imports first
        few, many = peak_while_scoring(paths[:2], gold_path, fmt), peak_while_scoring(paths, gold_path, fmt)
        # All 20 runs in memory at once would take about ten times what two take.
        assert many < 1.5 * few, (fmt, few, many)
