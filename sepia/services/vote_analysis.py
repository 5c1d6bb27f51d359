"""Everything the vote pages compute with other parts of SEPIA, in one place: the nugget weights
(sepia.scoring.weights) and inter-assessor agreement (sepia.metaeval.agreement)."""
from __future__ import annotations

import math

from sepia.formats.model import GoldNugget
from sepia.metaeval.agreement import fleiss_kappa
from sepia.scoring.weights import SCHEMES, nugget_weights
from sepia.store.models import Nugget, Topic


def gold_nugget(nugget: Nugget) -> GoldNugget:
    """The store's nugget as scoring sees it: its votes, or the counts and weight given from outside."""
    return GoldNugget(
        nugget_id=nugget.label,
        text=nugget.text,
        weight=nugget.weight,
        votes=[(v.assessor, v.vital) for v in nugget.votes],
        vital_count=nugget.vital_count,
        voter_count=nugget.voter_count,
    )


def topic_weights(topic: Topic) -> tuple[dict[str, list[float]], list[str]]:
    """Weights of the topic's nuggets (in order) under each scheme of docs/spec.md (Nugget weights), and
    the warnings scoring gave (e.g. no vital vote yet, so every nugget weighs 1)."""
    nuggets = [gold_nugget(n) for n in topic.nuggets]
    weights: dict[str, list[float]] = {}
    warnings: list[str] = []
    for scheme in SCHEMES:
        weights[scheme], said = nugget_weights(nuggets, scheme)
        warnings += [w for w in said if w not in warnings]
    return weights, warnings


def vote_agreement(topics: list[Topic]) -> dict:
    """Fleiss' kappa over the nuggets of these topics (the units) with the categories not vital /
    vital. Nuggets with fewer than two votes cannot show agreement and are left out."""
    table = []
    left_out = 0
    assessors: set[str] = set()
    for topic in topics:
        for nugget in topic.nuggets:
            vital = sum(1 for v in nugget.votes if v.vital)
            assessors.update(v.assessor for v in nugget.votes)
            if len(nugget.votes) >= 2:
                table.append([len(nugget.votes) - vital, vital])
            else:
                left_out += 1
    kappa = fleiss_kappa(table) if table else math.nan
    return {"kappa": None if math.isnan(kappa) else kappa, "items": len(table),
            "assessors": len(assessors), "left_out": left_out}
