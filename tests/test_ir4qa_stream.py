"""Streaming IR4QA evaluation: `sepia evaluate-ir4qa` scoring one run at a time gives what the
whole-file path gave, in every layout a TREC run may come in, and its memory does not grow with the
number of runs."""
import json
import math
import random
import tracemalloc

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.errors import FormatError
from sepia.formats.model import IR4QARun, IR4QATopic, Metadata, RetrievedDoc
from sepia.formats.write import to_xml
from sepia.ir4qa.measures import score_ranking
from sepia.ir4qa.trec import parse_trec_runs, qrels_to_trec, trec_eval_order


def random_qrels(rng: random.Random) -> dict[str, int]:
    """Qrels of one topic: levels 0-3, sometimes none relevant."""
    pool = [f"d{i:03d}" for i in range(150)]
    return {d: rng.choice([0, 0, 1, 2, 3]) for d in rng.sample(pool, rng.randrange(0, 60))}


def whole_file_runs(text: str) -> dict[str, dict[str, list[str]]]:
    """The reading before streaming: tag -> topic -> {docid: score}, then trec_eval's order."""
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for line in text.splitlines():
        if line.strip():
            qid, _, docid, _, score, tag = line.split()
            runs.setdefault(tag, {}).setdefault(qid, {})[docid] = float(score)
    return {tag: {qid: [d for d, _ in trec_eval_order(docs)] for qid, docs in topics.items()}
            for tag, topics in runs.items()}


def random_run_lines(rng: random.Random, tag: str, qids: list[str]) -> list[str]:
    lines = []
    for qid in qids:
        docs = rng.sample([f"d{i:03d}" for i in range(150)], rng.randrange(0, 90))
        scores = [rng.choice([0.5, 1.0, 1.5, 2.0, -0.0, 0.0, 7.25]) if rng.random() < 0.5 else rng.uniform(-5, 5)
                  for _ in docs]  # many ties, one of them between 0.0 and -0.0
        lines += [f"{qid} Q0 {d} {i + 1} {s!r} {tag}" for i, (d, s) in enumerate(zip(docs, scores))]
    return lines


def test_streaming_equals_the_whole_file_path(tmp_path):
    rng = random.Random(5)
    qrels = {f"T-CS-{q}": random_qrels(rng) for q in range(301, 316)}  # topic IDs an XML run may use
    qrels["T-CS-316"] = {"d001": 0}  # no relevant document: left out of the means
    (tmp_path / "qrels.txt").write_text(qrels_to_trec(qrels))
    qids = [*qrels, "T-CS-399"]  # not in the qrels: a warning
    files = {
        "a.txt": "\n".join(random_run_lines(rng, "runA", qids)) + "\n",
        # two runs in one file, lines of one topic in two pieces, no newline at the end
        "b.txt": "\n".join(random_run_lines(rng, "runB", qids[:8]) + random_run_lines(rng, "runC", qids)
                           + random_run_lines(rng, "runB", ["T-CS-320", *qids[8:10]])),
        # tabs, blank lines, CRLF: the general layout
        "c.txt": "\r\n".join(line.replace(" ", "\t") for line in random_run_lines(rng, "runD", qids[::2])) + "\r\n\r\n",
        "d.txt": "\n".join(random_run_lines(rng, "runE", qids[3:]))
                 + "\nT-CS-301 Q0 d999 1 nan runE\nT-CS-301 Q0 d998 2 nan runE\n",
    }
    expected_runs = {}
    for name, text in files.items():
        (tmp_path / name).write_text(text, newline="")
        expected_runs.update(whole_file_runs(text))
    xml_topics = [IR4QATopic(q, [RetrievedDoc(i + 1, d, 1.0)
                                 for i, d in enumerate(rng.sample(sorted(qrels[q]), len(qrels[q])))])
                  for q in qids[:5]]
    (tmp_path / "x.xml").write_bytes(to_xml(IR4QARun(Metadata("TEAMX-CS-CS-01-T"), xml_topics)))
    expected_runs["TEAMX-CS-CS-01-T"] = {t.topic_id: [d.docid for d in t.documents] for t in xml_topics}

    measures = ["AP", "ntcir:Q", "ntcir:nDCG", "nDCG@10", "P@10", "Bpref", "RR", "ntcir:MSnDCG@20", "Judged@10",
                "ntcir:nERR@10", "AP@5", "ntcir:AP@5", "ntcir:Q@5", "P(rel=2)@5", "NumRet"]
    for options, flags in (({}, []), ({"condensed": True}, ["--condensed"]), ({"cutoff": 30}, ["--cutoff", "30"])):
        cutoff = options.pop("cutoff", 1000)
        args = ["evaluate-ir4qa", "--qrels", str(tmp_path / "qrels.txt"),
                *(str(tmp_path / n) for n in [*files, "x.xml"]), "--measures", ",".join(measures), *flags]
        result = CliRunner().invoke(main, [*args, "--format", "json"])
        assert result.exit_code == 0, result.output
        scored = {r["run_id"]: r for r in json.loads(result.stdout)["runs"]}
        assert set(scored) == set(expected_runs)
        for run_id, rankings in expected_runs.items():
            topics = {q: score_ranking(rankings.get(q, []), judged, [1.0, 2.0, 3.0], cutoff, measures=measures,
                                       **options).values
                      for q, judged in sorted(qrels.items()) if any(level > 0 for level in judged.values())}
            got = {t.pop("topic_id"): t for t in scored[run_id]["topics"]}
            assert list(got) == list(topics)
            for q, values in topics.items():
                assert {m: got[q][m] for m in measures} == values, (run_id, q)  # exactly
            assert {m: scored[run_id][m] for m in measures} == {
                m: sum(v[m] for v in topics.values()) / (1 if m == "NumRet" else len(topics)) for m in measures}
        assert "run runA: no qrels for topic T-CS-399 (ignored)" in result.stderr
        table = CliRunner().invoke(main, args).stdout
        assert "? (15 topics)" in table and "CS-CS (15 topics)" in table
        # trec_eval -q's layout: the same numbers, each run printed in the order read
        lines = CliRunner().invoke(main, [*args, "--format", "trec"]).stdout.splitlines()
        assert [line.split("\t")[2] for line in lines if line.startswith("runid")] == [
            "runA", "runB", "runC", "runD", "runE", "TEAMX-CS-CS-01-T"]
        assert f"AP                    \tT-CS-301\t{scored['runC']['topics'][0]['AP']:.4f}" in lines


@pytest.mark.parametrize("layout", ["tabs", "spaces", "crlf", "blank lines", "no final newline", "leading spaces",
                                    "ideographic space"])
def test_every_layout_reads_alike(layout):
    rng = random.Random(9)
    lines = random_run_lines(rng, "run", ["1", "2", "3"])
    canonical = parse_trec_runs("\n".join(lines) + "\n")
    text = {"tabs": "\n".join(line.replace(" ", "\t") for line in lines) + "\n",
            "spaces": "\n".join(line.replace(" ", "   ") for line in lines) + "\n",
            "crlf": "\r\n".join(lines) + "\r\n",
            "blank lines": "\n\n".join(lines) + "\n\n\n",
            "no final newline": "\n".join(lines),
            "leading spaces": "\n".join(" " + line + " " for line in lines) + "\n",
            "ideographic space": "\n".join(line.replace(" ", "\u3000", 1) for line in lines) + "\n"}[layout]
    assert parse_trec_runs(text) == canonical


def test_lines_with_too_few_and_too_many_fields_that_even_out_are_refused():
    # 5 + 7 fields: as many fields as six a line in all, and as many spaces, but not on each line
    text = "1 Q0 D1 1 0.5 A\n1 Q0 D2 2 0.4\n1 Q0 D3 3 0.3 A A\n1 Q0 D4 4 0.2 A\n"
    with pytest.raises(FormatError) as error:
        parse_trec_runs(text, "r.txt")
    assert [str(p) for p in error.value.problems] == [
        "r.txt:2:1: expected 6 fields (qid Q0 docid rank score tag), got 5",
        "r.txt:3:1: expected 6 fields (qid Q0 docid rank score tag), got 7"]


def test_a_bad_run_stops_the_command_with_its_line(tmp_path):
    (tmp_path / "qrels.txt").write_text("1 0 D1 1\n")
    (tmp_path / "good.txt").write_text("1 Q0 D1 1 0.5 A\n")
    (tmp_path / "bad.txt").write_text("1 Q0 D1 1 0.5 B\n1 Q0 D1 2 0.4 B\n")
    result = CliRunner().invoke(main, ["evaluate-ir4qa", "--qrels", str(tmp_path / "qrels.txt"),
                                       str(tmp_path / "good.txt"), str(tmp_path / "bad.txt")])
    assert result.exit_code == 1
    assert f"{tmp_path / 'bad.txt'}:2:1: document D1 is retrieved twice for topic 1" in result.stderr


def write_runs(directory, count: int, topics: int = 10, docs: int = 300):
    rng = random.Random(count)
    qrels = {str(q): {f"d{i:04d}": rng.choice([0, 1, 2]) for i in rng.sample(range(2000), 80)} for q in range(topics)}
    (directory / "qrels.txt").write_text(qrels_to_trec(qrels))
    paths = []
    for r in range(count):
        path = directory / f"run{r:02d}.txt"
        path.write_text("".join(f"{q} Q0 d{d:04d} {i + 1} {math.floor(1e6 / (i + 1)) / 1e3} run{r:02d}\n"
                                for q in qrels for i, d in enumerate(rng.sample(range(2000), docs))))
        paths.append(str(path))
    return str(directory / "qrels.txt"), paths


@pytest.mark.parametrize("output", ["table", "trec"])
def test_memory_does_not_grow_with_the_number_of_runs(tmp_path, output):
    sets = {}
    for count in (2, 20):
        (tmp_path / str(count)).mkdir()
        sets[count] = write_runs(tmp_path / str(count), count)
    runner = CliRunner()
    runner.invoke(main, ["evaluate-ir4qa", "--qrels", sets[2][0], *sets[2][1]])  # imports before measuring
    peaks = {}
    for count, (qrels, runs) in sets.items():
        tracemalloc.start()
        result = runner.invoke(main, ["evaluate-ir4qa", "--qrels", qrels, *runs, "--format", output])
        peaks[count] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert result.exit_code == 0, result.output
    # the whole-file path held every run at once: ten times the runs took five times the memory
    assert peaks[20] < 1.5 * peaks[2], peaks


def test_a_byte_that_is_not_utf8_is_reported_where_it_is(tmp_path):
    (tmp_path / "qrels.txt").write_text("1 0 D1 1\n")
    (tmp_path / "run.txt").write_bytes(b"1 Q0 D1 1 0.5 A\n1 Q0 D\xff2 2 0.4 A\n")
    result = CliRunner().invoke(main, ["evaluate-ir4qa", "--qrels", str(tmp_path / "qrels.txt"),
                                       str(tmp_path / "run.txt")])
    assert result.exit_code == 1
    assert f"{tmp_path / 'run.txt'}:2:7: invalid UTF-8 byte 0xff: the file must be UTF-8" in result.stderr
