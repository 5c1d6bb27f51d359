"""AEOLLM-style evaluator scores (NTCIR-18): `taskId questionId answerId score rank` per line.

An evaluator's predictions are compared with human scores in the same layout (the rank column
may be left out of either file). Per task, and overall as the mean of the tasks:
- acc: for every question, the share of answer pairs whose preference (better, worse or tie)
  is the same for evaluator and humans; the mean over questions;
- tau and rho: Kendall's tau-b and Spearman's rho between evaluator and human scores over the
  answers of each question, the mean over questions (questions where either is constant are left
  out, since the coefficients are undefined there; they are counted and reported, and acc keeps them).
Scores are compared, higher is better. An evaluator's file has five columns and its ranks must agree
with its scores (checked, then not needed); human files may leave the rank out.

Human scores may come from several annotators: one line per annotator and answer, in one file or
in several. An answer's human score is the median of its annotators' scores, as AEOLLM takes it.
Several evaluators' prediction files make a leaderboard, ranked by overall acc, then tau, then rho.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import NamedTuple

import numpy as np
from scipy import stats

from sepia.formats.errors import FormatError, Problem
from sepia.metaeval.ranking import pairwise_accuracy

Key = tuple[str, str, str]  # task, question, answer


def parse_scores(text: str, name: str = "<input>", strict: bool = False) -> dict[Key, float]:
    """Parse white-space separated lines; a first line whose fourth field is `score` is a header.
    Every bad line is reported, as PATH:LINE:COLUMN; an answer scored twice is one of them. `strict`
    (an evaluator's run): exactly five columns, and each question's ranks as its scores order them
    (a higher score has a smaller rank; equal scores any ranks)."""
    return {key: values[0] for key, values in _parse(text, name, repeated=False, strict=strict).items()}


def parse_annotations(text: str, name: str = "<input>") -> dict[Key, list[float]]:
    """As parse_scores, but an answer may be scored on several lines, one per annotator."""
    return _parse(text, name, repeated=True)


def _parse(text: str, name: str, repeated: bool, strict: bool = False) -> dict[Key, list[float]]:
    scores: dict[Key, list[float]] = defaultdict(list)
    seen: dict[Key, int] = {}
    ranked: list[Ranked] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) not in ((5,) if strict else (4, 5)):
            expected = "taskId questionId answerId score rank" if strict else "taskId questionId answerId score [rank]"
            if not (strict and number == _first_line(text) and fields[3:4] == ["score"]):
                problems.append(Problem(name, number, 1, f"expected '{expected}', got {len(fields)} fields"))
                continue
        try:
            score = float(fields[3])
        except ValueError:
            if number == _first_line(text) and fields[3].lower() == "score":
                continue  # header line
            problems.append(Problem(name, number, line.find(fields[3]) + 1, f"score {fields[3]!r} is not a number"))
            continue
        if not np.isfinite(score):
            problems.append(Problem(name, number, line.find(fields[3]) + 1, f"score {fields[3]!r} is not finite"))
            continue
        if len(fields) == 5 and not fields[4].lstrip("-").isdigit():
            problems.append(Problem(name, number, line.rfind(fields[4]) + 1,
                                    f"rank {fields[4]!r} is not an integer"))
            continue
        key = (fields[0], fields[1], fields[2])
        if key in seen and not repeated:
            problems.append(Problem(name, number, 1, f"answer {' '.join(key)} already scored on line {seen[key]}"))
            continue
        seen.setdefault(key, number)
        scores[key].append(score)
        if strict:
            ranked.append(Ranked(key, score, int(fields[4]), number, line.rfind(fields[4]) + 1))
    problems += _rank_problems(ranked, name)
    if problems:
        raise FormatError(sorted(problems, key=lambda p: p.line))
    if not scores:
        raise FormatError([Problem(name, 1, 1, "no scores found")])
    return dict(scores)


class Ranked(NamedTuple):
    key: Key
    score: float
    rank: int
    line: int
    column: int


def _rank_problems(ranked: list[Ranked], name: str) -> list[Problem]:
    """Ranks below 1, and ranks that contradict the scores of the same question: every answer
    scored higher than another must have a smaller rank."""
    problems = [Problem(name, r.line, r.column, f"rank {r.rank} is below 1") for r in ranked if r.rank < 1]
    questions: dict[tuple[str, str], list[Ranked]] = defaultdict(list)
    for r in ranked:
        questions[r.key[:2]].append(r)
    for answers in questions.values():
        answers.sort(key=lambda r: -r.score)
        above: Ranked | None = None  # of the answers scored higher, the one with the largest rank
        for _score, grouped in groupby(answers, key=lambda r: r.score):
            group = list(grouped)
            for r in group:
                if above is not None and r.rank <= above.rank:
                    problems.append(Problem(name, r.line, r.column, (
                        f"rank {r.rank} of answer {r.key[2]} (score {r.score:g}) contradicts answer "
                        f"{above.key[2]} on line {above.line}, scored higher ({above.score:g}) with rank {above.rank}")))
            worst = max(group, key=lambda r: r.rank)
            above = worst if above is None or worst.rank > above.rank else above
    return problems


def _first_line(text: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.split() and not line.lstrip().startswith("#"):
            return number
    return 0


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise FormatError([Problem(str(path), 0, 0, f"cannot read file: {exc.strerror or exc}")]) from None
    except UnicodeDecodeError:
        raise FormatError([Problem(str(path), 1, 1, "invalid UTF-8")]) from None


def read_scores(path: str | Path) -> dict[Key, float]:
    """An evaluator's predictions: one score and rank per answer, five columns (strict)."""
    return parse_scores(_read(path), str(path), strict=True)


def read_human_scores(paths) -> tuple[dict[Key, float], int]:
    """Human scores from one or more files: the median of each answer's annotators, and how many
    answers have more than one annotator."""
    pooled: dict[Key, list[float]] = defaultdict(list)
    for path in paths:
        for key, values in parse_annotations(_read(path), str(path)).items():
            pooled[key] += values
    return {key: float(np.median(values)) for key, values in pooled.items()}, sum(len(v) > 1 for v in pooled.values())


@dataclass(frozen=True)
class TaskAgreement:
    task: str
    questions: int
    answers: int
    acc: float
    tau: float
    rho: float
    correlated: int = 0        # questions whose tau and rho are defined: the questions tau and rho average
    constant_human: int = 0    # questions of two answers or more whose human scores are all equal
    constant_predicted: int = 0  # ... whose evaluator's scores are all equal (human ones not)

    def as_dict(self) -> dict:
        return {"task": self.task, "questions": self.questions, "answers": self.answers,
                "acc": self.acc, "tau": self.tau, "rho": self.rho, "tau_rho_questions": self.correlated,
                "constant_human": self.constant_human, "constant_predicted": self.constant_predicted}


def _mean(values) -> float:
    values = [v for v in values if np.isfinite(v)]
    return float(np.mean(values)) if values else float("nan")


def compare(predicted: dict[Key, float], human: dict[Key, float]) -> tuple[list[TaskAgreement], TaskAgreement, list[str]]:
    """Per-task agreement, the overall row (mean over tasks) and warnings about unmatched answers."""
    warnings = []
    missing = sorted(set(human) - set(predicted))
    extra = sorted(set(predicted) - set(human))
    if missing:
        warnings.append(f"{len(missing)} human-scored answers have no prediction and are left out "
                        f"(first: {' '.join(missing[0])})")
    if extra:
        warnings.append(f"{len(extra)} predicted answers have no human score and are left out "
                        f"(first: {' '.join(extra[0])})")
    questions: dict[str, dict[str, list[Key]]] = defaultdict(lambda: defaultdict(list))
    for key in human:
        if key in predicted:
            questions[key[0]][key[1]].append(key)
    rows = []
    for task in sorted(questions, key=_natural):
        accs, taus, rhos, answers, constant_human, constant_predicted = [], [], [], 0, 0, 0
        for keys in questions[task].values():
            h = np.array([human[k] for k in keys])
            p = np.array([predicted[k] for k in keys])
            answers += len(keys)
            if len(keys) < 2:
                continue
            accs.append(pairwise_accuracy(h, p, ties="acc_eq"))
            if np.ptp(h) == 0:
                constant_human += 1
            elif np.ptp(p) == 0:
                constant_predicted += 1
            else:
                taus.append(stats.kendalltau(h, p).statistic)
                rhos.append(stats.spearmanr(h, p).statistic)
        rows.append(TaskAgreement(task, len(questions[task]), answers, _mean(accs), _mean(taus), _mean(rhos),
                                  len(taus), constant_human, constant_predicted))
    overall = TaskAgreement("all", sum(r.questions for r in rows), sum(r.answers for r in rows),
                            _mean(r.acc for r in rows), _mean(r.tau for r in rows), _mean(r.rho for r in rows),
                            sum(r.correlated for r in rows), sum(r.constant_human for r in rows),
                            sum(r.constant_predicted for r in rows))
    if overall.constant_human or overall.constant_predicted:
        warnings.append(f"tau and rho are undefined for {overall.constant_human} questions whose human scores "
                        f"are all equal and {overall.constant_predicted} whose predicted scores are: left out of "
                        f"the tau and rho means ({overall.correlated} questions), kept in acc")
    return rows, overall, warnings


def _natural(task: str):
    return (0, int(task), "") if task.isdigit() else (1, 0, task)


@dataclass(frozen=True)
class Entry:
    """One evaluator on the leaderboard."""
    rank: int
    run: str
    tasks: list[TaskAgreement]
    overall: TaskAgreement

    def as_dict(self) -> dict:
        return {"rank": self.rank, "run": self.run, "overall": self.overall.as_dict(),
                "tasks": [t.as_dict() for t in self.tasks]}


def leaderboard(predictions: dict[str, dict[Key, float]],
                human: dict[Key, float]) -> tuple[list[Entry], dict[str, list[str]]]:
    """Every evaluator against the same human scores, best first by overall acc, then tau, then rho
    (undefined values last); equal figures share a rank (1, 2, 2, 4). Warnings per evaluator."""
    scored, warnings = [], {}
    for run, predicted in predictions.items():
        tasks, overall, warnings[run] = compare(predicted, human)
        scored.append((run, tasks, overall))

    def figures(item):
        o = item[2]
        return tuple(-v if np.isfinite(v) else np.inf for v in (o.acc, o.tau, o.rho))

    scored.sort(key=lambda item: (figures(item), item[0]))
    entries: list[Entry] = []
    for position, item in enumerate(scored, start=1):
        tied = entries and figures(item) == figures(scored[position - 2])
        entries.append(Entry(entries[-1].rank if tied else position, *item))
    return entries, warnings
