"""SEPIA's gold standard, runs and human judgments -> nuggetizer's JSONL (the way back of
`sepia convert nuggetizer`).

Two files: the nugget lists, one `{"qid", "query", "nuggets": [{"text", "importance"}]}` per topic (what
nuggetizer's `create_nuggets` writes), and the assignments, one `{"qid", "query", "run_id",
"answer_text", "response_length", "nuggets": [{"text", "importance", "assignment"}]}` per answered
topic of each run (what its `assign_nuggets` writes and its `calculate_metrics` reads). A nugget's
assignment is the human matcher's decision m(n) for the run's answers to the topic, exactly the value
`sepia evaluate --matcher human --measures nuggetizer` scores: 1 support, 0.5 partial_support,
0 not_support. Importance is vital when SEPIA counts the nugget vital (`nuggetizer.is_vital`). So
nuggetizer's metrics on the file give SEPIA's four scores over the answered topics.
"""
from __future__ import annotations

import json
from typing import Iterator, Sequence

from sepia import vocab
from sepia.formats.model import CCLQARun, GoldStandard, GoldTopic, Judgment, topic_lang
from sepia.matchers.decisions import PARTIAL
from sepia.matchers.human import HumanMatcher
from sepia.scoring.nuggetizer import is_vital

ASSIGNMENT = {1.0: "support", PARTIAL: "partial_support", 0.0: "not_support"}


def _query(topic: GoldTopic) -> str:
    return next((q.text for q in topic.questions if q.lang == "EN"), topic.questions[0].text if topic.questions else "")


def _importance(topic: GoldTopic) -> list[str]:
    return ["vital" if is_vital(n) else "okay" for n in topic.nuggets]


def nugget_lists(gold: GoldStandard, qids: dict[str, str] | None = None) -> Iterator[dict]:
    """One record per topic with nuggets; `qids` maps SEPIA topic IDs back to the track's."""
    qids = qids or {}
    for topic in gold.topics:
        if topic.nuggets:
            yield {"qid": qids.get(topic.topic_id, topic.topic_id), "query": _query(topic),
                   "nuggets": [{"text": n.text, "importance": i} for n, i in zip(topic.nuggets, _importance(topic))]}


def assignments(gold: GoldStandard, runs: Sequence[CCLQARun], judgments: Sequence[Judgment],
                qids: dict[str, str] | None = None, run_names: dict[str, str] | None = None) -> Iterator[dict]:
    """One record per run and topic it answered (with at least one response) whose gold topic has
    nuggets, in the runs' and then the gold standard's order. `run_names` maps SEPIA run IDs back to
    the track's. Answers join with a blank line; response_length counts their words."""
    qids, run_names = qids or {}, run_names or {}
    matcher = HumanMatcher(judgments)
    for run in runs:
        answered = {t.topic_id: t.answers for t in run.topics if t.answers}
        parsed = vocab.parse_run_id(run.run_id)
        lang = parsed.target_lang if parsed else gold.lang  # the topics a run is scored on, as evaluate picks them
        for topic in gold.topics:
            answers = answered.get(topic.topic_id)
            if not answers or not topic.nuggets or topic_lang(gold, topic) != lang:
                continue
            values = matcher.scores(run.run_id, topic.topic_id, topic.nuggets, answers)
            text = "\n\n".join(a.text for a in answers)
            yield {"qid": qids.get(topic.topic_id, topic.topic_id), "query": _query(topic),
                   "run_id": run_names.get(run.run_id, run.run_id), "answer_text": text,
                   "response_length": len(text.split()),
                   "nuggets": [{"text": n.text, "importance": i, "assignment": ASSIGNMENT[v]}
                               for n, i, v in zip(topic.nuggets, _importance(topic), values)]}


def jsonl(records) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
