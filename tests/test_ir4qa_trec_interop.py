"""SEPIA's IR measures against trec_eval (pytrec_eval) and ir_measures on random data with score
ties and unjudged documents; TREC qrels and runs read by content; trec_eval -q output; NTCIREVAL's
cut-off divisor (ntcir:AP@k, ntcir:Q@k) and condensed lists."""
import json
import math
import random

import ir_measures
import pytest
import pytrec_eval
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.errors import FormatError
from sepia.ir4qa import registry
from sepia.ir4qa.measures import score_ranking
from sepia.ir4qa.trec import parse_trec_qrels, parse_trec_runs, qrels_to_trec, trec_eval_order

K = (1, 3, 5, 10, 20)


def random_collection(seed: int, topics: int = 25, top_level: int = 3):
    """qrels (levels 0..top_level, some topics without a relevant document) and a TREC run whose
    scores repeat (ties) and which retrieves unjudged documents."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(topics):
        qid = str(301 + t)  # numeric, as gdeval needs
        pool = [f"d{rng.randrange(60):02d}" for _ in range(40)]
        qrels[qid] = {d: rng.choice([0, 0, 0, *range(1, top_level + 1)]) for d in pool[:rng.randrange(1, 30)]}
        retrieved = dict.fromkeys(rng.sample([f"d{i:02d}" for i in range(60)], rng.randrange(0, 45)))
        run[qid] = {d: float(rng.randrange(8)) for d in retrieved}  # few distinct scores: many ties
    return qrels, run


def sepia_values(qrels, run, measures, top_level=3, cutoff=1000, **options):
    gains = [float(level) for level in range(1, top_level + 1)]
    return {qid: score_ranking([d for d, _ in trec_eval_order(run.get(qid, {}))], judged, gains, cutoff=cutoff,
                               measures=measures, **options).values
            for qid, judged in qrels.items() if any(level > 0 for level in judged.values())}


def trec_eval_names(cutoff: int, ks=K) -> list[tuple[str, str]]:
    """(SEPIA's name, trec_eval's) of every measure the registry names trec_eval's counterpart of, at
    the cut-off and at each k, and AP beside trec_eval's uncut map."""
    names = [(name, registry.trec_eval_name(name, cutoff)) for family, measure in registry.REGISTRY.items()
             if measure.trec_eval for name in (family, *(f"{family}@{k}" for k in ks if measure.cut))]
    return [(name, trec_name) for name, trec_name in names if trec_name] + [("AP", "map")]


def trec_eval_values(qrels, run, names, condensed=False):
    """pytrec_eval's values of the measures `trec_eval_names` gives."""
    cuts: dict[str, set[str]] = {}
    for _, trec_name in names:
        measure, _, k = trec_name.rpartition("_") if trec_name[-1].isdigit() else (trec_name, "", "")
        cuts.setdefault(measure, set()).update([k] if k else [])
    wanted = {m + "." + ",".join(sorted(ks)) if ks else m for m, ks in cuts.items()}
    return pytrec_eval.RelevanceEvaluator(qrels, wanted, judged_docs_only_flag=condensed).evaluate(run)


def assert_equal_to_trec_eval(ours, expected, names) -> int:
    compared = 0
    for qid, values in ours.items():
        if qid not in expected:  # trec_eval leaves out topics the run did not answer
            assert all(v == 0 for n, v in values.items() if n != "NumRel")
            continue
        for name, trec_name in names:
            assert values[name] == pytest.approx(expected[qid][trec_name], abs=1e-12), (qid, name, trec_name)
            compared += 1
    return compared


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("condensed", [False, True])
def test_measures_equal_trec_eval(seed, condensed):
    qrels, run = random_collection(seed)
    names = trec_eval_names(1000)
    assert {n.partition("@")[0] for n, _ in names} == {"AP", "nDCG", "ntcir:MSnDCG", "P", "R", "RR", "Success", "Rprec",
                                                       "Bpref", "NumRet", "NumRel", "NumRelRet"}
    ours = sepia_values(qrels, run, [name for name, _ in names], condensed=condensed)
    assert assert_equal_to_trec_eval(ours, trec_eval_values(qrels, run, names, condensed), names) > 300


def test_lists_longer_than_1000_equal_trec_eval():
    # lists of 1,800 documents and a cut-off of 2,000: ranks past 1000 count (the discounts grow past it)
    rng = random.Random(21)
    qrels, run = {}, {}
    for qid in ("1", "2", "3"):
        docs = [f"d{i:04d}" for i in rng.sample(range(3000), 1800)]
        qrels[qid] = {d: rng.choice([0, 0, 1, 2, 3]) for d in rng.sample(docs, 400)}
        run[qid] = {d: float(rng.randrange(300)) for d in docs}
    names = trec_eval_names(2000, ks=(5, 1200, 1500))
    ours = sepia_values(qrels, run, [name for name, _ in names], cutoff=2000)
    assert assert_equal_to_trec_eval(ours, trec_eval_values(qrels, run, names), names) > 30


def test_judged_at_k_equals_ir_measures():
    qrels, run = random_collection(7)
    # ir_measures breaks score ties its own way: give it SEPIA's ranking as distinct scores
    ranked = {qid: [d for d, _ in trec_eval_order(docs)] for qid, docs in run.items()}
    scored = [ir_measures.ScoredDoc(qid, d, float(-i)) for qid, docs in ranked.items() for i, d in enumerate(docs)]
    qrel_list = [ir_measures.Qrel(qid, d, level) for qid, docs in qrels.items() for d, level in docs.items()]
    measures = [ir_measures.Judged @ k for k in K]
    expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrel_list, scored)}
    ours = sepia_values(qrels, run, [f"Judged@{k}" for k in K])
    compared = 0
    for qid, values in ours.items():
        for k in K:
            if (qid, f"Judged@{k}") in expected:
                assert values[f"Judged@{k}"] == pytest.approx(expected[qid, f"Judged@{k}"]), (qid, k)
                compared += 1
    assert compared > 50


def test_nerrexp_equals_gdeval_err_over_the_ideal_lists_err():
    # gdeval (TREC Web track) computes ERR with stopping probability (2^g - 1) / 2^4: levels 0..4
    qrels, run = random_collection(11, top_level=4)
    ranked = {qid: [d for d, _ in trec_eval_order(docs)] for qid, docs in run.items()}
    qrel_list = [ir_measures.Qrel(qid, d, level) for qid, docs in qrels.items() for d, level in docs.items()]
    measures = [ir_measures.ERR @ k for k in K]

    def gdeval(lists):
        scored = [ir_measures.ScoredDoc(qid, d, float(-i)) for qid, docs in lists.items() for i, d in enumerate(docs)]
        return {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrel_list, scored)}

    actual = gdeval(ranked)
    ideal = gdeval({qid: sorted((d for d in docs if docs[d] > 0), key=lambda d: -docs[d]) for qid, docs in qrels.items()})
    ours = sepia_values(qrels, run, [f"sepia:nERRexp@{k}" for k in K], top_level=4)
    compared = 0
    for qid, values in ours.items():
        for k in K:
            if (qid, f"ERR@{k}") in actual:
                # gdeval prints five decimals
                assert values[f"sepia:nERRexp@{k}"] == pytest.approx(actual[qid, f"ERR@{k}"] / ideal[qid, f"ERR@{k}"],
                                                               abs=2e-4), (qid, k)
                compared += 1
    assert compared > 50


def test_ntcireval_ap_and_q_at_k_divide_by_min_k_r():
    # R = 4; the run finds relevant documents at ranks 1 and 3; at k = 3, NTCIREVAL divides by 3
    judged = {"a": 1, "b": 2, "c": 1, "d": 1}
    ranking = ["a", "x", "b", "y", "c"]
    s = score_ranking(ranking, judged, [1, 2], measures=["AP@3", "ntcir:AP@3", "ntcir:Q@3", "ntcir:Q", "AP",
                                                          "ntcir:AP"]).values
    ap_sum = 1 / 1 + 2 / 3
    assert (s["AP@3"], s["ntcir:AP@3"]) == (pytest.approx(ap_sum / 4), pytest.approx(ap_sum / 3))  # R, min(k, R)
    # Q: ideal gains 2, 1, 1, 1; rank 1 (1 + 1) / (2 + 1), rank 3 (3 + 2) / (4 + 3)
    assert s["ntcir:Q@3"] == pytest.approx((2 / 3 + 5 / 7) / 3)
    assert s["AP"] == s["ntcir:AP"]  # at the cut-off itself both divide by R


def test_ndcg_original_and_microsoft_discounts():
    s = score_ranking(["x", "a", "b"], {"a": 1, "b": 2}, [1, 2], measures=["ntcir:nDCG@3", "ntcir:MSnDCG@3", "nDCG@3"])
    assert s.values["ntcir:nDCG@3"] == pytest.approx((0 + 1 + 2 / math.log2(3)) / (2 + 1))
    assert s.values["ntcir:MSnDCG@3"] == pytest.approx((1 / math.log2(3) + 2 / 2) / (2 + 1 / math.log2(3)))
    assert s.values["nDCG@3"] == s.values["ntcir:MSnDCG@3"]  # gains 1:2 are the levels


def test_registry_names():
    assert registry.parse_measures("ap, p@10 ntcir:nerr@5") == ("AP", "P@10", "ntcir:nERR@5")
    assert registry.parse_measures(None) == ("AP", "ntcir:Q", "ntcir:nDCG")
    assert registry.trec_eval_name("P@10", 1000) == "P_10" and registry.trec_eval_name("ntcir:Q", 1000) is None
    assert registry.trec_eval_name("P(rel=2)@10", 1000) is None  # trec_eval's -l is for the whole run
    with pytest.raises(ValueError, match="unknown measure 'MAP@x'"):
        registry.parse_measures("MAP@x")


def test_trec_files_read_and_refused():
    assert parse_trec_qrels("301 0 D1 2\n301 0 D2 0\n302 0 D1 1\n") == {"301": {"D1": 2, "D2": 0}, "302": {"D1": 1}}
    [a, b] = parse_trec_runs("1 Q0 D1 1 0.5 A\n1 Q0 D2 2 0.5 A\n1 Q0 D3 3 0.9 A\n1 Q0 D1 1 3 B\n")
    assert a == ("A", {"1": ["D3", "D2", "D1"]}) and b == ("B", {"1": ["D1"]})
    with pytest.raises(FormatError) as error:
        parse_trec_qrels("1 0 D1 x\n1 0 D1 1\n1 0 D1 1\n1 0\n", "q")
    assert [str(p) for p in error.value.problems] == [
        "q:1:1: relevance must be 0, 1, 2, ..., got 'x'", "q:3:1: document D1 is judged twice for topic 1",
        "q:4:1: expected 4 fields (qid iter docid rel), got 2"]
    with pytest.raises(FormatError) as error:
        parse_trec_runs("1 Q0 D1 1 high A\n\n1 Q0 D2 2 1 A\n1 Q0 D2 3 0 A\n1 Q0 D3 4 0\n", "r")
    assert [str(p) for p in error.value.problems] == [
        "r:1:1: score must be a number, got 'high'", "r:4:1: document D2 is retrieved twice for topic 1",
        "r:5:1: expected 6 fields (qid Q0 docid rank score tag), got 5"]


def test_command_reads_trec_files_and_prints_trec_eval_q(tmp_path):
    qrels, run = random_collection(3, topics=8)
    (tmp_path / "qrels.txt").write_text(qrels_to_trec(qrels))
    (tmp_path / "run.txt").write_text("".join(f"{qid} Q0 {d} {i} {s} tagA\n" for qid, docs in run.items()
                                              for i, (d, s) in enumerate(docs.items())))
    args = ["evaluate-ir4qa", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"),
            "--measures", "AP,P@10,Bpref,RR"]
    result = CliRunner().invoke(main, [*args, "--format", "trec"])
    assert result.exit_code == 0, result.output
    lines = [line.split("\t") for line in result.stdout.splitlines()]
    assert [f.strip() for f in lines[0]] == ["runid", "all", "tagA"]
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.10", "bpref", "recip_rank"}).evaluate(run)
    names = {"AP": "map", "P@10": "P_10", "Bpref": "bpref", "RR": "recip_rank"}
    checked = 0
    for measure, qid, value in lines[1:]:
        if qid != "all" and qid in expected:
            assert float(value) == pytest.approx(expected[qid][names[measure.strip()]], abs=5e-5)
            checked += 1
    assert checked > 10
    data = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).stdout)
    assert list(data["runs"][0]) == ["run_id", "AP", "P@10", "Bpref", "RR", "topics"]
    tsv = CliRunner().invoke(main, [*args, "--format", "tsv"]).stdout.splitlines()
    assert tsv[0] == "run_id\ttopic_id\tAP\tP@10\tBpref\tRR\tR"
    table = CliRunner().invoke(main, args).stdout
    assert "RUN       AP    P@10   Bpref      RR" in table


def test_store_exports_trec_qrels_that_score_alike(store_url, monkeypatch, tmp_path):
    from sepia.demo import collection_files
    from sepia.resources import resource_dir

    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    cs = resource_dir("corpora") / "cs"
    runs = sorted((cs / "ir4qa").glob("*.xml"))
    assert CliRunner().invoke(main, ["import", str(collection_files(cs)["qrels"]), *map(str, runs)]).exit_code == 0
    exported = CliRunner().invoke(main, ["export", "qrels", "--trec", "--out", str(tmp_path / "q.txt")])
    assert exported.exit_code == 0, exported.output
    first = (tmp_path / "q.txt").read_text().splitlines()[0].split(" ")
    assert len(first) == 4 and first[1] == "0"
    flags = ["--measures", "AP,ntcir:Q,ntcir:nDCG,nDCG@10,P@5,Bpref", "--format", "json"]
    tsv = CliRunner().invoke(main, ["evaluate-ir4qa", "--qrels", str(cs / "qrels.tsv"), *map(str, runs), *flags])
    trec = CliRunner().invoke(main, ["evaluate-ir4qa", "--qrels", str(tmp_path / "q.txt"), *map(str, runs), *flags])
    stored = CliRunner().invoke(main, ["evaluate-ir4qa", "--store", "--no-save", *flags])
    assert json.loads(trec.stdout)["runs"] == json.loads(tsv.stdout)["runs"] == json.loads(stored.stdout)["runs"]
    assert CliRunner().invoke(main, ["export", "qrels", "--trec", "--by-assessor"]).exit_code == 2
