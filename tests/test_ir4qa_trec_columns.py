"""TREC runs read off the separators numpy finds (the usual layout) rank every topic of every tag
as the definition does, line by line: on random files with several tags, topics in pieces, tied and
odd scores, long tags and qids (read by splitting instead), other layouts and bad lines."""
from __future__ import annotations

import random

import pytest

from sepia.formats.errors import FormatError
from sepia.ir4qa import trec
from sepia.ir4qa.trec import parse_trec_runs, trec_eval_order


def defined(text: str):
    """The runs as the module's docstring defines them, line by line; None for a bad file."""
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            return None
        qid, _, docid, _, score, tag = fields
        try:
            value = float(score)
        except ValueError:
            return None
        topic = runs.setdefault(tag, {}).setdefault(qid, {})
        if docid in topic:
            return None
        topic[docid] = value
    return [trec.TrecRun(tag, {qid: [d for d, _ in trec_eval_order(scores)] for qid, scores in topics.items()})
            for tag, topics in runs.items()]


SCORES = ["1", "0.5", "-2.25", "1e3", "3.0000", "0", "7", "2.5", "inf", "1_0", "+4"]


def random_text(rng: random.Random) -> str:
    tags = rng.choice([["run"], ["A", "B"], ["t" * 70, "u"], ["runX", "runY", "runZ"]])
    qids = rng.choice([["1", "2", "3"], ["301", "30", "3010"], ["q" * 65], ["T-CS-1", "T-CS-2"]])
    lines = []
    for _ in range(rng.randrange(0, 12)):  # stretches: a tag's topic may come back later
        tag, qid = rng.choice(tags), rng.choice(qids)
        for _ in range(rng.randrange(1, 30)):
            score = rng.choice(SCORES) if rng.random() < 0.3 else f"{rng.randrange(40) / 4:.4f}"
            lines.append(f"{qid} Q0 D{rng.randrange(400)} {len(lines) + 1} {score} {tag}")
    roll = rng.random()
    if roll < 0.1 and lines:
        lines[rng.randrange(len(lines))] += rng.choice([" extra", "", "x"])
    elif roll < 0.15 and lines:
        lines[rng.randrange(len(lines))] = "1 Q0 D1 1 high run"
    elif roll < 0.2:
        lines.insert(rng.randrange(len(lines) + 1), "")
    text = "\n".join(lines)
    return text + ("\n" if rng.random() < 0.8 else "")


@pytest.mark.parametrize("seed", range(400))
def test_random_runs_rank_as_defined(seed):
    rng = random.Random(seed)
    text = random_text(rng)
    expected = defined(text)
    if expected is None:
        with pytest.raises(FormatError):
            parse_trec_runs(text, "r.txt")
        return
    assert parse_trec_runs(text, "r.txt") == expected


def test_the_usual_layout_is_read_off_the_separators(monkeypatch):
    rng = random.Random(5)
    lines = [f"{q} Q0 D{d} {d + 1} {rng.randrange(10) / 2} run{t}" for t in range(2) for q in (1, 2)
             for d in range(300)]
    text = "\n".join(lines) + "\n"
    monkeypatch.setattr(trec, "_LINE_BLOCK", 7)  # the stretches found across blocks of lines
    assert trec._usual_layout(text) not in (None, ())
    assert parse_trec_runs(text) == defined(text)
    assert trec._usual_layout("1 Q0 D1 1 0.5 A\n1 Q0 D2 2 0.4\n1 Q0 D3 3 0.3 A A\n") == ()
    assert trec._usual_layout("1 Q0 D1 1 0.5 A\n\n") is None  # a blank line: split instead


def test_nan_scores_rank_as_defined():
    text = "1 Q0 D1 1 nan A\n1 Q0 D2 2 0.5 A\n1 Q0 D3 3 nan A\n2 Q0 D4 1 NaN A\n"
    assert parse_trec_runs(text) == defined(text)
