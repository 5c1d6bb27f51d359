#!/usr/bin/env python3
"""Write SEPIA's sample test collections (corpora/cs, corpora/ct, corpora/ja) from the hand-written
content in tools/sample_corpora/.

    python tools/make_sample_corpora.py [--out DIR]     (default: the repository's corpora/)

Re-running it rewrites the same bytes. Per language it writes docs/*.sgml (one file per year),
topics.xml, gold.xml, runs/*.xml (CCLQA), ir4qa/*.xml, qa/*.xml (Question Analysis), judgments.tsv and
qrels.tsv; corpora/README.md
is written by hand."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_corpora import collections  # noqa: E402
from sample_corpora.model import Collection, nugget_id  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
GENERATED_DIRS = ("docs", "runs", "ir4qa", "qa")


def pyramid_weights(votes: list[str]) -> list[float]:
    """v(n) / max v over the topic; all 0 when nobody voted anything vital."""
    vital = [v.count("1") for v in votes]
    top = max(vital, default=0)
    return [v / top if top else 0.0 for v in vital]


def format_weight(weight: float) -> str:
    text = f"{weight:.4f}".rstrip("0").rstrip(".")
    return text or "0"


def sgml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_bytes(root: etree._Element) -> bytes:
    etree.indent(root, space="  ")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + etree.tostring(root, encoding="UTF-8") + b"\n"


def sub(parent, tag: str, text: str | None = None, **attributes) -> etree._Element:
    element = etree.SubElement(parent, tag, {k: v for k, v in attributes.items() if v is not None})
    if text is not None:
        element.text = text
    return element


def documents_by_year(c: Collection) -> dict[str, str]:
    files: dict[str, list[str]] = {}
    for doc in sorted(c.docs, key=lambda d: d.number):
        paragraphs = "\n".join(sgml_escape(p) for p in doc.text.strip().split("\n"))
        files.setdefault(doc.date[:4], []).append(
            f"<DOC>\n<DOCNO>{c.doc_id(doc.number)}</DOCNO>\n<DATE>{doc.date}</DATE>\n"
            f"<HEADLINE>{sgml_escape(doc.headline)}</HEADLINE>\n<TEXT>\n{paragraphs}\n</TEXT>\n</DOC>\n")
    return {f"sepia-{c.lang.lower()}-{year}.sgml": "".join(docs) for year, docs in sorted(files.items())}


def topics_xml(c: Collection) -> bytes:
    root = etree.Element("TOPIC_SET", LANG=c.lang)
    for t in c.topics:
        topic = sub(root, "TOPIC", ID=c.topic_id(t.number), ANSWER_TYPE=t.answer_type, STATUS="completed")
        sub(topic, "QUESTION", t.question, LANG=c.lang)
        sub(topic, "QUESTION", t.question_en, LANG="EN")
        sub(topic, "NARRATIVE", t.narrative, LANG=c.lang)
        sub(topic, "NARRATIVE", t.narrative_en, LANG="EN")
        target, english = c.key_terms[t.number]
        for lang, terms in ((c.lang, target), ("EN", english)):
            for term in terms:
                sub(topic, "KEY_TERM", term, LANG=lang)
        if t.memo:
            sub(topic, "MEMO", t.memo)
    return xml_bytes(root)


def gold_xml(c: Collection) -> bytes:
    root = etree.Element("TOPIC_SET", LANG=c.lang)
    for t in c.topics:
        topic = sub(root, "TOPIC", ID=c.topic_id(t.number), ANSWER_TYPE=t.answer_type)
        sub(topic, "QUESTION", t.question, LANG=c.lang)
        sub(topic, "QUESTION", t.question_en, LANG="EN")
        weights = pyramid_weights([n.votes for n in t.nuggets])
        for number, (n, weight) in enumerate(zip(t.nuggets, weights), start=1):
            nugget = sub(topic, "NUGGET", ID=nugget_id(number), WEIGHT=format_weight(weight),
                         VITAL_VOTES=str(n.votes.count("1")), VOTERS=str(len(n.votes)))
            sub(nugget, "TEXT", n.text)
            for source in n.sources:
                sub(nugget, "SOURCE", DOCID=c.doc_id(source))
            for assessor, vital in zip(c.assessors, n.votes, strict=True):
                sub(nugget, "VOTE", ASSESSOR=assessor, VITAL=vital)
    return xml_bytes(root)


def metadata(root, run_id: str, description: str, ir4qa_run_id: str | None = None) -> None:
    meta = sub(root, "METADATA")
    sub(meta, "RUNID", run_id)
    sub(meta, "DESCRIPTION", description)
    if ir4qa_run_id:
        sub(meta, "IR4QA_RUNID", ir4qa_run_id)


def cclqa_xml(c: Collection, run) -> bytes:
    root = etree.Element("TOPIC_SET")
    metadata(root, run.run_id, run.description, run.ir4qa_run_id)
    for t in c.topics:
        if t.number not in run.answers:
            continue
        result = sub(sub(root, "TOPIC", ID=c.topic_id(t.number)), "CCLQA_RESULT")
        for rank, key in enumerate(run.answers[t.number], start=1):
            answer = c.answers[t.number][key]
            element = sub(result, "ANSWER", RANK=str(rank))
            sub(element, "TEXT", answer.text)
            for doc in answer.docs:
                sub(element, "DOCID", c.doc_id(doc))
    return xml_bytes(root)


def ir4qa_xml(c: Collection, run) -> bytes:
    root = etree.Element("TOPIC_SET")
    metadata(root, run.run_id, run.description)
    for t in c.topics:
        if t.number not in run.rankings:
            continue
        result = sub(sub(root, "TOPIC", ID=c.topic_id(t.number)), "IR4QA_RESULT")
        for rank, doc in enumerate(run.rankings[t.number], start=1):
            # a BM25-looking score that falls with the rank the author gave
            sub(result, "DOCUMENT", RANK=str(rank), DOCID=c.doc_id(doc), SCORE=f"{18.0 * 0.87 ** (rank - 1):.3f}")
    return xml_bytes(root)


def qa_run_id(c: Collection) -> str:
    return f"TEAMA-{c.lang}-{c.lang}-01-T"


def qa_xml(c: Collection) -> bytes:
    """A Question Analysis run: for each topic two answer types with scores, the gold one first except
    on every third topic, where the system's first guess is wrong (so its accuracy is 2/3, not 1);
    and key terms: the gold ones in the topic's language but the last, and the first English one,
    which does not count for a run from and to the topic's language (so recall and precision are
    below 1: (k - 1) / k each, for k gold terms)."""
    root = etree.Element("TOPIC_SET")
    metadata(root, qa_run_id(c), "answer type from question patterns, key terms from the question")
    for t in c.topics:
        other = "EVENT" if t.answer_type == "DEFINITION" else "DEFINITION"
        first, second = (other, t.answer_type) if t.number % 3 == 0 else (t.answer_type, other)
        analysis = sub(sub(root, "TOPIC", ID=c.topic_id(t.number)), "QUESTION_ANALYSIS")
        target, english = c.key_terms[t.number]
        for lang, term in [(c.lang, term) for term in target[:-1]] + [("EN", english[0])]:
            sub(analysis, "KEY_TERM", term, LANG=lang, SCORE="1.0")
        sub(analysis, "ANSWER_TYPE", first, SCORE="0.8")
        sub(analysis, "ANSWER_TYPE", second, SCORE="0.2")
    return xml_bytes(root)


def judgments_tsv(c: Collection) -> str:
    rows = ["topic_id\trun_id\tanswer_rank\tnugget_id\tmatch\tassessor"]
    for run in c.runs:
        for t in c.topics:
            for rank, key in enumerate(run.answers.get(t.number, ()), start=1):
                judged = c.answers[t.number][key].judged
                for number in range(1, len(t.nuggets) + 1):
                    for assessor in c.assessors:
                        if assessor in judged:
                            match = int(number in judged[assessor])
                            rows.append(f"{c.topic_id(t.number)}\t{run.run_id}\t{rank}\t{nugget_id(number)}"
                                        f"\t{match}\t{assessor}")
    return "\n".join(rows) + "\n"


def qrels_tsv(c: Collection) -> str:
    rows = ["topic_id\tdocid\tlevel"]
    for t in c.topics:
        for doc, level in sorted(c.qrels[t.number].items()):
            rows.append(f"{c.topic_id(t.number)}\t{c.doc_id(doc)}\t{level}")
    return "\n".join(rows) + "\n"


def collection_files(c: Collection) -> dict[str, bytes]:
    """Relative path -> content of every file written for one collection."""
    files = {f"docs/{name}": text.encode("utf-8") for name, text in documents_by_year(c).items()}
    files["topics.xml"] = topics_xml(c)
    files["gold.xml"] = gold_xml(c)
    for run in c.runs:
        files[f"runs/{run.run_id}.xml"] = cclqa_xml(c, run)
    for run in c.ir4qa_runs:
        files[f"ir4qa/{run.run_id}.xml"] = ir4qa_xml(c, run)
    files[f"qa/{qa_run_id(c)}.xml"] = qa_xml(c)
    files["judgments.tsv"] = judgments_tsv(c).encode("utf-8")
    files["qrels.tsv"] = qrels_tsv(c).encode("utf-8")
    return files


def write_collection(c: Collection, out: Path) -> list[Path]:
    target = out / c.lang.lower()
    for name in GENERATED_DIRS:  # drop files of runs or years that no longer exist
        for old in (target / name).glob("*"):
            if old.is_file():
                old.unlink()
    written = []
    for relative, content in sorted(collection_files(c).items()):
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "corpora", help="where to write (default: corpora/)")
    args = parser.parse_args(argv)
    for c in collections():
        written = write_collection(c, args.out)
        print(f"{c.lang}: {len(written)} files in {args.out / c.lang.lower()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
