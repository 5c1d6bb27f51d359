"""Everything the vote pages compute with other parts of SEPIA, in one place: the nugget weights
(sepia.scoring.weights) and inter-assessor agreement (sepia.metaeval)."""
from __future__ import annotations

from sepia.formats.model import GoldNugget
from sepia.store.models import Nugget, Topic

SCHEMES = ("pyramid", "proportion", "binary")


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


def topic_weights(topic: Topic) -> dict[str, list[float]]:
    """Weights of the topic's nuggets (in order) under each scheme of the spec (section 3)."""
    from sepia.scoring.weights import nugget_weights

    nuggets = [gold_nugget(n) for n in topic.nuggets]
    return {scheme: list(nugget_weights(nuggets, scheme)) for scheme in SCHEMES}


def vote_agreement(topics: list[Topic]) -> dict:
    """Fleiss' kappa over the nuggets of these topics (items) with vital / not vital (categories).

    Fleiss' kappa needs the same number of raters on every item, so it is computed over the nuggets
    that have the most common number of voters; the rest are counted as left out.
    """
    rows = []
    for topic in topics:
        for nugget in topic.nuggets:
            vital = sum(1 for v in nugget.votes if v.vital)
            rows.append((vital, len(nugget.votes)))
    rows = [r for r in rows if r[1] >= 2]
    if not rows:
        return {"kappa": None, "items": 0, "raters": 0, "left_out": 0}
    counts: dict[int, int] = {}
    for _, voters in rows:
        counts[voters] = counts.get(voters, 0) + 1
    raters = max(counts, key=lambda n: (counts[n], n))
    table = [[voters - vital, vital] for vital, voters in rows if voters == raters]
    return {"kappa": _fleiss_kappa(table), "items": len(table), "raters": raters,
            "left_out": len(rows) - len(table)}


def _fleiss_kappa(table: list[list[int]]) -> float | None:
    from sepia.metaeval import fleiss_kappa

    return fleiss_kappa(table)
