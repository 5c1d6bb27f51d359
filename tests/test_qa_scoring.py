"""Question Analysis runs: answer-type accuracy (overall, by type, confusion matrix) and key-term
recall and precision, against values computed by hand from tests/data/qa_topics.xml and qa_runs/;
key-term normalisation (full-width and half-width forms, case); the command's exit codes and its
handling of bad input; topic files with gold KEY_TERMs read, validated and written back."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.errors import FormatError
from sepia.formats.model import AnswerTypeScore, KeyTerm, LangText, QATopic
from sepia.formats.read import read_bytes, read_file
from sepia.formats.write import to_xml
from sepia.qa.answer_types import predicted_type
from sepia.qa.evaluate import evaluate_qa
from sepia.qa.key_terms import match_key_terms

REPO = Path(__file__).resolve().parent.parent
CORPORA = REPO / "corpora"
DATA = REPO / "tests" / "data"
TOPICS = DATA / "qa_topics.xml"
RUNS = DATA / "qa_runs"


def run_cli(*args):
    return CliRunner().invoke(main, ["evaluate-qa", *map(str, args)])


@pytest.fixture(scope="module")
def scores():
    topics = read_file(TOPICS).topics
    runs = [read_file(p, "qa") for p in sorted(RUNS.glob("*.xml"))]
    return {r.run_id: r for r in evaluate_qa(topics, runs)}


# ---------------------------------------------------------------- the predicted answer type

def guesses(*pairs):
    return QATopic("X-CS-1", answer_types=[AnswerTypeScore(t, s) for t, s in pairs])


def test_predicted_type_is_the_highest_score_ties_to_the_first_in_the_file():
    assert predicted_type(guesses(("BIOGRAPHY", 0.9), ("DEFINITION", 0.95))) == "DEFINITION"
    assert predicted_type(guesses(("PERSON", 0.4), ("ORGANIZATION", 0.4))) == "PERSON"
    assert predicted_type(guesses(("ORGANIZATION", 0.4), ("PERSON", 0.4))) == "ORGANIZATION"
    assert predicted_type(guesses(("EVENT", -2.0), ("WHY", -1.0))) == "WHY"


def test_missing_or_nan_scores_rank_below_every_number():
    assert predicted_type(guesses(("PERSON", None), ("DATE", None))) == "PERSON"
    assert predicted_type(guesses(("PERSON", None), ("DATE", -5.0))) == "DATE"
    assert predicted_type(guesses(("PERSON", float("nan")), ("DATE", 0.1))) == "DATE"
    assert predicted_type(guesses()) is None and predicted_type(None) is None


# ---------------------------------------------------------------- key terms

def test_key_terms_match_after_nfkc_and_lower_case():
    gold = [LangText("CS", "ＣＺ－３Ａ"), LangText("EN", "Chang'e-1"), LangText("JA", "ｶﾀｶﾅ")]
    # full-width letters, digits and hyphen against half-width; upper against lower case; half-width
    # katakana against full-width; surrounding spaces do not count
    run = [KeyTerm("cz-3a", "CS"), KeyTerm("ＣＨＡＮＧ＇Ｅ－１", "EN"), KeyTerm(" カタカナ ", "JA")]
    m = match_key_terms(gold, run)
    assert (m.found, m.gold, m.correct, m.given) == (3, 3, 3, 3)


def test_key_terms_differ_when_normalisation_does_not_join_them():
    gold = [LangText("CS", "嫦娥一号"), LangText("EN", "new york")]
    run = [KeyTerm("嫦娥1号", "CS"), KeyTerm("newyork", "EN"), KeyTerm("停電", "CS")]
    m = match_key_terms(gold, run)
    assert (m.found, m.correct, m.recall, m.precision) == (0, 0, 0.0, 0.0)


def test_key_term_languages_and_duplicates():
    gold = [LangText("CS", "停电"), LangText("CS", "停电"), LangText("CS", "航天员")]
    # a run term with another LANG does not match; one without LANG matches in any language; the
    # same term twice (after normalisation) counts once
    run = [KeyTerm("停电", "EN"), KeyTerm("航天员", None), KeyTerm("航天员 ", None)]
    m = match_key_terms(gold, run)
    assert (m.gold, m.found, m.given, m.correct) == (2, 1, 2, 1)
    assert (m.recall, m.precision) == (0.5, 0.5)
    empty = match_key_terms(gold, [])
    assert (empty.recall, empty.precision) == (0.0, 0.0)


# ---------------------------------------------------------------- runs, by hand

def test_accuracy_by_type_and_confusion_of_a_monolingual_run(scores):
    a = scores["TEAMA-CS-CS-01-T"]
    # DEF right, PER right (tie 0.4/0.4: the first), DATE right (no scores: the first), WHY -> EVENT;
    # topic 0005 has no answer type and is left out
    assert a.accuracy == 3 / 4 and len(a.typed) == 4
    assert a.by_type == {"DEFINITION": 1.0, "WHY": 0.0, "PERSON": 1.0, "DATE": 1.0}
    assert a.confusion == {"DEFINITION": {"DEFINITION": 1}, "WHY": {"EVENT": 1}, "PERSON": {"PERSON": 1},
                           "DATE": {"DATE": 1}}


def test_key_terms_of_a_monolingual_run(scores):
    a = scores["TEAMA-CS-CS-01-T"]
    # 0001: gold CS 嫦娥一号, ＣＺ－３Ａ (the EN term is not in CS-CS's languages); run 嫦娥一号, cz-3a, 卫星
    #       recall 2/2, precision 2/3
    # 0002: gold 航天员, 太空行走; run 航天员: recall 1/2, precision 1/1
    # 0004: gold 停电; run 停电 without LANG: 1, 1; topics 0003 and 0005 have no gold key terms
    by_topic = {t.topic_id: t.key_terms for t in a.topics}
    assert by_topic["QA-CS-0003"] is None and by_topic["QA-CS-0005"] is None
    assert (by_topic["QA-CS-0001"].recall, by_topic["QA-CS-0001"].precision) == (1.0, 2 / 3)
    assert a.key_term_recall == pytest.approx((1 + 1 / 2 + 1) / 3)
    assert a.key_term_precision == pytest.approx((2 / 3 + 1 + 1) / 3)


def test_cross_lingual_run_with_a_missing_topic(scores):
    b = scores["TEAMB-EN-CS-01-T"]
    # 0001 DEF (0.95 beats 0.9), 0002 missing (none), 0003 DATE (NaN ranks last), 0004 WHY
    assert b.accuracy == 3 / 4
    assert b.by_type == {"DEFINITION": 1.0, "WHY": 1.0, "PERSON": 0.0, "DATE": 1.0}
    assert b.confusion["PERSON"] == {None: 1}
    # EN-CS counts the EN and CS gold terms: 0001 3 gold, CHANG'E-1 found (case), 嫦娥1号 not: 1/3, 1/2;
    # 0002 nothing given: 0, 0; 0004 停电 given as EN, gold is CS: 0, 0
    assert b.key_term_recall == pytest.approx((1 / 3 + 0 + 0) / 3)
    assert b.key_term_precision == pytest.approx((1 / 2 + 0 + 0) / 3)
    assert b.warnings == ["topics without an answer type, left out of the accuracy: QA-CS-0005",
                          "run TEAMB-EN-CS-01-T: topic QA-CS-0099 is not in the topic set (ignored)"]


def test_runs_are_scored_on_the_topics_of_their_target_language(scores):
    c = scores["TEAMC-JA-JA-01-T"]
    assert [t.topic_id for t in c.topics] == ["QA-JA-0001", "QA-JA-0002"]
    assert (c.accuracy, c.by_type) == (0.5, {"ORGANIZATION": 0.0, "LOCATION": 1.0})
    assert (c.key_term_recall, c.key_term_precision, len(c.with_key_terms)) == (1.0, 1.0, 1)


def test_a_gold_standard_gives_answer_types_without_key_terms():
    result = run_cli("--topics", CORPORA / "cs" / "gold.xml", "--run", RUNS / "TEAMA-CS-CS-01-T.xml", "--format", "json")
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)["runs"][0]
    # the run answers QA-CS-* topics, none of the gold standard's SEPIA-CS-* topics
    assert (run["accuracy"], run["typed_topics"], run["key_term_recall"]) == (0.0, 6, None)


# ---------------------------------------------------------------- the command

def test_cli_table_tsv_and_json_agree_with_the_hand_values():
    table = run_cli("--topics", TOPICS, "--run", RUNS, "--confusion")
    assert table.exit_code == 0, table.output
    assert "TEAMA-CS-CS-01-T    0.7500  1.0000  0.0000  1.0000  1.0000     0.8333        0.8889" in table.stdout
    assert "WHY                 0    1    0    0" in table.stdout  # gold WHY predicted EVENT
    assert "warning: run TEAMB-EN-CS-01-T: topic QA-CS-0099 is not in the topic set (ignored)" in table.stderr
    tsv = run_cli("--topics", TOPICS, "--run", RUNS / "TEAMB-EN-CS-01-T.xml", "--format", "tsv")
    rows = [line.split("\t") for line in tsv.stdout.splitlines()]
    assert rows[2] == ["TEAMB-EN-CS-01-T", "QA-CS-0002", "PERSON", "", "0", "2", "0", "0", "0.000000", "0.000000"]
    assert rows[-1] == ["TEAMB-EN-CS-01-T", "ALL", "", "", "0.750000", "", "", "", "0.111111", "0.166667"]
    document = json.loads(run_cli("--topics", TOPICS, "--run", RUNS, "--format", "json").stdout)
    assert [r["run_id"] for r in document["runs"]] == ["TEAMA-CS-CS-01-T", "TEAMB-EN-CS-01-T", "TEAMC-JA-JA-01-T"]
    assert document["runs"][1]["confusion"]["PERSON"] == {"-": 1}


def test_cli_usage_errors_exit_2():
    assert run_cli("--run", RUNS).exit_code == 2
    assert run_cli("--topics", TOPICS).exit_code == 2
    assert run_cli("--store", "--topics", TOPICS).exit_code == 2
    assert run_cli("--topics", TOPICS, "--run", RUNS, "--run-id", "X").exit_code == 2
    twice = run_cli("--topics", TOPICS, "--run", RUNS / "TEAMC-JA-JA-01-T.xml", RUNS / "TEAMC-JA-JA-01-T.xml")
    assert twice.exit_code == 2 and "more than once: TEAMC-JA-JA-01-T" in twice.output


def test_cli_bad_files_exit_1_with_every_problem_as_path_line_column(tmp_path):
    bad_run = tmp_path / "TEAMD-CS-CS-01-T.xml"
    bad_run.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<TOPIC_SET>\n  <METADATA><RUNID>TEAMD-CS-CS-01-T'
                       '</RUNID><DESCRIPTION/></METADATA>\n  <TOPIC ID="QA-JA-0001"><QUESTION_ANALYSIS>\n'
                       '    <ANSWER_TYPE>GUESS</ANSWER_TYPE>\n  </QUESTION_ANALYSIS></TOPIC>\n</TOPIC_SET>\n',
                       encoding="utf-8")
    bad_topics = tmp_path / "topics.xml"
    bad_topics.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<TOPIC_SET><TOPIC ID="QA-CS-0001">'
                          '<QUESTION LANG="CS">q</QUESTION>\n<KEY_TERM LANG="CS">  </KEY_TERM></TOPIC></TOPIC_SET>\n',
                          encoding="utf-8")
    result = run_cli("--topics", bad_topics, "--run", bad_run)
    assert result.exit_code == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert any(line.startswith(f"{bad_topics}:3:1: ") and "KEY_TERM" in line for line in lines)  # blank
    assert f"{bad_run}:4:3: topic QA-JA-0001 is a JA topic, but this file is for CS" in lines
    assert any(line.startswith(f"{bad_run}:5:5: ") and "GUESS" in line for line in lines)


def test_cli_refuses_a_file_of_another_kind():
    cclqa = CORPORA / "cs" / "runs" / "TEAMA-CS-CS-01-T.xml"
    result = run_cli("--topics", cclqa, "--run", RUNS)
    assert result.exit_code == 1
    assert f"{cclqa}:1:1: expected TopicSet or GoldStandard, got a CCLQARun" in result.stderr
    result = run_cli("--topics", TOPICS, "--run", CORPORA / "cs" / "ir4qa" / "TEAMA-CS-CS-01-T.xml")
    assert result.exit_code == 1 and "QUESTION_ANALYSIS" in result.stderr


# ---------------------------------------------------------------- topic files with gold key terms

def test_topic_key_terms_are_read_validated_and_written_back():
    topics = read_file(TOPICS)
    assert [(k.lang, k.text) for k in topics.topics[0].key_terms] == [("CS", "嫦娥一号"), ("CS", "ＣＺ－３Ａ"),
                                                                     ("EN", "Chang'e-1")]
    assert read_bytes(to_xml(topics)) == topics
    blank = to_xml(topics).replace("<KEY_TERM LANG=\"CS\">停电</KEY_TERM>".encode(), b"<KEY_TERM LANG=\"CS\"> </KEY_TERM>")
    with pytest.raises(FormatError, match="KEY_TERM"):
        read_bytes(blank)


def test_topic_files_without_key_terms_stay_valid():
    for lang in ("cs", "ct", "ja"):
        text = (CORPORA / lang / "topics.xml").read_text(encoding="utf-8")
        bare = "".join(line + "\n" for line in text.splitlines() if "<KEY_TERM" not in line)
        assert "<KEY_TERM" in text and all(t.key_terms == [] for t in read_bytes(bare.encode()).topics)
