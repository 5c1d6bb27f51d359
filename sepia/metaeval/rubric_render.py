"""Plain-text tables of `sepia rubric agreement` and `sepia rubric scores` (JSON is the data itself)."""
from __future__ import annotations

from typing import Sequence

from sepia.formats.rubric import Rubric
from sepia.metaeval.render import align, fmt
from sepia.metaeval.rubric_agreement import DimensionAgreement, Dispute, PairKappa, ScoreAgreement
from sepia.scoring.rubric import RunScore
from sepia.text.columns import aligned


def agreement_text(rows: Sequence[DimensionAgreement], score: ScoreAgreement, pairs: Sequence[PairKappa],
                   found: Sequence[Dispute], tolerance: int, limit: int | None) -> str:
    lines = ["Agreement per dimension (answers graded by two or more assessors); alpha: Krippendorff's, interval:"]
    lines += align([["dimension", "answers", "grades", "assessors", "exact", "within 1", "alpha", "disputes"]] +
                   [[r.dimension, str(r.units), str(r.grades), str(r.assessors), fmt(r.exact), fmt(r.within_one),
                     fmt(r.alpha), str(r.disputes)] for r in rows])
    lines += [f"The weighted score (each assessor's own): alpha {fmt(score.alpha)} over {score.units} answers "
              "graded on every dimension by two or more assessors."]
    lines += ["", "Cohen's weighted kappa per pair of assessors (answers both graded):"]
    lines += aligned([["dimension", "first", "second", "answers", "linear", "quadratic"]] +
                     [[p.dimension, p.first, p.second, str(p.units), fmt(p.linear), fmt(p.quadratic)]
                      for p in pairs], left=3, indent="  ") if pairs else ["  - (no two assessors graded the same answer)"]
    shown = list(found[:limit] if limit else found)
    lines += ["", f"Disputes (grades more than {tolerance} apart), the widest first"
                  + (f", {len(shown)} of {len(found)}:" if len(shown) < len(found) else ":")]
    lines += aligned([["dimension", "topic", "run", "grades", "spread"]] +
                     [[d.dimension, d.topic_id, d.run_id, " ".join(f"{a}={g}" for a, g in d.grades), str(d.spread)]
                      for d in shown], left=4, indent="  ") if shown else ["  - (none)"]
    return "\n".join(lines) + "\n"


def scores_text(rubric: Rubric, runs: Sequence[RunScore], incomplete: int) -> str:
    weights = ", ".join(f"{d.name} {d.weight:g} ({d.low}-{d.high})" for d in rubric.dimensions)
    lines = [f"Rubric scores per run: the weighted score in [0, 1] and the mean grade per dimension "
             f"(weights: {weights}):"]
    lines += align([["run", "topics", "score", *rubric.names]] +
                   [[r.run_id, str(r.topics), fmt(r.score), *(fmt(r.grades[n], 2) for n in rubric.names)]
                    for r in runs]) if runs else ["  - (no answer graded on every dimension)"]
    if incomplete:
        lines += ["", f"{incomplete} answers lack a grade on some dimension and are left out."]
    return "\n".join(lines) + "\n"
