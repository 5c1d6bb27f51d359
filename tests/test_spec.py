"""docs/spec.md's worked examples are what SEPIA computes, and the docs link only to the
repository's own files (and to its pages' headings)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import sepia
from sepia.formats.model import GoldStandard
from sepia.ir4qa.measures import parse_gains, score_ranking
from sepia.matchers.softmatch import softmatch
from sepia.scoring.fscore import topic_score
from sepia.text.tokenize import Tokenizer
from sepia.scoring.weights import nugget_weights
from tests.helpers import gold, nugget, run, topic

ROOT = Path(__file__).resolve().parents[1]
SPEC = (ROOT / "docs" / "spec.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    """The text under a `## title` heading, up to the next one, its lines joined by single spaces."""
    return " ".join(SPEC.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0].split())


def shown(value: float) -> str:
    return f"**{value:.4f}**"


def test_weights_example():
    votes = [nugget("N1", "甲", 3, 3), nugget("N2", "乙", 2, 3), nugget("N3", "丙", 1, 3)]
    text = section("Nugget weights")
    assert [round(w, 4) for w in nugget_weights(votes, "pyramid")[0]] == [1, 0.6667, 0.3333]
    assert nugget_weights(votes, "proportion")[0] == nugget_weights(votes, "pyramid")[0]
    assert nugget_weights(votes, "binary")[0] == [1, 1, 0]
    assert "Pyramid weights: 1, 0.6667 and 0.3333" in text and "binary weights: 1, 1 and 0" in text


def test_f_score_example():
    score = topic_score("T", "DEFINITION", weights=[1.0, 0.4, 0.2, 0.5, 0.7], match_scores=[0, 1, 0, 0, 1],
                        length=200, char_allowance=24, beta=3)
    text = section("F-score")
    assert f"recall = 1.1 / 2.8 = {score.recall:.4f}" in text
    assert f"allowance = 2 × 24 = {score.allowance:g}" in text and f"precision = 48 / 200 = {score.precision:g}" in text
    assert shown(score.f) in text and round(score.f, 4) == 0.3693


def binarized_example() -> tuple[GoldStandard, object]:
    g = gold("CS", topic("X-CS-0001", "DEFINITION", nugget("N1", "安倍晋三是日本首相", 3, 3),
                         nugget("N2", "2006年9月就任", 2, 3), nugget("N3", "毕业于成蹊大学", 1, 3)))
    return g, run("T-CS-CS-01-T", {"X-CS-0001": ["日本首相安倍晋三于2006年就任"]})


def test_binarized_example_end_to_end():
    text = section("BINARIZED worked example")
    g, r = binarized_example()
    sr = r.topics[0].answers[0].text
    assert f"({len(sr)} characters)" in text
    for n, (shared, total) in zip(g.topics[0].nuggets, [(8, 9), (4, 6), (1, 7)]):
        s = softmatch(n.text, sr)
        assert s == shared / total and f"{shared}/{total} = {s:.4f}" in text
    [binarized] = sepia.evaluate(gold=g, runs=[r], matcher="binarized", allowance=6).to_records()
    assert (binarized["matched"], binarized["length"], binarized["allowance"]) == (2, 16, 12)
    assert f"recall = (5/3) / 2 = {binarized['recall']:.4f}" in text and shown(binarized["f"]) in text
    [soft] = sepia.evaluate(gold=g, runs=[r], matcher="softmatch", allowance=6).to_records()
    assert f"a = 0.8889 + 0.6667 + 0.1429 = {soft['matched']:.4f}" in text
    assert f"recall = (0.8889 + 2/3 × 0.6667 + 1/3 × 0.1429) / 2 = {soft['recall']:.4f}" in text
    assert f"precision = {soft['precision']:.4f}" in text and shown(soft["f"]) in text
    # theta is strict: s = 0.5 exactly is no match
    assert softmatch("日本首相", "首相") == 0.5 and "s = 0.5, and BINARIZED does not match it" in text
    edge = gold("CS", topic("X-CS-0001", "DEFINITION", nugget("N1", "日本首相", 1, 1)))
    [record] = sepia.evaluate(gold=edge, runs=[run("T-CS-CS-01-T", {"X-CS-0001": ["首相"]})]).to_records()
    assert record["matched"] == 0


def test_token_examples():
    text = section("Tokens")
    tokens = Tokenizer().tokens
    assert " ".join(tokens("安倍晋三是日本首相")) == "安 倍 晋 三 是 日 本 首 相" and "安 倍 晋 三 是 日 本 首 相" in text
    assert tokens("２００６年9月") == ["2006", "年", "9", "月"] and "`2006`, 年, `9`, 月" in text


QRELS = {**{f"dummy{i:02d}": 3 for i in (1, 2, 3)}, **{f"dummy{i:02d}": 2 for i in (4, 5, 6)},
         **{f"dummy{i:02d}": 1 for i in (7, 8, 9, 10)}, "dummy11": 0}


def test_ir4qa_example():
    text = section("IR4QA measures")
    ranking = ["dummy11", "dummy01", "dummy12", "dummy04"]
    s = score_ranking(ranking, QRELS, parse_gains("1:2:3"))
    assert f"AP = (1/2 + 2/4) / 10 = {shown(s.ap)}" in text
    assert f"Q = ((1 + 3) / (2 + 6) + (2 + 5) / (4 + 11)) / 10 = {shown(s.q)}" in text
    assert f"so nDCG = {shown(s.ndcg)}" in text
    ideal = sum(g / max(1.0, __import__("math").log2(r)) for r, g in enumerate([3, 3, 3, 2, 2, 2, 1, 1, 1, 1], 1))
    assert f"ideal list's DCG is {ideal:.4f}" in text and s.ndcg == pytest.approx(4 / ideal)
    t = score_ranking(ranking, QRELS, parse_gains("1:4:9"))
    assert f"Q = {shown(t.q)} and nDCG = {shown(t.ndcg)}" in text


def test_kappa_example():
    text = section("Agreement")
    g = gold("CS", topic("X-CS-0001", "DEFINITION", nugget("N1", "甲", 3, 3), nugget("N2", "乙", 3, 3),
                         nugget("N3", "丙", 0, 3), nugget("N4", "丁", 2, 3)))
    [votes] = sepia.agreement(gold=g).to_records()
    assert (votes["items"], votes["assessors"], votes["observed"]) == (4, 3, pytest.approx(5 / 6))
    assert f"P = {votes['observed']:.4f}" in text and shown(votes["kappa"]) in text


# -- links -----------------------------------------------------------------------------------------

PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    found = set()
    for heading in re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M):
        found.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_stay_inside_the_repository(page):
    text = page.read_text(encoding="utf-8")
    assert "SPEC.md" not in text and "/work/" not in text
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # a web address, not a file
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.is_relative_to(ROOT) and file.exists(), f"{page.name} links to {target}"
        if anchor and file.suffix == ".md":
            assert anchor in anchors(file), f"{page.name} links to a heading {file.name} lacks: {target}"


def test_the_spec_links_every_section_from_its_contents():
    listed = set(re.findall(r"\]\(#([\w-]+)\)", SPEC.split("\n## ", 1)[0]))
    assert listed == anchors(ROOT / "docs" / "spec.md") - {"sepias-specification"}


def test_the_index_lists_every_page():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\]\(([\w-]+\.md)\)", index))
    assert listed == {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
