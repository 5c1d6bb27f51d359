"""The assessors' agreement on citation support (sepia/scoring/support.py): over the (sentence,
segment) pairs that two or more assessors judged, the share of pairs whose assessors all agree,
Fleiss' kappa (nominal) and Krippendorff's alpha (ordinal: none < partial < full), as `sepia
agreement` reports for nugget judgments."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from sepia.formats.model import Judgment
from sepia.metaeval.agreement import fleiss_kappa, krippendorff_alpha_counts
from sepia.scoring.support import LEVELS


@dataclass
class SupportAgreement:
    pairs: int  # (sentence, segment) pairs judged by two assessors or more
    exact: float  # share of those pairs whose assessors all gave the same support
    fleiss_kappa: float
    krippendorff_alpha: float  # ordinal


def support_agreement(judgments: Sequence[Judgment]) -> SupportAgreement:
    by_pair: dict[tuple, list[float]] = defaultdict(list)
    for j in judgments:
        by_pair[j.run_id, j.topic_id, j.answer_rank, j.nugget_id].append(float(j.match))
    counts = np.array([[values.count(level) for level in LEVELS] for values in by_pair.values() if len(values) > 1],
                      float).reshape(-1, len(LEVELS))
    exact = float(np.mean(counts.max(1) == counts.sum(1))) if len(counts) else float("nan")
    used = counts.sum(0) > 0  # alpha's ordinal distances count only the levels given
    return SupportAgreement(len(counts), exact, fleiss_kappa(counts),
                            krippendorff_alpha_counts(counts[:, used], np.array(LEVELS)[used], "ordinal"))
