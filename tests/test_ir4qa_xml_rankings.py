"""IR4QA XML runs read for evaluation as lists of DOCIDs (issue 23, item 2): the rankings, the
problems and `sepia evaluate-ir4qa`'s output are those of the reading through one object a document."""
from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats import model, stream
from sepia.formats.errors import FormatError
from sepia.formats.read import read_file
from sepia.formats.write import to_xml
from sepia.ir4qa.evaluate import rankings_of, read_xml_rankings

RUN_ID = "TEAM-CS-CS-01-T"


def random_run(rng: random.Random, most_topics: int = 12, most_documents: int = 60) -> model.IR4QARun:
    """Topics in any order, some without documents, DOCIDs drawn from a small pool."""
    topics = []
    for t in rng.sample(range(1, 40), rng.randrange(1, most_topics)):
        docids = rng.sample([f"XIN_CMN_{d:04d}" for d in range(300)], rng.randrange(0, most_documents))
        topics.append(model.IR4QATopic(f"ACLIA2-CS-{t:04d}", [
            model.RetrievedDoc(r, d, rng.choice([None, round(rng.uniform(-3, 3), 3), 1e-7, 2.5e20]))
            for r, d in enumerate(docids, 1)]))
    return model.IR4QARun(model.Metadata(RUN_ID, "random"), topics)


def odd_ranks(data: bytes, rng: random.Random) -> bytes:
    """Ranks written as the XSD allows and int() reads, but not as "1".."n": "01", "+2", " 3"."""
    for rank, written in ((1, "01"), (2, "+2"), (3, " 3 ")):
        if rng.random() < 0.5:
            data = data.replace(f'RANK="{rank}"'.encode(), f'RANK="{written}"'.encode(), 1)
    return data


def shuffled_ranks(data: bytes) -> bytes:
    """Ranks 1 and 2 swapped in the first topic that has both: valid, read in rank order."""
    return data.replace(b'RANK="1"', b'RANK="X"', 1).replace(b'RANK="2"', b'RANK="1"', 1).replace(b'RANK="X"', b'RANK="2"')


def through_objects(path) -> tuple[str, dict[str, list[str]]]:
    """What `sepia evaluate-ir4qa` read before: the run's objects, then `rankings_of`."""
    run = read_file(path, "ir4qa")
    return run.metadata.run_id, rankings_of(run)


@pytest.mark.parametrize("window", [3, 10_000])
@pytest.mark.parametrize("seed", range(12))
def test_a_valid_run_gives_the_rankings_of_its_objects_without_them(tmp_path, seed, window, monkeypatch):
    monkeypatch.setattr(stream, "WINDOW_ELEMENTS", window)
    rng = random.Random(seed)
    data = to_xml(random_run(rng))
    data = odd_ranks(data, rng) if seed % 3 == 1 else shuffled_ranks(data) if seed % 3 == 2 else data
    path = tmp_path / "run.xml"
    path.write_bytes(data)
    expected = through_objects(path)
    assert stream.read_clean_rankings(stream.LoadedXml(str(path), data)) == expected  # not the whole reading
    assert read_xml_rankings(path) == expected


def test_a_plain_ranking_is_read_without_an_object_per_document(tmp_path, monkeypatch):
    rng = random.Random(1)
    run = random_run(rng)
    path = tmp_path / "run.xml"
    path.write_bytes(to_xml(run))
    monkeypatch.setattr(model, "RetrievedDoc", None)  # any document object would fail
    assert read_xml_rankings(path) == (RUN_ID, {t.topic_id: [d.docid for d in t.documents] for t in run.topics})


def ranked_run() -> bytes:
    return to_xml(model.IR4QARun(model.Metadata(RUN_ID, "d"), [
        model.IR4QATopic(f"ACLIA2-CS-{t:04d}", [model.RetrievedDoc(r, f"XIN_{t}.{r}", None) for r in range(1, 7)])
        for t in range(1, 8)]))


@pytest.mark.parametrize("break_it, message", [
    (lambda x: x.replace(b'ID="ACLIA2-CS-0006"', b'ID="ACLIA2-CS-0001"'), "topic ACLIA2-CS-0001 appears more than once"),
    (lambda x: x.replace(b'ID="ACLIA2-CS-0006"', b'ID="ACLIA2-JA-0006"'), "is a JA topic"),
    (lambda x: x.replace(b"</TOPIC>\n  <TOPIC ID=\"ACLIA2-CS-0005\"", b"</TOPIC><EXTRA/>\n  <TOPIC ID=\"ACLIA2-CS-0005\""),
     "Element 'EXTRA'"),
    (lambda x: x.replace(b"</TOPIC_SET>", b"<EXTRA/></TOPIC_SET>"), "Element 'EXTRA'"),
    (lambda x: x.replace(b"<METADATA>", b"<EXTRA/><METADATA>"), "Element 'EXTRA'"),
    (lambda x: x.replace(b"</TOPIC_SET>", b"<METADATA><RUNID>X</RUNID><DESCRIPTION/></METADATA></TOPIC_SET>"),
     "Element 'METADATA'"),
    (lambda x: x.replace(b'RANK="2" DOCID="XIN_6.2"', b'RANK="1" DOCID="XIN_6.2"'), "rank 1 is repeated"),
    (lambda x: x.replace(b'RANK="2" DOCID="XIN_6.2"', b'RANK="9" DOCID="XIN_6.2"'), "missing 2"),
    (lambda x: x.replace(b'DOCID="XIN_7.3"', b'DOCID="XIN_7.2"'), "document XIN_7.2 is ranked twice"),
    (lambda x: x.replace(b'RANK="3" DOCID="XIN_7.3"', b'RANK="1.0" DOCID="XIN_7.3"'), "'1.0' is not a valid value"),
    (lambda x: x.replace(b"TEAM-CS-CS-01-T", b"TEAM-CS-CS-1-T"), "is not of the form"),
    (lambda x: x.replace(b'DOCID="XIN_7.3"', b'DOCID="XIN_7.3" SCORE="2.5e+"'), "SCORE '2.5e+' is not a number"),
    (lambda x: x[:-30], "not well-formed"),
])
def test_a_broken_run_is_refused_with_the_problems_its_objects_had(tmp_path, break_it, message, monkeypatch):
    monkeypatch.setattr(stream, "WINDOW_ELEMENTS", 4)
    data = break_it(ranked_run())
    assert data != ranked_run()
    path = tmp_path / "run.xml"
    path.write_bytes(data)
    with pytest.raises(FormatError) as fast:
        read_xml_rankings(path)
    assert message in str(fast.value)
    with pytest.raises(FormatError) as whole:
        through_objects(path)
    assert fast.value.problems == whole.value.problems


def test_a_comment_beside_the_topics_is_no_problem(tmp_path):
    path = tmp_path / "run.xml"
    path.write_bytes(ranked_run().replace(b"</TOPIC_SET>", b"<!-- end --></TOPIC_SET>"))
    assert read_xml_rankings(path) == through_objects(path)


@pytest.mark.parametrize("output", ["trec", "json", "tsv", "table"])
def test_evaluate_ir4qa_prints_what_it_printed_through_objects(tmp_path, output, monkeypatch):
    rng = random.Random(7)
    paths = []
    for n in range(3):
        run = random_run(rng)
        run.metadata = model.Metadata(f"TEAM-CS-CS-0{n + 1}-T", "d")
        data = to_xml(run)
        paths.append(tmp_path / f"TEAM-CS-CS-0{n + 1}-T.xml")
        paths[-1].write_bytes(shuffled_ranks(data) if n == 1 else data)
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("topic_id\tdocid\tlevel\n" + "".join(f"ACLIA2-CS-{t:04d}\tXIN_CMN_{d:04d}\t{rng.choice('0123')}\n"
                             for t in range(1, 40) for d in rng.sample(range(300), 40)))
    args = ["evaluate-ir4qa", "--qrels", str(qrels), *map(str, paths), "--measures", "AP,ntcir:Q,ntcir:nDCG,P@10,Bpref",
            "--format", output]
    fast = CliRunner().invoke(main, args)
    monkeypatch.setattr("sepia.commands.ir4qa.read_xml_rankings", through_objects)
    before = CliRunner().invoke(main, args)
    assert fast.exit_code == before.exit_code == 0, fast.output
    assert fast.output == before.output and "TEAM-CS-CS-02-T" in fast.output
