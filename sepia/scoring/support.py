"""Citation support, as TREC RAG assesses it: for each answer sentence (a response) and each segment
it cites (a DOCID of the response), does the segment support the sentence? Full (1), partial (0.5)
or no (0) support, in the support TSV `topic_id run_id answer_rank docid support assessor`.

Per answered topic of a run, with w(s, d) the support of sentence s by its cited segment d (the upper
median of its assessors' judgments, as for nugget judgments; an unjudged citation counts 0):
- weighted precision = sum of w(s, d) over all citations / number of citations (0 without citations):
  how much of what the answer cites supports it;
- weighted recall = sum over sentences of max_d w(s, d) / number of sentences (a sentence citing
  nothing counts 0): how much of the answer is supported by what it cites.
A run's scores are their means over the topics it answered (with at least one sentence).

The assessors' agreement on them: sepia/metaeval/support_agreement.py.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from sepia.formats.model import CCLQARun, Judgment
from sepia.matchers.decisions import judged_matches

LEVELS = (0.0, 0.5, 1.0)  # none, partial, full


@dataclass
class TopicSupport:
    topic_id: str
    precision: float
    recall: float
    sentences: int
    citations: int
    unjudged: int  # citations no assessor judged (counted as no support)


@dataclass
class RunSupport:
    run_id: str
    precision: float  # mean over the answered topics
    recall: float
    topics: list[TopicSupport]


def _weights(answers, decided: dict[tuple[int, str], float]) -> tuple[list[float], list[float], int]:
    """A topic's w(s, d) of every citation, max_d w(s, d) of every sentence, and the unjudged citations,
    from its responses and the decisions {(rank, docid): w}."""
    pairs = [(a.rank, d) for a in answers for d in dict.fromkeys(a.docids)]
    weights = [decided.get(p, 0.0) for p in pairs]
    best = [max((decided.get((a.rank, d), 0.0) for d in a.docids), default=0.0) for a in answers]
    return weights, best, sum(p not in decided for p in pairs)


def support_scores(runs: Sequence[CCLQARun], judgments: Sequence[Judgment]) -> list[RunSupport]:
    """Weighted support precision and recall of each run (judgments' nugget_id holds the cited DOCID)."""
    decided: dict[tuple[str, str], dict[tuple[int, str], float]] = defaultdict(dict)
    for (run_id, topic_id, rank, docid), value in judged_matches(judgments).items():
        decided[run_id, topic_id][rank, docid] = value
    results = []
    for run in runs:
        topics = []
        for topic in run.topics:
            if not topic.answers:
                continue
            weights, best, unjudged = _weights(topic.answers, decided.get((run.run_id, topic.topic_id), {}))
            topics.append(TopicSupport(topic.topic_id, sum(weights) / len(weights) if weights else 0.0,
                                       sum(best) / len(best), len(best), len(weights), unjudged))
        n = len(topics)
        results.append(RunSupport(run.run_id, sum(t.precision for t in topics) / n if n else 0.0,
                                  sum(t.recall for t in topics) / n if n else 0.0, topics))
    return results
