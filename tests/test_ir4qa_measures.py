"""IR4QA measures against NTCIREVAL's published test vector and hand calculations."""
import math

import pytest

from sepia.formats.errors import FormatError
from sepia.ir4qa import registry
from sepia.ir4qa.measures import parse_gains, score_ranking
from sepia.ir4qa.qrels import parse_qrels

QRELS = {**{f"dummy{i:02d}": 3 for i in (1, 2, 3)}, **{f"dummy{i:02d}": 2 for i in (4, 5, 6)},
         **{f"dummy{i:02d}": 1 for i in (7, 8, 9, 10)}, "dummy11": 0}
RANKING = ["dummy11", "dummy01", "dummy12", "dummy04"]


def test_ntcireval_test_vector_gains_1_2_3():
    s = score_ranking(RANKING, QRELS, parse_gains("1:2:3"))
    assert (round(s.ap, 4), round(s.q, 4), round(s.ndcg, 4)) == (0.1000, 0.0967, 0.3380)
    assert (s.relevant, s.retrieved_relevant) == (10, 2)


def test_ntcireval_test_vector_gains_1_4_9():
    s = score_ranking(RANKING, QRELS, parse_gains("1:4:9"))
    assert (round(s.q, 4), round(s.ndcg, 4)) == (0.0929, 0.3636)
    assert round(s.ap, 4) == 0.1000  # AP ignores gains


def test_q_and_ndcg_by_hand():
    # R = 2 (gains 2 and 1); the run finds the L1 document first, then the L2 one
    s = score_ranking(["b", "x", "a"], {"a": 2, "b": 1}, [1, 2])
    assert s.ap == pytest.approx((1 / 1 + 2 / 3) / 2)
    # Q: rank 1 (1 + 1) / (2 + 1); rank 3 (3 + 2) / (3 + 3)
    assert s.q == pytest.approx(((2 / 3) + (5 / 6)) / 2)
    # nDCG: run 1 + 0 + 2 / log2(3); ideal 2 + 1
    assert s.ndcg == pytest.approx((1 + 2 / math.log2(3)) / 3)


# R = 3 (a: L2, b and c: L1), N = 3 judged non-relevant (n3 not retrieved); x is unjudged. Gains 1:2,
# so gmax = 2. The relevant documents are at ranks 2 (b), 4 (a) and 6 (c).
HAND_QRELS = {"a": 2, "b": 1, "c": 1, "n1": 0, "n2": 0, "n3": 0}
HAND_RANKING = ["n1", "b", "x", "a", "n2", "c"]
log2 = math.log2
HAND = {
    "AP": (1 / 2 + 2 / 4 + 3 / 6) / 3,
    "AP@2": (1 / 2) / 3,
    "ntcir:AP@2": (1 / 2) / 2,  # NTCIREVAL's AP@l: over min(l, R)
    "AP(rel=2)": (1 / 4) / 1,  # only a is relevant at level 2 or above
    # cg(r) 1, 3, 4 and cg*(r) 3, 4, 4 (ideal gains 2, 1, 1) at ranks 2, 4, 6
    "ntcir:Q": ((1 + 1) / (3 + 2) + (3 + 2) / (4 + 4) + (4 + 3) / (4 + 6)) / 3,
    "ntcir:Q@4": ((1 + 1) / (3 + 2) + (3 + 2) / (4 + 4)) / 3,
    "ntcir:Q@2": ((1 + 1) / (3 + 2)) / 2,  # over min(2, R)
    "ntcir:nDCG": (1 / 1 + 2 / log2(4) + 1 / log2(6)) / (2 / 1 + 1 / 1 + 1 / log2(3)),
    "ntcir:nDCG@2": (1 / 1) / (2 / 1 + 1 / 1),
    "ntcir:MSnDCG": (1 / log2(3) + 2 / log2(5) + 1 / log2(7)) / (2 / log2(2) + 1 / log2(3) + 1 / log2(4)),
    "ntcir:MSnDCG@4": (1 / log2(3) + 2 / log2(5)) / (2 / log2(2) + 1 / log2(3) + 1 / log2(4)),
    # ir_measures' nDCG: the level is the gain (here the gains 1:2 are the levels too)
    "nDCG": (1 / log2(3) + 2 / log2(5) + 1 / log2(7)) / (2 / log2(2) + 1 / log2(3) + 1 / log2(4)),
    "nDCG@4": (1 / log2(3) + 2 / log2(5)) / (2 / log2(2) + 1 / log2(3) + 1 / log2(4)),
    "nDCG(dcg='exp-log2')@4": (1 / log2(3) + 3 / log2(5)) / (3 / 1 + 1 / log2(3) + 1 / log2(4)),  # 2^l - 1
    "nDCG(gains={1:5})@4": (5 / log2(3) + 2 / log2(5)) / (5 / 1 + 5 / log2(3) + 2 / log2(4)),  # L2 keeps 2
    "P": 3 / 1000, "P@4": 2 / 4, "P@10": 3 / 10,  # over k even where the list is shorter
    "P(rel=2)@4": 1 / 4,
    "R": 3 / 3, "R@4": 2 / 3,
    "RR": 1 / 2, "RR@1": 0.0,
    "Success@1": 0.0, "Success@2": 1.0,
    "Rprec": 1 / 3,  # b alone in the top R = 3
    # stopping probability g / (gmax + 1): 1/3 for L1, 2/3 for L2; the ideal list is a, b, c
    "ntcir:nERR": ((1 / 3) / 2 + (2 / 3) * (2 / 3) / 4 + (2 / 3) * (1 / 3) * (1 / 3) / 6)
                  / ((2 / 3) / 1 + (1 / 3) * (1 / 3) / 2 + (1 / 3) * (2 / 3) * (1 / 3) / 3),
    # (2^g - 1) / 2^gmax: 1/4 for L1, 3/4 for L2
    "sepia:nERRexp@4": ((1 / 4) / 2 + (3 / 4) * (3 / 4) / 4)
                       / ((3 / 4) / 1 + (1 / 4) * (1 / 4) / 2 + (1 / 4) * (3 / 4) * (1 / 4) / 3),
    # gdeval's (2^g - 1) / 2^4: 1/16 for L1, 3/16 for L2; not normalised
    "ERR@4": (1 / 16) / 2 + (15 / 16) * (3 / 16) / 4,
    # min(R, N) = 3; judged non-relevant above b: 1, above a: 1, above c: 2
    "Bpref": ((1 - 1 / 3) + (1 - 1 / 3) + (1 - 2 / 3)) / 3,
    "Bpref@4": ((1 - 1 / 3) + (1 - 1 / 3)) / 3,
    "Judged": 5 / 6, "Judged@3": 2 / 3, "Judged@10": 5 / 6,  # over the list where it is shorter than k
    "NumRet": 6, "NumRel": 3, "NumRelRet": 3,
}


def test_every_measure_by_hand():
    s = score_ranking(HAND_RANKING, HAND_QRELS, [1, 2], measures=list(HAND))
    assert s.values == pytest.approx(HAND, abs=1e-15)
    assert {registry.parse_measure(name)[0] for name in HAND} == set(registry.REGISTRY)  # every measure


def test_measures_of_a_condensed_list_by_hand():
    # x dropped: n1, b, a, n2, c; relevant at ranks 2, 3 and 5
    s = score_ranking(HAND_RANKING, HAND_QRELS, [1, 2], measures=["AP", "P@3", "RR", "Bpref", "Judged"],
                      condensed=True)
    assert s.values == pytest.approx({"AP": (1 / 2 + 2 / 3 + 3 / 5) / 3, "P@3": 2 / 3, "RR": 1 / 2,
                                      "Bpref": 5 / 9, "Judged": 1.0}, abs=1e-15)


def test_perfect_ranking_scores_one():
    s = score_ranking(["a", "b", "c"], {"a": 2, "b": 2, "c": 1}, [1, 2])
    assert (s.ap, s.q, s.ndcg) == (1.0, 1.0, 1.0)


def test_cutoff_and_no_relevant_documents():
    s = score_ranking(["x", "a"], {"a": 1}, [1], cutoff=1)
    assert (s.ap, s.q, s.ndcg) == (0.0, 0.0, 0.0)
    assert score_ranking(["a"], {"a": 0}, [1]).ap == 0.0


def test_levels_without_gains_and_bad_gains_are_refused():
    with pytest.raises(ValueError, match="L3 has no gain"):
        score_ranking(["a"], {"a": 3}, [1, 2])
    for text in ("1:x", "0:1", ""):
        with pytest.raises(ValueError):
            parse_gains(text)


def test_qrels_parsing():
    qrels = parse_qrels("topic_id\tdocid\tlevel\nX-CS-1\tD1\t2\nX-CS-1\tD2\tL1\nX-CS-2\tD1\t0\n")
    assert qrels == {"X-CS-1": {"D1": 2, "D2": 1}, "X-CS-2": {"D1": 0}}
    with pytest.raises(FormatError) as error:
        parse_qrels("topic_id\tdocid\tlevel\nX-CS-1\tD1\thigh\nX-CS-1\tD1\t1\nX-CS-1\tD1\t2\nbad\n", "q.tsv")
    messages = [str(p) for p in error.value.problems]
    assert "q.tsv:2:11: level must be 0, 1, 2, ... or L0, L1, ..., got 'high'" in messages
    assert "q.tsv:4:1: document D1 is judged twice for topic X-CS-1 (first on line 3)" in messages
    assert "q.tsv:5:1: expected 3 tab-separated fields, got 1" in messages


def test_command_on_the_test_vector(tmp_path):
    import json

    from click.testing import CliRunner

    from sepia.cli import main
    from sepia.formats.model import IR4QARun, IR4QATopic, Metadata, RetrievedDoc
    from sepia.formats.write import to_xml

    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("topic_id\tdocid\tlevel\n" + "".join(f"X-CS-1\t{d}\tL{level}\n" for d, level in QRELS.items()))
    run = tmp_path / "T-CS-CS-01-T.xml"
    run.write_bytes(to_xml(IR4QARun(Metadata("T-CS-CS-01-T"), [
        IR4QATopic("X-CS-1", [RetrievedDoc(i + 1, d) for i, d in enumerate(RANKING)])])))
    result = CliRunner().invoke(main, ["evaluate-ir4qa", "--qrels", str(qrels), "--run", str(run),
                                       "--gains", "1:4:9", "--format", "json"])
    assert result.exit_code == 0, result.output
    [scores] = json.loads(result.stdout)["runs"]
    assert (round(scores["AP"], 4), round(scores["ntcir:Q"], 4), round(scores["ntcir:nDCG"], 4)) == (0.1, 0.0929, 0.3636)
    table = CliRunner().invoke(main, ["evaluate-ir4qa", "--qrels", str(qrels), str(run)]).stdout
    assert "RUN               AP  ntcir:Q  ntcir:nDCG\nT-CS-CS-01-T  0.1000   0.0967      0.3380\n" in table  # gains 1:2:3
    bad = CliRunner().invoke(main, ["evaluate-ir4qa", "--qrels", str(qrels), str(run), "--gains", "1:2"])
    assert bad.exit_code == 2 and "L3 has no gain" in bad.output
