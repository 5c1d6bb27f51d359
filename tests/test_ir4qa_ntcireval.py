"""SEPIA's IR4QA measures against pyNTCIREVAL (Makoto P. Kato's Python port of NTCIREVAL, the C tool
whose definitions the spec follows), on random graded qrels and runs with unjudged documents: the
`ntcir:` measures (AP@k and Q@k, beta 1, with NTCIREVAL's cut-off divisor min(k, R), the original
nDCG (log base 2), MSnDCG, nERR (stopping probability g/(gmax+1))), and AP, P@k and RR, which are
NTCIREVAL's too, at several cut-offs and with several gain vectors."""
import random

import pytest
from pyNTCIREVAL.metrics import AP, RR, MSnDCG, Precision, QMeasure, nDCG, nERR

from sepia.ir4qa.measures import score_ranking

CUTOFFS = (1, 3, 10, 30)
GAINS = ([1.0, 2.0, 3.0], [1.0, 4.0, 9.0], [0.3, 1.7, 9.1])


def random_topic(rng: random.Random) -> tuple[dict[str, int], list[str]]:
    """Qrels of levels 0..3 (at least one relevant document) and a ranked list that also holds
    documents nobody judged."""
    judged = {f"d{i:03d}": rng.choice([0, 0, 1, 2, 3]) for i in rng.sample(range(200), rng.randrange(1, 60))}
    if not any(judged.values()):
        judged[next(iter(judged))] = rng.randrange(1, 4)
    pool = list(judged) + [f"u{i:03d}" for i in range(rng.randrange(0, 30))]
    return judged, rng.sample(pool, rng.randrange(1, len(pool) + 1))


def ntcireval_values(judged: dict[str, int], ranking: list[str], gains: list[float]) -> dict[str, float]:
    xrelnum = [sum(1 for level in judged.values() if level == lvl) for lvl in range(len(gains) + 1)]
    labelled = [(docid, judged.get(docid)) for docid in ranking]
    values = {"AP": AP(xrelnum, gains).compute(labelled), "ntcir:Q": QMeasure(xrelnum, gains, 1.0).compute(labelled),
              "RR": RR().compute(labelled)}
    for k in CUTOFFS:
        values.update({
            f"ntcir:AP@{k}": AP(xrelnum, gains, k).compute(labelled),
            f"ntcir:Q@{k}": QMeasure(xrelnum, gains, 1.0, k).compute(labelled),
            f"ntcir:nDCG@{k}": nDCG(xrelnum, gains, 2, k).compute(labelled),
            f"ntcir:MSnDCG@{k}": MSnDCG(xrelnum, gains, k).compute(labelled),
            f"ntcir:nERR@{k}": nERR(xrelnum, gains, k).compute(labelled),
            f"P@{k}": Precision(k).compute(labelled)})
    return values


@pytest.mark.parametrize("gains", GAINS, ids=lambda g: ":".join(map(str, g)))
def test_measures_equal_ntcireval(gains):
    rng = random.Random(":".join(map(str, gains)))
    compared = 0
    for _ in range(150):
        judged, ranking = random_topic(rng)
        expected = ntcireval_values(judged, ranking, gains)
        ours = score_ranking(ranking, judged, gains, measures=list(expected)).values
        for name, value in expected.items():
            assert ours[name] == pytest.approx(value, rel=1e-12, abs=1e-15), (name, judged, ranking)
            compared += 1
    assert compared == 150 * (3 + 6 * len(CUTOFFS))
