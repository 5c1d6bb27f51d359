"""Adversarial probes (`sepia metaeval adversarial`): the perturbations, the fooled rates on a gold
standard worked by hand, every output, assessors' files, and bad input."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.judgments import judgments_to_tsv
from sepia.formats.model import Judgment
from sepia.formats.read import read_file
from sepia.formats.write import to_xml
from sepia.metaeval.adversarial import fooled_rates, make_evaluators, probe_context, probe_runs
from sepia.metaeval.probes import PROBES, ProbeContext
from sepia.scoring.evaluate import Settings
from sepia.text.tokenize import Tokenizer
from tests.helpers import gold, nugget, topic

GOLD = gold("CS", topic("X-CS-0001", "DATE", nugget("N1", "2007年10月24日发射", 1, 1),
                        nugget("N2", "西昌卫星发射中心", 1, 1)),
            topic("X-CS-0002", "PERSON", nugget("N1", "嫦娥一号", 1, 1)))


def _ctx(*answers, langs=None) -> ProbeContext:
    langs = langs or ["CS"] * len(answers)
    return ProbeContext([f"T{i}" for i in range(len(answers))], langs, [list(a) for a in answers])


def test_numbers_probe_changes_every_number_and_date():
    ctx = _ctx(["2007年10月24日发射", "嫦娥一号", "二〇〇七年"], ["fell 26% in 2014-15 since March 3, 2020"], langs=["CS", "EN"])
    assert PROBES["numbers"].perturb(ctx, 0) == ["2008年11月25日发射", "嫦娥二号", "三〇〇七年"]
    assert PROBES["numbers"].perturb(ctx, 1) == ["fell 27% in 2014-16 since April 4, 2021"]


def test_negation_shuffle_salad_and_padding():
    ctx = _ctx(["张三是局长", "北京"], ["The tower was built in Paris"], ["Gustave Eiffel"], langs=["CS", "EN", "EN"])
    assert PROBES["negation"].perturb(ctx, 0) == ["并非张三是局长", "并非北京"]
    assert PROBES["negation"].perturb(ctx, 1) == ["The tower was not built in Paris"]
    assert PROBES["negation"].perturb(ctx, 2) == ["It is not true that Gustave Eiffel"]
    shuffled = PROBES["shuffle"].perturb(ctx, 0)
    assert [Counter(a) for a in shuffled] == [Counter("张三是局长"), Counter("北京")] and shuffled[0] != "张三是局长"
    salad = PROBES["salad"].perturb(ctx, 0)
    assert len(salad) == 2
    assert Counter(t for a in salad for t in Tokenizer().tokens(a)) == Counter("张三是局长北京")
    assert PROBES["padding"].perturb(ctx, 1) == ["The tower was built in Paris", "Gustave Eiffel"]  # same language first


def test_entities_are_swapped_with_another_topics_of_the_same_kind():
    ctx = _ctx(["Gustave Eiffel built it in Paris"], ["The Wright Brothers flew at Kitty Hawk"], langs=["EN", "EN"])
    # a name for a name, a place (after in/at) for a place; a sentence's opening The is no part of one
    assert PROBES["entities"].perturb(ctx, 0) == ["Wright Brothers built it in Kitty Hawk"]
    assert PROBES["entities"].perturb(ctx, 1) == ["The Gustave Eiffel flew at Paris"]
    ctx = _ctx(["张三在北京工作"], ["李四访问上海"])
    assert PROBES["entities"].perturb(ctx, 0) == ["李四在上海工作"]  # nr for nr, ns for ns


@pytest.mark.parametrize("text,expected", [
    ("The Senate voted 98-1 in favor of the Patriot Act", [("Senate", "organisation"), ("Patriot Act", "law or event")]),
    ("Crypto exchanges often operate outside U.S. jurisdiction", [("U.S.", "acronym")]),  # an acronym whole
    ("The act was passed shortly after the September 11 attacks", []),                    # a month is no entity
    ("Sen. Russ Feingold was the only dissenting vote", [("Russ Feingold", "person")]),   # Sen. ends no sentence
    ("Western Union called the telephone a fad", [("Western Union", "organisation")]),
    ("Rip's freedom is contrasted with Dame Van Winkle's control of Rip.",   # Rip: capitalised inside too
     [("Rip", "name"), ("Dame Van Winkle", "name"), ("Rip", "name")]),
    ("Rip's freedom is contrasted with Dame Van Winkle's control.", [("Dame Van Winkle", "name")]),
    ("Police killed 31 people in Austin. The police said so.", [("Austin", "place")]),  # police: a word
    ("Bank of America lent to British firms on Monday", [("Bank of America", "organisation"), ("British", "demonym")]),
])
def test_english_entities_are_whole_and_typed(text, expected):
    from sepia.metaeval.entities import english_entities

    assert [(text[e.start:e.end], e.kind) for e in english_entities(text)] == expected


def test_a_piece_of_a_chinese_name_is_no_entity():
    from sepia.metaeval.entities import entity_spans

    # jieba tags 拉尼 of 拉尼娜 a person and leaves 娜 untagged: no entity (before, 拉尼 was swapped)
    assert entity_spans("拉尼娜现象的影响", "CS") == []
    assert [e.kind for e in entity_spans("翟志刚出舱", "CS")] == ["nr"]


def test_japanese_names_are_one_entity():
    from sepia.metaeval.entities import entity_spans

    text = "山田太郎は東京都で働く"
    assert [(text[e.start:e.end], e.kind) for e in entity_spans(text, "JA")] == [("山田太郎", "人名"), ("東京都", "地名")]


def test_probe_runs_are_runs_of_their_own_and_say_what_changed():
    ctx = probe_context(GOLD)
    runs, changed = probe_runs(ctx)
    assert [r.run_id for r in runs][:3] == ["PROBE-CS-CS-01-T", "PROBE-CS-CS-02-T", "PROBE-CS-CS-03-T"]
    assert runs[0].topics[0].answers[0].text == "2007年10月24日发射"
    assert changed["numbers"] == {"X-CS-0001", "X-CS-0002"}


def test_fooled_rates_worked_by_hand():
    """numbers probe: topic 1 answers 2008年11月25日发射 (BINARIZED: 5 of 8 tokens, 0.625 > 0.5, still a
    match, same length: F unchanged, fooled); topic 2 嫦娥二号 (3 of 4, a match: fooled). Strict: neither
    response states the nugget's numbers, so N1 fails in both: F drops, not fooled. softmatch: the
    scores drop to 5/8 and 3/4, F drops: not fooled."""
    ctx = probe_context(GOLD)
    evaluators = make_evaluators(GOLD, ["binarized", "softmatch", "exact"], ["lenient", "strict"], {}, Settings())
    assert list(evaluators) == ["binarized", "binarized --numbers strict", "softmatch", "softmatch --numbers strict",
                                "exact"]
    rows, scores = fooled_rates(GOLD, evaluators, ctx, ["numbers"])
    rates = {r.matcher: (r.fooled, r.topics) for r in rows}
    assert rates == {"binarized": (2, 2), "binarized --numbers strict": (0, 2), "softmatch": (0, 2),
                     "softmatch --numbers strict": (0, 2), "exact": (0, 2)}
    assert scores["binarized"]["faithful"]["X-CS-0002"] == 1.0
    assert scores["binarized --numbers strict"]["numbers"]["X-CS-0002"] == 0.0


def _write_gold(tmp_path: Path, standard=GOLD) -> Path:
    path = tmp_path / "gold.xml"
    path.write_bytes(to_xml(standard))
    return path


def test_cli_outputs_table_tsv_json_and_chart(tmp_path):
    gold_path = _write_gold(tmp_path)
    base = ["metaeval", "adversarial", "--gold", str(gold_path), "--matcher", "binarized"]
    table = CliRunner().invoke(main, base + ["--plot", str(tmp_path / "fig" / "adv")])
    assert table.exit_code == 0, table.output
    assert "binarized --numbers strict" in table.output and "100% (2/2)" in table.output
    assert (tmp_path / "fig" / "adv.png").stat().st_size > 0 and (tmp_path / "fig" / "adv.svg").exists()
    tsv = CliRunner().invoke(main, base + ["--format", "tsv", "--probe", "numbers"]).stdout.splitlines()
    assert tsv[0].split("\t")[:5] == ["matcher", "probe", "topics", "fooled", "fooled_rate"]
    assert tsv[1].split("\t")[:5] == ["binarized", "numbers", "2", "2", "1.0000"]
    report = json.loads(CliRunner().invoke(main, base + ["--format", "json", "--numbers", "strict"]).stdout)
    assert report["matchers"] == ["binarized --numbers strict"] and set(report["probes"]) == set(PROBES)
    assert "versions" in report


def test_an_assessors_judgments_of_the_probe_runs_are_scored_like_a_matcher(tmp_path):
    gold_path = _write_gold(tmp_path)
    runs_dir = tmp_path / "probes"
    result = CliRunner().invoke(main, ["metaeval", "adversarial", "--gold", str(gold_path), "--matcher", "exact",
                                       "--write-runs", str(runs_dir)])
    assert result.exit_code == 0, result.output
    runs = [read_file(p, "cclqa") for p in sorted(runs_dir.glob("*.xml"))]
    assert len(runs) == 1 + len(PROBES)
    # a gullible assessor: every answer holds the nugget of its position, however it was perturbed
    gullible = [Judgment(t.topic_id, r.run_id, a.rank, f"N{a.rank}", 1, "gullible")
                for r in runs for t in r.topics for a in t.answers if a.rank <= len(GOLD.topic(t.topic_id).nuggets)]
    path = tmp_path / "gullible.tsv"
    path.write_text(judgments_to_tsv(gullible), encoding="utf-8")
    report = json.loads(CliRunner().invoke(main, ["metaeval", "adversarial", "--gold", str(gold_path),
                                                  "--auto-judgments", str(path), "--format", "json"]).stdout)
    assert report["matchers"] == ["gullible"]
    rows = {r["probe"]: r for r in report["fooled"]}
    assert rows["numbers"]["fooled_rate"] == 1.0          # same length, same judgments: fooled
    assert rows["padding"]["kept_recall_rate"] == 1.0     # padding costs precision only


def test_a_gold_standard_without_nuggets_is_one_line_of_error(tmp_path):
    path = _write_gold(tmp_path, gold("CS", topic("X-CS-0001", "DATE")))
    result = CliRunner().invoke(main, ["metaeval", "adversarial", "--gold", str(path)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == ["Error: the gold standard has no nuggets: there is nothing to probe"]


@pytest.mark.parametrize("lang", ["cs", "ct", "ja"])
def test_sample_gold_standards_strict_numbers_are_never_fooled_by_changed_numbers(lang):
    path = Path(__file__).resolve().parents[1] / "corpora" / lang / "gold.xml"
    standard = read_file(path, "gold")
    evaluators = make_evaluators(standard, ["binarized", "softmatch"], ["strict"], {}, Settings())
    rows, _ = fooled_rates(standard, evaluators, probe_context(standard), ["numbers"])
    assert all(r.topics >= 3 and r.rate <= 0.10 for r in rows), [(r.matcher, r.fooled, r.topics) for r in rows]


RAG24 = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"


@pytest.mark.skipif(not RAG24.exists(), reason="TREC RAG 2024 data not in ../shared/data")
def test_trec_rag24_nuggets_strict_numbers_meet_the_aim():
    from sepia.convert.nuggetizer import convert_nuggetizer

    standard = convert_nuggetizer(RAG24).gold
    evaluators = make_evaluators(standard, ["binarized", "softmatch"], ["lenient", "strict"], {}, Settings())
    rows, _ = fooled_rates(standard, evaluators, probe_context(standard), ["numbers"])
    rates = {r.matcher: (r.fooled, r.topics) for r in rows}
    assert rates["binarized"] == (6, 6)  # every topic with a number fools BINARIZED without the rule
    assert rates["binarized --numbers strict"] == rates["softmatch --numbers strict"] == (0, 6)


def _capitalised_words(text: str) -> list[tuple[int, int]]:
    """Spans of the text's capitalised words, by a reading of its own (acronyms with full stops
    whole, a possessive 's left outside)."""
    import re

    return [(m.start(), m.end() - (2 if m.group().endswith(("'s", "’s")) else 0))
            for m in re.finditer(r"(?:[A-Z]\.){2,}|[A-Z][\w'’-]*", text)]


@pytest.mark.skipif(not RAG24.exists(), reason="TREC RAG 2024 data not in ../shared/data")
def test_trec_rag24_entity_swaps_replace_whole_entities_with_whole_entities_of_their_kind():
    """Issue 36, item 3: before, "Patriot Act" became "S", "The Senate" "U" (pieces of U.S.) and
    the month of "September 11 attacks" was taken for an entity."""
    from sepia.convert.nuggetizer import convert_nuggetizer
    from sepia.metaeval.probes import entity_swaps
    from sepia.text.numbers import MONTHS
    from sepia.text.english import stop_words

    ctx = probe_context(convert_nuggetizer(RAG24).gold)
    names = {}  # every entity of every topic: name -> kind
    for i in range(len(ctx.topic_ids)):
        names.update(ctx.entities(i))
    replaced, swaps = [], 0
    for i in range(len(ctx.topic_ids)):
        for answer, found in zip(ctx.faithful[i], entity_swaps(ctx, i)):
            words = _capitalised_words(answer)
            for swap in found:
                swaps += 1
                span = answer[swap.start:swap.end]
                replaced.append(span)
                # whole: starts at a capitalised word's start, ends at one's end, no capitalised word
                # right before or after it (only a space between) is left out
                assert any(s == swap.start for s, _ in words) and any(e == swap.end for _, e in words), span
                before, after = answer[:swap.start], answer[swap.end:]
                left = before.split()[-1] if before.endswith(" ") and before.strip() else ""
                sentence_opener = left.lower() in stop_words() and before[:-1 - len(left)].rstrip()[-1:] in ("", ".", ":")
                assert not (left and any(e == swap.start - 1 for _, e in words) and not left.endswith((".", ":"))
                            and left.lower() not in MONTHS and not sentence_opener), span
                assert not (after.startswith(" ") and any(s == swap.end + 1 for s, _ in words)), span
                assert span.lower() not in MONTHS and len(span) > 1
                # the replacement is another topic's entity of the same kind, never a piece
                assert names[swap.replacement] == swap.kind and swap.replacement != span
                assert len(swap.replacement) > 1 and swap.replacement.lower() not in MONTHS
    assert swaps >= 30
    for whole in ("Patriot Act", "U.S.", "Western Union", "Senate", "Dame Van Winkle", "Austin Police Department"):
        assert whole in replaced
    assert not {"S", "U", "The Senate", "September", "Multiple Federal" if "multiple" in ctx.gazetteer().lower else ""} & set(replaced)
