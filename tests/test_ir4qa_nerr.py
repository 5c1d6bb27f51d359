"""nERR@k as NTCIREVAL defines it: the user stops at a document of gain g with probability
g / (gmax + 1) (NTCIREVAL's ntcir_eval; mpkato/pyNTCIREVAL's `_err_grade`), checked against the values
NTCIREVAL's README prints for its sample files and against hand calculations; the Chapelle et al. form
(2^g - 1) / 2^gmax stays available as sepia:nERRexp (checked against gdeval in test_ir4qa_trec_interop.py)."""
import pytest

from sepia.ir4qa.measures import parse_gains, score_ranking

# NTCIREVAL's sample.rel and sample.res (README, section 3.1)
QRELS = {**{f"dummy{i:02d}": 3 for i in (1, 2, 3)}, **{f"dummy{i:02d}": 2 for i in (4, 5, 6)},
         **{f"dummy{i:02d}": 1 for i in (7, 8, 9, 10)}, "dummy11": 0}
RANKING = ["dummy11", "dummy01", "dummy12", "dummy04"]


def test_ntcireval_readme_prints_nerr_at_1000_0_4710():
    s = score_ranking(RANKING, QRELS, parse_gains("1:2:3"), measures=["ntcir:nERR@1000", "ntcir:nERR"])
    assert round(s.values["ntcir:nERR@1000"], 4) == 0.4710
    assert s.values["ntcir:nERR"] == s.values["ntcir:nERR@1000"]  # the cut-off is 1000


def test_nerr_by_hand_from_ntcireval_definition():
    # gains 1:2:3, gmax 3: stopping probabilities L3 3/4, L2 2/4, L1 1/4, L0 and unjudged 0.
    # run L0, L3, unjudged, L2: ERR = (3/4)/2 + (1/4)(2/4)/4 = 0.40625 (the README's ERR= 0.4062)
    run_err = 0.75 / 2 + 0.25 * 0.5 / 4
    # ideal L3 L3 L3 L2 L2 L2 L1 L1 L1 L1
    ideal_err, not_stopped = 0.0, 1.0
    for rank, p in enumerate([0.75] * 3 + [0.5] * 3 + [0.25] * 4, start=1):
        ideal_err += not_stopped * p / rank
        not_stopped *= 1 - p
    s = score_ranking(RANKING, QRELS, parse_gains("1:2:3"), measures=["ntcir:nERR@1000", "ntcir:nERR@2"])
    assert run_err == 0.40625
    assert s.values["ntcir:nERR@1000"] == pytest.approx(run_err / ideal_err, abs=1e-15)
    # at k = 2 the ideal list is cut too: ideal ERR@2 = 3/4 + (1/4)(3/4)/2
    assert s.values["ntcir:nERR@2"] == pytest.approx((0.75 / 2) / (0.75 + 0.25 * 0.75 / 2), abs=1e-15)


def test_nerr_uses_the_gain_values_not_2_to_the_gain():
    # gains 1:4:9, gmax 9: a single L2 document at rank 1 of a topic whose only relevant document is L2
    s = score_ranking(["a"], {"a": 2}, parse_gains("1:4:9"), measures=["ntcir:nERR", "sepia:nERRexp"])
    assert s.values["ntcir:nERR"] == 1.0 and s.values["sepia:nERRexp"] == 1.0
    # an L1 document ahead of it: (1/10) + (9/10)(4/10)/2 over the ideal 4/10
    s = score_ranking(["b", "a"], {"a": 2, "b": 1}, parse_gains("1:4:9"), measures=["ntcir:nERR@2", "sepia:nERRexp@2"])
    ideal = 0.4 + 0.6 * 0.1 / 2
    assert s.values["ntcir:nERR@2"] == pytest.approx((0.1 + 0.9 * 0.4 / 2) / ideal, abs=1e-15)
    # Chapelle's form: (2^1 - 1) / 2^9 and (2^4 - 1) / 2^9
    p1, p4 = 1 / 512, 15 / 512
    assert s.values["sepia:nERRexp@2"] == pytest.approx((p1 + (1 - p1) * p4 / 2) / (p4 + (1 - p4) * p1 / 2), abs=1e-15)
