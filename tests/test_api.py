"""The public API (sepia.api): the same numbers and text as the commands on the sample corpora,
options refused before anything is read, records and DataFrames, and a light `import sepia`."""
from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import sepia
from sepia import api
from sepia.cli import main
from sepia.formats.errors import FormatError

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / "corpora"


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


# (CLI options, the API's keywords): each corpus is scored both ways with every output format
CASES = [
    ((), {}),
    (("--matcher", "human", "--judgments", "{c}/judgments.tsv", "--partial", "1"),
     {"matcher": "human", "judgments": "{c}/judgments.tsv", "partial": 1}),
    (("--matcher", "exact", "--weights", "binary", "--beta", "1", "--depth", "2"),
     {"matcher": "exact", "weights": "binary", "beta": 1, "depth": 2}),
    (("--numbers", "strict", "--allowance", "20", "--theta", "0.4", "--set", "--measures", "nuggetizer"),
     {"numbers": "strict", "allowance": 20.0, "theta": 0.4, "as_set": True, "measures": ["nuggetizer"]}),
    (("--matcher", "softmatch", "--stem", "--stopwords", "--allowance", "DEFINITION=30", "--weights", "proportion"),
     {"matcher": "softmatch", "stem": True, "stopwords": True, "allowance_per_type": {"DEFINITION": 30},
      "weights": "proportion"}),
    (("--auto-judgments", "{c}/judgments.tsv"), {"auto_judgments": ["{c}/judgments.tsv"]}),  # 2 assessors
]


@pytest.mark.parametrize("lang", ["cs", "ct", "ja"])
@pytest.mark.parametrize("options,keywords", CASES)
def test_evaluate_gives_the_commands_output_byte_for_byte(lang, options, keywords):
    c = str(CORPORA / lang)
    keywords = {k: [x.format(c=c) for x in v] if isinstance(v, list) else v.format(c=c) if isinstance(v, str) else v
                for k, v in keywords.items()}
    result = api.evaluate(gold=f"{c}/gold.xml", runs=[f"{c}/runs"], **keywords)
    for output in ("table", "tsv", "json"):
        printed = cli("evaluate", "--gold", f"{c}/gold.xml", "--run", f"{c}/runs",
                      *(o.format(c=c) for o in options), "--format", output)
        assert result.render(output) == printed, (lang, options, output)
    document = json.loads(result.render("json"))
    assert [r["score"] for r in document["runs"]] == [r.score for r in result.runs]
    assert result.settings == document["settings"]


def test_the_package_root_and_the_module_are_one_api():
    import sepia.metaeval  # noqa: F401 (a subpackage must not hide a call of the API)

    for name in sepia._API:
        assert getattr(sepia, name) is getattr(api, name) and name in api.__all__
    with pytest.raises(AttributeError):
        sepia.no_such_thing  # noqa: B018


def test_records_and_dataframe_hold_every_run_and_topic():
    c = CORPORA / "cs"
    result = sepia.evaluate(gold=c / "gold.xml", runs=[c / "runs"], matcher="binarized")
    records = result.to_records()
    assert len(records) == 4 * 6  # 4 runs, 6 topics each (a topic not answered scores 0)
    by_run: dict[str, list[float]] = {}
    for r in records:
        by_run.setdefault(r["run_id"], []).append(r["f"])
    # a run's score is the mean of its topics' F, as the records show it
    assert {k: sum(v) / len(v) for k, v in by_run.items()} == pytest.approx(result.scores(), abs=1e-12)
    frame = result.to_pandas()
    assert list(frame["run_id"]) == [r["run_id"] for r in records]
    assert frame.groupby("run_id")["f"].mean().to_dict() == pytest.approx(result.scores(), abs=1e-12)


def test_to_pandas_without_pandas_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    c = CORPORA / "cs"
    result = sepia.evaluate(gold=c / "gold.xml", runs=c / "runs" / "TEAMA-CS-CS-01-T.xml")
    with pytest.raises(ImportError, match="pip install pandas"):
        result.to_pandas()
    assert result.to_records()


@pytest.mark.parametrize("keywords,message", [
    ({"matcher": "nonesuch"}, "unknown matcher 'nonesuch'"),
    ({"matcher": "exact", "numbers": "strict"}, "the exact matcher has no number rule"),
    ({"matcher_options": {"depth": "2"}}, "takes no option depth"),
    ({"weights": "flat"}, "weights 'flat' is not one of pyramid, proportion, binary"),
    ({"partial": 0.3}, "partial 0.3 is not one of"),
    ({"beta": 0}, "beta must be above 0"),
    ({"depth": 0}, "depth must be at least 1"),
    ({"measures": ["map"]}, "measures 'map' is not one of f, nuggetizer"),
    ({"matcher": "human"}, "the human matcher needs judgments"),
])
def test_options_are_refused_before_any_file_is_read(keywords, message):
    with pytest.raises(ValueError, match=message):
        api.evaluate(gold="no/such/gold.xml", runs=["no/such/run.xml"], **keywords)


def test_a_bad_file_raises_every_problem_with_its_place(tmp_path):
    bad = tmp_path / "gold.xml"
    bad.write_text("<GOLD_STANDARD><TOPIC>\n", encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        api.evaluate(gold=bad, runs=[CORPORA / "cs" / "runs"])
    assert all(str(p).startswith(f"{bad}:") for p in caught.value.problems)


def test_the_same_run_twice_is_refused():
    c = CORPORA / "cs"
    with pytest.raises(ValueError, match="the same run ID is given more than once: TEAMA-CS-CS-01-T"):
        api.evaluate(gold=c / "gold.xml", runs=[c / "runs", c / "runs" / "TEAMA-CS-CS-01-T.xml"])


def test_score_each_gives_the_runs_in_the_order_given_and_names_every_repeated_one():
    c = CORPORA / "cs" / "runs"
    a, b = c / "TEAMA-CS-CS-01-T.xml", c / "TEAMB-CS-CS-01-T.xml"
    given = api.score_each(gold=CORPORA / "cs" / "gold.xml", runs=[b, a, b, a], config=api.settings())
    assert [(group, score.run_id) for group, score in itertools.islice(given, 2)] == [
        (0, "TEAMB-CS-CS-01-T"), (0, "TEAMA-CS-CS-01-T")]
    with pytest.raises(api.CallError, match="more than once: TEAMA-CS-CS-01-T, TEAMB-CS-CS-01-T$"):
        next(given)
    printed = CliRunner().invoke(main, ["evaluate", "--gold", str(CORPORA / "cs" / "gold.xml"), *map(str, [b, a, b, a])])
    assert printed.exit_code == 2 and printed.stdout == ""
    assert "Error: the same run ID is given more than once: TEAMA-CS-CS-01-T, TEAMB-CS-CS-01-T" in printed.stderr


@pytest.mark.parametrize("lang", ["cs", "ct", "ja"])
@pytest.mark.parametrize("options,keywords", [
    ((), {}),
    (("--measures", "AP,nDCG@10,P@5,RR", "--gains", "1:3", "--cutoff", "10", "--condensed"),
     {"measures": ["AP,nDCG@10,P@5,RR"], "gains": "1:3", "cutoff": 10, "condensed": True}),
    (("--average", "trec_eval", "--measures", "ntcir:AP@5,ntcir:Q@5"),
     {"average": "trec_eval", "measures": ["ntcir:AP@5,ntcir:Q@5"]}),
    (("--average", "ir_measures", "--measures", "P(rel=2)@5 nDCG(dcg='exp-log2')@10,Judged@3"),
     {"average": "ir_measures", "measures": ["P(rel=2)@5 nDCG(dcg='exp-log2')@10", "Judged@3"]}),
])
def test_evaluate_ir4qa_gives_the_commands_json(lang, options, keywords):
    c = CORPORA / lang
    result = api.evaluate_ir4qa(qrels=c / "qrels.tsv", runs=[c / "ir4qa"], **keywords)
    assert result.to_json() == cli("evaluate-ir4qa", "--qrels", str(c / "qrels.tsv"), "--run", str(c / "ir4qa"),
                                   *options, "--format", "json")
    records = result.to_records()
    assert len(records) == 6 and all(0 <= r[m] <= 1 for r in records for m in result.measures)


def test_validate_reports_problems_as_the_command_prints_them(tmp_path):
    good = api.validate(CORPORA / "cs" / "gold.xml")
    assert good.valid and good.problems == []
    bad = tmp_path / "run.xml"
    bad.write_text('<?xml version="1.0"?>\n<CCLQA_RUN>\n<TOPIC ID="x">\n', encoding="utf-8")
    checked = api.validate(bad)
    assert not checked.valid and checked.problems
    printed = CliRunner().invoke(main, ["validate", str(bad)])
    assert printed.exit_code == 1 and printed.stdout.splitlines() == checked.problems


def test_import_sepia_stays_light():
    code = ("import sys, sepia; heavy = [m for m in ('sepia.api', 'sepia.scoring', 'sepia.formats', 'click') "
            "if m in sys.modules]; print(heavy)")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert shown.stdout.strip() == "[]"


def fleiss_kappa(counts: list[tuple[int, int]]) -> float:
    """Fleiss' kappa of items each decided yes/no by the same number of raters: (yes, no) per item."""
    n = sum(counts[0])
    agreement = sum((y * y + m * m - n) / (n * (n - 1)) for y, m in counts) / len(counts)
    yes = sum(y for y, _ in counts) / (n * len(counts))
    chance = yes * yes + (1 - yes) * (1 - yes)
    return (agreement - chance) / (1 - chance)


def test_agreement_kappa_of_the_votes_is_fleiss_kappa_counted_from_the_file():
    import xml.etree.ElementTree as ET

    gold = CORPORA / "cs" / "gold.xml"
    counts = []
    for nugget in ET.parse(gold).iter("NUGGET"):
        votes = [v.get("VITAL") == "1" for v in nugget.iter("VOTE")]
        counts.append((sum(votes), len(votes) - sum(votes)))
    result = sepia.agreement(gold=gold, judgments=CORPORA / "cs" / "judgments.tsv")
    [votes] = [r for r in result.to_records() if r["kind"] == "vote"]
    assert votes["items"] == len(counts) == 30
    assert votes["kappa"] == pytest.approx(fleiss_kappa(counts), abs=1e-12)


@pytest.mark.parametrize("options,keywords", [
    ((), {}),
    (("--by", "assessor", "--by", "topic", "--limit", "0", "--format", "json"),
     {"by": ["assessor", "topic"], "limit": 0}),
    (("--after", "{c}/judgments.tsv", "--run", "{c}/runs"), {"after": "{c}/judgments.tsv", "runs": "{c}/runs"}),
])
def test_agreement_gives_the_commands_output(options, keywords):
    c = str(CORPORA / "ct")
    keywords = {k: v.format(c=c) if isinstance(v, str) else v for k, v in keywords.items()}
    result = api.agreement(gold=f"{c}/gold.xml", judgments=f"{c}/judgments.tsv", **keywords)
    output = "json" if "json" in options else "table"
    assert result.render(output) == cli("agreement", "--gold", f"{c}/gold.xml", "--judgments", f"{c}/judgments.tsv",
                                        *(o.format(c=c) for o in options))
    with pytest.raises(ValueError, match="after and runs go together"):
        api.agreement(gold=f"{c}/gold.xml", after=f"{c}/judgments.tsv")


def test_a_matcher_that_learns_from_the_other_runs_gives_the_commands_output():
    c = str(CORPORA / "ja")
    result = api.evaluate(gold=f"{c}/gold.xml", runs=f"{c}/runs", matcher="learned", judgments=f"{c}/judgments.tsv",
                          matcher_options={"holdout": "team"})
    assert result.render("json") == cli("evaluate", "--gold", f"{c}/gold.xml", "--run", f"{c}/runs", "--matcher",
                                        "learned", "--judgments", f"{c}/judgments.tsv", "--matcher-option",
                                        "holdout=team", "--format", "json")


@pytest.mark.parametrize("lang", ["cs", "ct", "ja"])
@pytest.mark.parametrize("topics", ["topics.xml", "gold.xml"])
def test_evaluate_qa_gives_the_commands_output(lang, topics):
    c = CORPORA / lang
    result = sepia.evaluate_qa(topics=c / topics, runs=c / "qa")
    for output, flags in [("table", ["--confusion"]), ("tsv", []), ("json", [])]:
        assert result.render(output, confusion=bool(flags)) == cli(
            "evaluate-qa", "--topics", str(c / topics), "--run", str(c / "qa"), *flags, "--format", output)
    [run] = result.runs
    records = result.to_records()
    assert len(records) == 6 and sum(r["correct"] for r in records) / 6 == run.accuracy == 4 / 6


def test_evaluate_qa_lists_every_problem_of_every_file(tmp_path):
    bad = tmp_path / "qa.xml"
    bad.write_text('<?xml version="1.0"?>\n<TOPIC_SET>\n', encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        sepia.evaluate_qa(topics=CORPORA / "cs" / "runs" / "TEAMA-CS-CS-01-T.xml", runs=[bad])
    shown = [str(p) for p in caught.value.problems]
    assert any("TEAMA-CS-CS-01-T.xml:1:1: expected TopicSet or GoldStandard" in p for p in shown)
    assert any(p.startswith(f"{bad}:") for p in shown)


@pytest.mark.parametrize("options,keywords", [
    ((), {}),
    (("--matcher", "binarized", "--matcher", "exact", "--theta", "0.4", "--numbers", "strict", "--limit", "0",
      "--format", "json"), {"matchers": ["binarized", "exact"], "theta": 0.4, "numbers": "strict"}),
])
def test_metaeval_gives_the_commands_output(options, keywords):
    c = CORPORA / "ct"
    small = {"permutations": 50, "repetitions": 5, "seed": 3}
    result = sepia.meta_evaluate(gold=c / "gold.xml", runs=c / "runs", judgments=c / "judgments.tsv", **small,
                                 **keywords)
    output = "json" if "json" in options else "table"
    assert result.render(output, limit=0 if "--limit" in options else 20) == cli(
        "metaeval", "--gold", str(c / "gold.xml"), "--run", str(c / "runs"), "--judgments", str(c / "judgments.tsv"),
        "--permutations", "50", "--repetitions", "5", "--seed", "3", *options)
    human = sepia.evaluate(gold=c / "gold.xml", runs=c / "runs", matcher="human", judgments=c / "judgments.tsv")
    assert {r["run_id"]: r["human"] for r in result.to_records()} == pytest.approx(human.scores(), abs=1e-12)


def test_evaluate_stored_gives_what_the_command_gives_from_the_store(campaign_store, on_store):
    for options, keywords in [((), {}), (("--matcher", "human", "--lang-pair", "ja-ja", "--format", "tsv"),
                                         {"matcher": "human", "lang_pairs": ["JA-JA"]})]:
        result = sepia.evaluate_stored(store=on_store, **keywords)
        output = "tsv" if "tsv" in options else "table"
        assert result.render(output) == cli("evaluate", "--store", "--no-save", *options)
    with pytest.raises(ValueError, match="takes no option"):
        sepia.evaluate_stored(store=on_store, matcher_options={"nonesuch": "1"})


# -- budgeted estimates ----------------------------------------------------------------------------

def budget_cli(*args: str) -> str:
    c = CORPORA / "cs"
    return cli("metaeval", "budget", "--gold", str(c / "gold.xml"), "--runs", str(c / "runs"), "--judgments",
               str(c / "judgments.tsv"), "--trials", "30", *args)


@pytest.mark.parametrize("options,keywords", [
    ((), {}),
    (("--budgets", "20,50", "--matcher", "softmatch", "--stem", "--seed", "4", "--format", "json"),
     {"budgets": [20, 50], "matcher": "softmatch", "stem": True, "seed": 4}),
])
def test_budget_gives_the_commands_output(options, keywords):
    c = CORPORA / "cs"
    result = sepia.budget(gold=c / "gold.xml", runs=c / "runs", judgments=c / "judgments.tsv", trials=30, **keywords)
    assert result.render("json" if "json" in options else "table") == budget_cli(*options)
    records = result.to_records()
    budgets = keywords.get("budgets", [10, 20, 30, 50])
    pairs = [g["language_pair"] for g in result.report["language_pairs"]]
    assert pairs == ["CS-CS", "EN-CS"]
    assert [(r["language_pair"], r["plan"], r["budget"]) for r in records] == [
        (pair, plan, b) for pair in pairs for plan in ("topics", "items") for b in budgets]
    for group in result.report["language_pairs"]:
        topic_rows = {r["budget"]: r for r in records if r["plan"] == "topics" and r["language_pair"] == group[
            "language_pair"]}
        for row in group["budgets"]:  # flattened, every figure kept
            flat = topic_rows[row["budget"]]
            assert flat["matcher"] == keywords.get("matcher", "binarized") and flat["judged"] == row["judged"]
            assert all(flat[f"means_{k}"] == v for k, v in row.get("means", {}).items())
            assert all(flat[f"differences_{k}"] == v for k, v in row.get("differences", {}).items())


def test_budget_with_the_learned_matcher_gives_the_commands_plans():
    c = CORPORA / "ja"
    result = sepia.budget(gold=c / "gold.xml", runs=c / "runs", judgments=c / "judgments.tsv", trials=20,
                          matcher="learned", budgets=[30])
    printed = json.loads(cli("metaeval", "budget", "--gold", str(c / "gold.xml"), "--runs", str(c / "runs"),
                             "--judgments", str(c / "judgments.tsv"), "--trials", "20", "--budgets", "30",
                             "--matcher", "learned", "--format", "json"))
    ours = json.loads(result.render("json"))
    untimed = [{k: v for k, v in plan.items() if k != "seconds"} for plan in ours["plans"]]
    assert untimed == [{k: v for k, v in plan.items() if k != "seconds"} for plan in printed["plans"]]
    assert ours["settings"] == printed["settings"] and ours["feature"] is None
    assert {(r["plan"], r["matcher"]) for r in result.to_records()} == {
        ("topics", "binarized"), ("topics", "learned"), ("items", "binarized"), ("items", "learned"),
        ("active", "learned"), ("shrunk", "learned")}


def test_budget_refuses_what_cannot_be_simulated(tmp_path):
    c = CORPORA / "cs"
    one = tmp_path / "auto.tsv"
    lines = (c / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    one.write_text("\n".join([lines[0], *(x for x in lines[1:] if x.endswith("\tcs-a1"))]) + "\n", encoding="utf-8")
    common = {"gold": c / "gold.xml", "runs": c / "runs", "judgments": c / "judgments.tsv", "trials": 5}
    with pytest.raises(api.CallError, match="give one --auto-judgments file"):
        sepia.budget(**common, auto_judgments=[f"A={one}", f"B={one}"])
    with pytest.raises(ValueError, match="not 0%"):
        sepia.budget(**common, budgets=[0, 20])
    with pytest.raises(ValueError, match="an active plan has at least two waves .* not 1"):
        sepia.budget(**common, matcher="learned", waves=1)
    with pytest.raises(ValueError, match="human is not an automatic matcher"):
        sepia.budget(**common, matcher="human")
    with pytest.raises(api.OptionError, match="the exact matcher takes no option nope"):
        sepia.budget(**common, matcher="exact", matcher_options={"nope": "1"})
    (tmp_path / "none").mkdir()
    with pytest.raises(api.CallError, match="no judgments found"):
        sepia.budget(**{**common, "judgments": tmp_path / "none"})
    nothing = sepia.budget(**{**common, "runs": CORPORA / "ja" / "runs"})
    assert nothing.report["language_pairs"] == [] and nothing.to_records() == []
    assert "the gold standard has no JA topics with nuggets; run TEAMA-JA-JA-01-T scores 0" in nothing.warnings


def test_plan_estimates_give_what_the_command_gives_from_the_store(plan_campaign, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "50%", "--seed", "3"]).exit_code == 0
    with pytest.raises(ValueError, match="no topic of the judging plan is judged yet"):
        sepia.plan_estimates(pool="p")
    planned = json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    topics = {t["topic_id"] for t in planned["by_stratum"][0]["topics"]}
    lines = (CORPORA / "cs" / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    (tmp_path / "sample.tsv").write_text("\n".join([lines[0], *(x for x in lines[1:] if x.split("\t")[0] in topics)])
                                         + "\n", encoding="utf-8")
    assert runner.invoke(main, ["import", str(tmp_path / "sample.tsv")]).exit_code == 0
    estimates = sepia.plan_estimates(pool="p", level=0.9, matcher="softmatch")
    assert estimates.to_json() == cli("evaluate", "--store", "--plan", "p", "--level", "0.9", "--matcher", "softmatch",
                                      "--format", "json")
    tsv = cli("evaluate", "--store", "--plan", "p", "--level", "0.9", "--matcher", "softmatch", "--format", "tsv")
    records = estimates.to_records()
    rows = [line.split("\t") for line in tsv.splitlines()[1:]]
    assert [(r["run_id"], r["other_run_id"] or "", f"{r['estimate']:.4f}", str(r["judged"])) for r in records] == [
        (row[0 + 1], row[2], row[4], row[8]) for row in rows]
    assert [r["decided"] for r in records if r["other_run_id"]] == [row[10] == "true" for row in rows if row[2]]
    with pytest.raises(ValueError, match="correct an automatic matcher"):
        sepia.plan_estimates(pool="p", matcher="human")
