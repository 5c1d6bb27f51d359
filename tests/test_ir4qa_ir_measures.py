"""ir_measures' names mean ir_measures' measures: every ir_measures name SEPIA takes gives, topic by
topic and in the means, the number ir_measures gives (random graded qrels, runs with many equal
scores and unjudged documents); NTCIREVAL's measures keep their numbers under `ntcir:`; the names
SEPIA used before say what they are called now."""
import random
import re

import ir_measures
import pytest
from click.testing import CliRunner

from sepia import api
from sepia.cli import main
from sepia.ir4qa import registry
from sepia.ir4qa.evaluate import stored_measures
from sepia.ir4qa.measures import score_ranking
from sepia.ir4qa.trec import trec_eval_order

K = (1, 3, 5, 10, 20)
# every ir_measures family SEPIA takes, with and without @k and with ir_measures' parameters
NAMES = ["AP", "nDCG", "RR", "Bpref", "Rprec", "NumRet", "NumRel", "NumRelRet", "Judged",
         "AP(rel=2)", "RR(rel=2)", "Rprec(rel=2)", "NumRelRet(rel=2)", "Bpref(rel=2)",
         *(f"{family}@{k}" for k in K for family in ("AP", "P", "R", "nDCG", "RR", "Success", "Judged", "ERR")),
         *(f"{family}(rel=2)@{k}" for k in K for family in ("AP", "P", "R", "RR", "Success")),
         *(f"nDCG(dcg='exp-log2')@{k}" for k in K), *(f"nDCG(gains={{0:0,1:1,2:3,3:7}})@{k}" for k in K),
         "nDCG(gains={1:5})@10"]


def random_collection(seed: int, topics: int = 30, top_level: int = 3):
    """TREC-style qrels (levels 0..top_level; some topics with no relevant document) and a run whose
    scores repeat (ties), which retrieves unjudged documents and leaves some topics out."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(topics):
        qid = str(301 + t)
        pool = [f"d{rng.randrange(60):02d}" for _ in range(40)]
        qrels[qid] = {d: rng.choice([0, 0, 0, *range(1, top_level + 1)]) for d in pool[:rng.randrange(1, 30)]}
        if rng.random() < 0.9:
            retrieved = dict.fromkeys(rng.sample([f"d{i:02d}" for i in range(60)], rng.randrange(0, 45)))
            run[qid] = {d: float(rng.randrange(8)) for d in retrieved}  # few distinct scores: many ties
    return qrels, run


def ir_measures_values(qrels, run, names):
    """ir_measures' value of each name for each topic it scores; each name in a call of its own (in
    one call, ir_measures gives nDCG the gains of nDCG(gains=...)). A measure trec_eval computes for
    ir_measures gets the run with its tied scores, which both rank as trec_eval does; the others
    (msmarco's RR@k, gdeval's ERR and exp-log2 nDCG, Judged) break ties their own way, so they get
    trec_eval's order as distinct scores."""
    qrel_list = [ir_measures.Qrel(q, d, level) for q, docs in qrels.items() for d, level in docs.items()]
    tied = [ir_measures.ScoredDoc(q, d, score) for q, docs in run.items() for d, score in docs.items()]
    untied = [ir_measures.ScoredDoc(q, d, float(-i)) for q, docs in run.items()
              for i, (d, _) in enumerate(trec_eval_order(docs))]
    found: dict[str, dict[str, float]] = {}
    for name in names:
        measure = ir_measures.parse_measure(name)
        scored = tied if provider(measure) == "pytrec_eval" else untied
        for m in ir_measures.iter_calc([measure], qrel_list, scored):
            found.setdefault(m.query_id, {})[name] = m.value
    return found


def provider(measure) -> str:
    """The name of the provider ir_measures computes the measure with."""
    return next(p.NAME for p in ir_measures.DefaultPipeline.providers if p.supports(measure) and p.is_available())


def sepia_values(qrels, run, names, gains=(1.0, 2.0, 3.0)):
    return {qid: score_ranking([d for d, _ in trec_eval_order(run.get(qid, {}))], judged, gains,
                               measures=names).values for qid, judged in qrels.items()}


@pytest.mark.parametrize("seed", range(3))
def test_every_ir_measures_name_gives_ir_measures_number(seed):
    qrels, run = random_collection(seed, top_level=4 if seed == 2 else 3)  # ERR's gdeval takes levels up to 4
    expected = ir_measures_values(qrels, run, NAMES)
    ours = sepia_values(qrels, run, NAMES, gains=[1.0, 2.0, 3.0, 4.0])
    compared = 0
    for qid, values in expected.items():
        for name, value in values.items():
            if name == "NumRel" and not run.get(qid):  # ir_measures fills a topic the run lacks with zeros
                assert ours[qid][name] == sum(level > 0 for level in qrels[qid].values())
                continue
            # gdeval (ir_measures' ERR and exp-log2 nDCG) prints five decimals
            digits = 1e-5 if provider(ir_measures.parse_measure(name)) == "gdeval" else 1e-12
            assert ours[qid][name] == pytest.approx(value, abs=digits), (qid, name)
            compared += 1
    assert compared > 2000 and {n for v in expected.values() for n in v} == set(NAMES)


def test_ir_measures_names_ignore_the_gains_of_ntcireval():
    # --gains is NTCIREVAL's -g: ir_measures' nDCG takes the level as the gain whatever the gains given
    qrels, run = random_collection(5)
    expected = ir_measures_values(qrels, run, ["nDCG@10", "AP"])
    ours = sepia_values(qrels, run, ["nDCG@10", "AP", "ntcir:MSnDCG@10"], gains=[0.3, 1.7, 9.1])
    assert all(ours[q]["nDCG@10"] == pytest.approx(v["nDCG@10"], abs=1e-12) for q, v in expected.items())
    assert any(ours[q]["nDCG@10"] != pytest.approx(ours[q]["ntcir:MSnDCG@10"]) for q in expected)


def trec_files(tmp_path, seed):
    qrels, run = random_collection(seed)
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {level}\n" for q, docs in qrels.items()
                                                for d, level in docs.items()))
    (tmp_path / "run.txt").write_text("".join(f"{q} Q0 {d} 1 {score} mine\n" for q, docs in run.items()
                                              for d, score in docs.items()))
    return qrels, run


@pytest.mark.parametrize("average", ["ir_measures", "trec_eval"])
def test_means_equal_ir_measures_calc_aggregate(tmp_path, average):
    # ir_measures' calc_aggregate is over every topic of the qrels (one the run lacks scores 0), as
    # --average ir_measures; trec_eval's average (without -c) over the run's topics found in the qrels
    qrels, run = trec_files(tmp_path, 3)
    if average == "trec_eval":
        qrels = {q: judged for q, judged in qrels.items() if run.get(q)}
    names = ["AP", "P@5", "R@10", "nDCG@10", "nDCG", "RR", "Bpref", "Judged@10", "P(rel=2)@5", "NumRet", "Rprec",
             "NumRelRet", "ERR@10", "RR@5"]  # ir_measures sums NumRet and NumRelRet over the topics
    scored = api.evaluate_ir4qa(qrels=tmp_path / "qrels.txt", runs=tmp_path / "run.txt", measures=names,
                                average=average)
    expected = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(n) for n in names],
        [ir_measures.Qrel(q, d, level) for q, docs in qrels.items() for d, level in docs.items()],
        # trec_eval's order as distinct scores: Judged's own code breaks ties its own way (ties: above)
        [ir_measures.ScoredDoc(q, d, float(-i)) for q, docs in run.items() for i, (d, _) in enumerate(trec_eval_order(docs))])
    means = scored.means()["mine"]
    for name in names:  # gdeval's ERR to its five printed decimals
        assert means[name] == pytest.approx(expected[ir_measures.parse_measure(name)],
                                            abs=1e-5 if name.startswith("ERR") else 1e-12), name


def test_the_issue_example_ndcg_is_ir_measures_and_ntcir_ndcg_is_ntcireval():
    # a relevant document at rank 2: ir_measures divides its gain by log2 3, NTCIREVAL's original nDCG not at all
    s = score_ranking(["x", "a"], {"a": 1, "x": 0}, [1.0], measures=["nDCG@10", "ntcir:nDCG@10", "ntcir:MSnDCG@10"])
    assert s.values["nDCG@10"] == s.values["ntcir:MSnDCG@10"] == pytest.approx(1 / 1.584962500721156)
    assert s.values["ntcir:nDCG@10"] == 1.0


def test_names_parsed_as_ir_measures_writes_them():
    assert registry.parse_measures("map, ndcg@10 Recall@5 MRR,P(rel=1)@10 P(rel=2)@10") == (
        "AP", "nDCG@10", "R@5", "RR", "P@10", "P(rel=2)@10")
    assert registry.parse_measures("nDCG(dcg='exp-log2')@10, nDCG(gains={2:3, 1:1})@5") == (
        "nDCG(dcg='exp-log2')@10", "nDCG(gains={1:1,2:3})@5")
    assert registry.parse_measures("NTCIR:q,ntcir:ndcg@10") == ("ntcir:Q", "ntcir:nDCG@10")
    assert registry.parse_measures(None) == ("AP", "ntcir:Q", "ntcir:nDCG")
    for given, says in [("P(rel=0)@5", "rel must be a relevance level of at least 1"),
                        ("nDCG(rel=2)@5", "nDCG takes no parameter rel \\(its own: dcg, gains\\)"),
                        ("nDCG(dcg='exp')", "dcg must be 'log2' or 'exp-log2'"), ("P(rel)@5", "NAME=VALUE"),
                        ("Rprec@5", "Rprec takes no @k"), ("ntcir:P@5", "unknown measure 'ntcir:P@5'")]:
        with pytest.raises(ValueError, match=says):
            registry.parse_measures(given)


@pytest.mark.parametrize("old, new", [("Q", "ntcir:Q"), ("Q@10", "ntcir:Q@k divides by min"),
                                      ("MSnDCG@10", "ntcir:MSnDCG"), ("nERR@10", "ntcir:nERR"),
                                      ("nerrexp@10", "sepia:nERRexp")])
def test_old_names_say_their_new_name(old, new):
    with pytest.raises(ValueError, match=f"unknown measure '{old}': .*{new}"):
        registry.parse_measures(old)


def test_the_command_notes_what_ndcg_means_and_refuses_the_old_divisor_flag(tmp_path):
    trec_files(tmp_path, 4)
    args = ["evaluate-ir4qa", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")]
    result = CliRunner().invoke(main, [*args, "--measures", "nDCG@10,AP", "--format", "tsv"])
    assert result.stdout.splitlines()[0] == "run_id\ttopic_id\tnDCG@10\tAP\tR"
    assert ("note: nDCG@10 is ir_measures' (rank r divided by log2(r + 1)); NTCIREVAL's original nDCG, which "
            "SEPIA's nDCG was until 2026-11-28, is ntcir:nDCG@10\n") in result.stderr
    result = CliRunner().invoke(main, [*args, "--ntcireval-cutoff"])
    assert result.exit_code == 2 and "--ntcireval-cutoff is gone: NTCIREVAL's AP@l and Q@l" in result.stderr
    result = CliRunner().invoke(main, [*args, "--measures", "Q"])
    assert result.exit_code == 2 and "unknown measure 'Q': NTCIREVAL's Q-measure is ntcir:Q" in result.stderr


def test_a_name_longer_than_the_store_keeps_is_refused_before_scoring_the_store():
    long_name = "nDCG(gains={1:1.25,2:3.5,3:7.75,4:9.5})@10"
    with pytest.raises(ValueError, match=f"the measure name {re.escape(long_name)} is 42 characters long; the "
                                         "store holds at most 40"):
        stored_measures(registry.parse_measures(long_name))
    result = CliRunner().invoke(main, ["evaluate-ir4qa", "--store", "--measures", long_name])
    assert result.exit_code == 2 and "the store holds at most 40" in result.stderr
