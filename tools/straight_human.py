"""The straight-line human F3 the benchmarks measure SEPIA against (tools/bench_scoring.py in memory,
tools/bench_human.py from files): the upper median of each judged (run, topic, rank, nugget), a
nugget's best value over the run's answers, pyramid weights, then recall, precision and F. It imports
only SEPIA's small formula modules, so a process running it pays for little but the work."""
from __future__ import annotations

from collections import defaultdict

from sepia.formats.model import GoldStandard, GoldTopic, topic_lang
from sepia.scoring.allowance import Allowance, mean_nugget_lengths
from sepia.scoring.fscore import f_beta
from sepia.text.tokenize import char_length
from sepia.scoring.weights import nugget_weights


def upper_median(values: list[float]) -> float:
    ordered = sorted(values, reverse=True)
    return ordered[(len(ordered) + 1) // 2 - 1]


def straight_decisions(rows) -> dict[tuple[str, str], list[tuple[int, str, float]]]:
    """(run, topic) -> (rank, nugget, upper median) from (run, topic, rank, nugget, match) rows."""
    votes: dict[tuple, list[float]] = defaultdict(list)
    for run_id, topic_id, rank, nugget_id, match in rows:
        votes[(run_id, topic_id, rank, nugget_id)].append(match)
    decided: dict[tuple[str, str], list[tuple[int, str, float]]] = defaultdict(list)
    for (run_id, topic_id, rank, nugget_id), values in votes.items():
        decided[(run_id, topic_id)].append((rank, nugget_id, upper_median(values)))
    return decided


def straight_topics(gold: GoldStandard) -> list[tuple[GoldTopic, list[float], float]]:
    """Each topic with nuggets, its pyramid weights and its allowance C."""
    allowance = Allowance(mean_nugget_lengths(gold))
    return [(t, nugget_weights(t.nuggets)[0], allowance(topic_lang(gold, t), t.answer_type))
            for t in gold.topics if t.nuggets]


def straight_topic_f(topic: GoldTopic, weights: list[float], c: float, answers: list[tuple[int, str]] | None,
                     decided, beta: float = 3.0, partial: float = 0.5) -> float:
    """One topic's F from its answers (rank, text) and the run's decisions for it."""
    if not answers:
        return 0.0
    ranks = {rank for rank, _ in answers}
    best: dict[str, float] = {}
    for rank, nugget_id, value in decided:
        if rank in ranks and value > best.get(nugget_id, 0.0):
            best[nugget_id] = value
    values = [best.get(n.nugget_id, 0.0) for n in topic.nuggets]
    values = [partial if v == 0.5 else v for v in values]
    recall = sum(w * v for w, v in zip(weights, values)) / sum(weights)
    length = char_length("".join(text for _, text in answers))
    allowed = c * float(sum(values))
    return f_beta(1.0 if length <= allowed else allowed / length, recall, beta)
