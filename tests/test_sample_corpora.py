"""The sample collections in corpora/ are consistent: the committed files are what
tools/make_sample_corpora.py writes, every file validates, every cited document exists, vote
counts and weights agree with the votes, and the human judgments cover every answer x nugget."""
from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from sepia.cli import main as sepia_main

REPO = Path(__file__).resolve().parent.parent
CORPORA = REPO / "corpora"
sys.path.insert(0, str(REPO / "tools"))

import make_sample_corpora  # noqa: E402
from sample_corpora import collections  # noqa: E402
from sample_corpora.model import nugget_id  # noqa: E402

COLLECTIONS = collections()
per_language = pytest.mark.parametrize("c", COLLECTIONS, ids=lambda c: c.lang)
COMPLEX = {"DEFINITION", "BIOGRAPHY", "RELATIONSHIP", "EVENT", "WHY"}
FACTOID = {"PERSON", "ORGANIZATION", "LOCATION", "DATE"}
# characters whose simplified and traditional forms differ: a CS text must not hold the second,
# a CT text not the first
SIMPLIFIED_TRADITIONAL = ["们們", "这這", "国國", "说說", "发發", "时時", "为為", "会會", "对對", "个個", "来來",
                          "与與", "湾灣", "关關", "书書", "学學", "长長", "门門", "电電", "车車", "东東", "岛島"]


def folder(c) -> Path:
    return CORPORA / c.lang.lower()


def parse(path: Path) -> etree._Element:
    return etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True)).getroot()


def read_docs(c) -> dict[str, str]:
    """DOCNO -> headline and text, read from the SGML files as a retrieval system would."""
    docs = {}
    for path in sorted((folder(c) / "docs").glob("*.sgml")):
        root = etree.fromstring(b"<ROOT>" + path.read_bytes() + b"</ROOT>",
                                etree.XMLParser(resolve_entities=False, no_network=True))
        for doc in root.iter("DOC"):
            docno = doc.findtext("DOCNO")
            assert docno not in docs, f"{docno} occurs twice"
            assert [child.tag for child in doc] == ["DOCNO", "DATE", "HEADLINE", "TEXT"]
            docs[docno] = doc.findtext("HEADLINE") + "\n" + doc.findtext("TEXT")
    return docs


def read_tsv(path: Path) -> tuple[list[str], list[list[str]]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[0].split("\t"), [line.split("\t") for line in lines[1:]]


def tokens(text: str) -> Counter:
    """The spec's tokens: NFKC + lower case; every CJK ideograph, kana and hangul character on its own,
    runs of other letters and digits as one token, punctuation and spaces dropped."""
    found, word = [], ""
    for ch in unicodedata.normalize("NFKC", text).lower():
        if re.match(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]", ch):
            found += [word, ch] if word else [ch]
            word = ""
        elif ch.isalnum():
            word += ch
        else:
            found += [word] if word else []
            word = ""
    return Counter(found + ([word] if word else []))


def softmatch(nugget: str, response: str) -> float:
    n = tokens(nugget)
    return sum((n & tokens(response)).values()) / sum(n.values())


def test_committed_files_are_what_the_script_writes(tmp_path):
    make_sample_corpora.main(["--out", str(tmp_path)])
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(CORPORA) for c in COLLECTIONS for p in folder(c).rglob("*") if p.is_file())
    assert written == committed
    for relative in written:
        assert (tmp_path / relative).read_bytes() == (CORPORA / relative).read_bytes(), relative


def test_every_exchange_file_validates():
    files = sorted(str(p) for p in CORPORA.rglob("*.xml")) + sorted(str(p) for p in CORPORA.glob("*/judgments.tsv"))
    assert len(files) == 3 * (2 + 4 + 1 + 1 + 1)  # topics, gold; CCLQA, IR4QA and QA runs; judgments
    result = CliRunner().invoke(sepia_main, ["validate", "--quiet", *files])
    assert result.exit_code == 0, result.output


@per_language
def test_documents(c):
    docs = read_docs(c)
    assert 25 <= len(docs) <= 40
    assert all(re.fullmatch(rf"SEPIA_{c.lang}_DOC\.\d{{4}}", docno) for docno in docs)  # never a topic ID
    text = "".join(docs.values())
    if c.lang == "JA":
        assert re.search("[\u3040-\u309f]", text), "Japanese text has hiragana"
    else:
        wrong = 1 if c.lang == "CS" else 0
        stray = {pair[wrong] for pair in SIMPLIFIED_TRADITIONAL if pair[wrong] in text}
        assert not stray, f"{c.lang} documents contain {''.join(sorted(stray))}"
    for doc in c.docs:
        assert 80 <= len(doc.text) <= 400, (doc.number, len(doc.text))


@per_language
def test_topics(c):
    root = parse(folder(c) / "topics.xml")
    assert root.get("LANG") == c.lang
    topics = root.findall("TOPIC")
    types = [t.get("ANSWER_TYPE") for t in topics]
    assert len(topics) >= 6
    assert sum(t in COMPLEX for t in types) >= 3 and sum(t in FACTOID for t in types) >= 2
    for t in topics:
        assert t.get("ID").split("-")[1] == c.lang and t.get("STATUS") == "completed"
        assert sorted(q.get("LANG") for q in t.findall("QUESTION")) == sorted(["EN", c.lang])
        assert t.findall("NARRATIVE")


@per_language
def test_gold_standard(c):
    docs = read_docs(c)
    gold = parse(folder(c) / "gold.xml")
    topic_ids = [t.get("ID") for t in parse(folder(c) / "topics.xml").findall("TOPIC")]
    assert [t.get("ID") for t in gold.findall("TOPIC")] == topic_ids
    split_votes = 0
    for topic in gold.findall("TOPIC"):
        nuggets = topic.findall("NUGGET")
        low, high = (1, 3) if topic.get("ANSWER_TYPE") in FACTOID else (3, 8)
        assert low <= len(nuggets) <= high, topic.get("ID")
        assert [n.get("ID") for n in nuggets] == [nugget_id(i) for i in range(1, len(nuggets) + 1)]
        vital = [sum(v.get("VITAL") == "1" for v in n.findall("VOTE")) for n in nuggets]
        for n, v in zip(nuggets, vital):
            votes = n.findall("VOTE")
            assert [x.get("ASSESSOR") for x in votes] == list(c.assessors)
            assert int(n.get("VITAL_VOTES")) == v and int(n.get("VOTERS")) == len(votes)
            assert float(n.get("WEIGHT")) == round(v / max(vital), 4)
            sources = [s.get("DOCID") for s in n.findall("SOURCE")]
            assert sources and all(s in docs for s in sources), sources
            split_votes += 0 < v < len(votes)
    assert split_votes >= 3, "assessors should disagree on some nuggets"


def run_files(c) -> dict[str, etree._Element]:
    return {p.stem: parse(p) for p in sorted((folder(c) / "runs").glob("*.xml"))}


@per_language
def test_runs(c):
    docs = read_docs(c)
    runs = run_files(c)
    topic_ids = [t.get("ID") for t in parse(folder(c) / "topics.xml").findall("TOPIC")]
    pairs = [run_id.split("-") for run_id in runs]
    monolingual = [p for p in pairs if p[1] == p[2] == c.lang]
    assert len(runs) >= 4 and len(monolingual) >= 3 and len({p[0] for p in monolingual}) == len(monolingual)
    assert any(p[1] == "EN" and p[2] == c.lang for p in pairs)
    answered_everything = 0
    for run_id, root in runs.items():
        assert root.findtext("METADATA/RUNID") == run_id
        answered = {}
        for topic in root.findall("TOPIC"):
            answers = topic.findall("CCLQA_RESULT/ANSWER")
            answered[topic.get("ID")] = len(answers)
            for a in answers:
                assert a.findall("DOCID") and all(d.text in docs for d in a.findall("DOCID"))
        answered_everything += all(2 <= answered.get(t, 0) <= 6 for t in topic_ids)
        assert all(answered.get(t, 0) == 0 or 2 <= answered[t] <= 6 for t in topic_ids)
    assert answered_everything == len(runs) - 1, "exactly one run leaves a topic without answers"


@per_language
def test_verbatim_answers_are_copied_from_their_documents(c):
    docs = read_docs(c)
    for topic, answers in c.answers.items():
        for key, a in answers.items():
            if a.verbatim:
                assert any(a.text in docs[c.doc_id(d)] for d in a.docs), (topic, key)
            else:
                assert not any(a.text in docs[c.doc_id(d)] for d in a.docs), (topic, key)


@per_language
def test_overlap_claims_hold(c):
    """Paraphrases that hold a nugget share at most half its tokens; wrong answers that share more than
    half do not hold it, so the binarized matcher (theta 0.5) and the assessor disagree on them."""
    paraphrases = traps = 0
    for topic in c.topics:
        for key, a in c.answers[topic.number].items():
            judged = a.judged[c.assessors[0]]
            for n in a.low_overlap:
                assert n in judged and softmatch(topic.nuggets[n - 1].text, a.text) <= 0.5, (topic.number, key, n)
                paraphrases += 1
            for n in a.high_overlap:
                assert n not in judged and softmatch(topic.nuggets[n - 1].text, a.text) > 0.5, (topic.number, key, n)
                traps += 1
    assert paraphrases >= 3 and traps >= 3


@per_language
def test_judgments_cover_every_answer_and_nugget(c):
    header, rows = read_tsv(folder(c) / "judgments.tsv")
    assert header == ["topic_id", "run_id", "answer_rank", "nugget_id", "match", "assessor"]
    gold = {t.get("ID"): [n.get("ID") for n in t.findall("NUGGET")] for t in parse(folder(c) / "gold.xml").findall("TOPIC")}
    expected = set()
    for run_id, root in run_files(c).items():
        for topic in root.findall("TOPIC"):
            for a in topic.findall("CCLQA_RESULT/ANSWER"):
                expected |= {(topic.get("ID"), run_id, a.get("RANK"), n) for n in gold[topic.get("ID")]}
    by_assessor: dict[str, dict[tuple, str]] = {}
    for topic_id, run_id, rank, nugget, match, assessor in rows:
        assert match in ("0", "1")
        by_assessor.setdefault(assessor, {})[(topic_id, run_id, rank, nugget)] = match
    first, second = c.assessors[0], c.assessors[1]
    assert set(by_assessor) == {first, second}
    assert set(by_assessor[first]) == expected
    assert len(rows) == len(by_assessor[first]) + len(by_assessor[second]), "no judgment repeated"
    double = {key[0] for key in by_assessor[second]}
    assert double == {c.topic_id(n) for n in c.double_judged} and len(double) >= 2
    assert {key for key in expected if key[0] in double} == set(by_assessor[second]), "second assessor judged whole topics"
    disagreements = sum(by_assessor[first][key] != match for key, match in by_assessor[second].items())
    assert 0 < disagreements < len(by_assessor[second]) / 4


@per_language
def test_runs_differ_in_quality(c):
    """Weighted nugget recall by the first assessor's judgments, averaged over all topics: the runs
    meant as good, medium and poor come out in that order."""
    gold = parse(folder(c) / "gold.xml")
    weights = {(t.get("ID"), n.get("ID")): float(n.get("WEIGHT")) for t in gold.findall("TOPIC") for n in t.findall("NUGGET")}
    totals = Counter()
    for (topic_id, _), w in weights.items():
        totals[topic_id] += w
    matched: dict[str, set] = {}
    for topic_id, run_id, _, nugget, match, assessor in read_tsv(folder(c) / "judgments.tsv")[1]:
        if assessor == c.assessors[0] and match == "1":
            matched.setdefault(run_id, set()).add((topic_id, nugget))
    recall = {run_id: sum(sum(weights[k] for k in matched.get(run_id, ()) if k[0] == t) / totals[t] for t in totals) / len(totals)
              for run_id in run_files(c)}
    good, medium, poor = (recall[f"TEAM{team}-{c.lang}-{c.lang}-01-T"] for team in "ABC")
    assert good > medium > poor > 0
    assert good > recall[f"TEAMX-EN-{c.lang}-01-T"] > poor


@per_language
def test_qrels_judge_the_pool(c):
    header, rows = read_tsv(folder(c) / "qrels.tsv")
    assert header == ["topic_id", "docid", "level"]
    docs = read_docs(c)
    levels = {(t, d): int(level) for t, d, level in rows}
    assert len(levels) == len(rows) and set(levels.values()) == {0, 1, 2}
    assert all(d in docs for _, d in levels)
    for path in (folder(c) / "ir4qa").glob("*.xml"):
        for topic in parse(path).findall("TOPIC"):
            for d in topic.findall("IR4QA_RESULT/DOCUMENT")[:10]:
                assert (topic.get("ID"), d.get("DOCID")) in levels, "the top 10 of each IR4QA run are judged"
    for topic in parse(folder(c) / "gold.xml").findall("TOPIC"):
        for source in topic.iter("SOURCE"):
            assert levels.get((topic.get("ID"), source.get("DOCID")), 0) >= 1, "nugget sources are relevant"
