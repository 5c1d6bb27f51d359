"""Where the automatic matcher and the assessors disagree, response by response.

For every (run, topic, answer rank, nugget) that assessors judged, the binarized matcher's
decision (softmatch overlap strictly above theta) is set against the assessors' decision
(`sepia.matchers.decisions.judged_matches`). The listing keeps the two kinds of disagreement apart:
`automatic only` (character overlap counted a match the assessors rejected) and `human only`
(the assessors saw the nugget, the overlap did not), grouped by topic and answer type, with the
overlap score, so organisers see where overlap misleads.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from sepia.formats.model import CCLQARun, GoldStandard, Judgment


@dataclass(frozen=True)
class Disagreement:
    topic_id: str
    answer_type: str
    run_id: str
    answer_rank: int
    nugget_id: str
    nugget: str
    response: str          # the whole SR: never truncated
    overlap: float         # softmatch s(n, x)
    kind: str              # "automatic only" or "human only"

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class DisagreementReport:
    theta: float
    judged: int                                # judged (response, nugget) pairs that could be checked
    counts: dict[str, int]                     # both / neither / automatic only / human only
    by_group: dict[tuple[str, str], Counter]   # (topic, answer type) -> counts
    rows: list[Disagreement]
    unknown: int                               # judged pairs whose topic, nugget, run or answer is unknown

    def as_dict(self) -> dict:
        return {"theta": self.theta, "judged": self.judged, "counts": self.counts, "unknown": self.unknown,
                "by_topic": [{"topic_id": t, "answer_type": a, **dict(c)} for (t, a), c in self.by_group.items()],
                "rows": [r.as_dict() for r in self.rows]}


def disagreements(gold: GoldStandard, runs: Sequence[CCLQARun], judgments: Sequence[Judgment], *,
                  theta: float = 0.5) -> DisagreementReport:
    from sepia.matchers.decisions import judged_matches
    from sepia.matchers.softmatch import softmatch

    nuggets = {(t.topic_id, n.nugget_id): (t.answer_type, n.text) for t in gold.topics for n in t.nuggets}
    answers = {(run.run_id, topic.topic_id, a.rank): a.text
               for run in runs for topic in run.topics for a in topic.answers}
    counts: Counter = Counter()
    by_group: dict[tuple[str, str], Counter] = {}
    rows: list[Disagreement] = []
    unknown = 0
    for (run_id, topic_id, rank, nugget_id), value in sorted(judged_matches(judgments).items()):
        human = value > 0  # a partial support (0.5) is a human match here
        nugget = nuggets.get((topic_id, nugget_id))
        response = answers.get((run_id, topic_id, rank))
        if nugget is None or response is None:
            unknown += 1
            continue
        answer_type, nugget_text = nugget
        score = softmatch(nugget_text, response)
        automatic = score > theta
        kind = ("both" if human else "automatic only") if automatic else ("human only" if human else "neither")
        counts[kind] += 1
        by_group.setdefault((topic_id, answer_type), Counter())[kind] += 1
        if automatic != human:
            rows.append(Disagreement(topic_id, answer_type, run_id, rank, nugget_id, nugget_text, response, score, kind))
    # grouped by topic and answer type; within a group the most misleading overlap first
    rows.sort(key=lambda r: (r.topic_id, r.answer_type, r.kind,
                             -r.overlap if r.kind == "automatic only" else r.overlap, r.run_id, r.answer_rank))
    order = ("both", "neither", "automatic only", "human only")
    return DisagreementReport(theta, sum(counts.values()), {k: counts.get(k, 0) for k in order},
                              dict(sorted(by_group.items())), rows, unknown)
