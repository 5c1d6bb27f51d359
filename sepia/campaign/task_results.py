"""IR4QA and Question Analysis results as the results pages show them, read from the scores the store
keeps (`sepia evaluate-ir4qa --store`, `sepia evaluate-qa --store`, or the Results page's button):
per language pair each run's mean of every measure, ranked as the commands rank them.

IR4QA runs can be scored with other measures and gains: the pages show the most recent scoring's
settings (every run scored with them), so an organiser's choice of measures is what everyone sees."""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from sepia import vocab
from sepia.campaign import charts
from sepia.campaign.tables import Table
from sepia.ir4qa.evaluate import RANKED_BY
from sepia.store import models as db
from sepia.store.results import QA_MEASURES

TASKS = ("ir4qa", "qa")
LABELS = {"ir4qa": "IR4QA", "qa": "Question Analysis"}
SHORT = {"ir4qa": "IR4QA", "qa": "QA"}  # in chart titles
QA_LABELS = {"accuracy": "Accuracy", "KT-recall": "KT recall", "KT-precision": "KT precision"}
CHARTED = 4  # measures drawn per chart at most (the table has them all)


@dataclass
class MeasureRun:
    """One IR4QA or QA run: its means, and each measure's value per topic."""
    run_id: str
    team: str
    means: dict[str, float] = field(default_factory=dict)
    topics: dict[str, dict[str, float]] = field(default_factory=dict)  # measure -> topic ID -> value
    gold_types: dict[str, str] = field(default_factory=dict)  # QA: topic ID -> gold answer type

    @property
    def pair(self) -> str:
        return vocab.language_pair_of(self.run_id)

    @property
    def by_type(self) -> dict[str, float]:
        """QA: the accuracy over the topics of each gold answer type."""
        groups: dict[str, list[float]] = {}
        for topic_id, value in self.topics.get("accuracy", {}).items():
            groups.setdefault(self.gold_types.get(topic_id) or "OTHER", []).append(value)
        return {t: statistics.fmean(v) for t, v in groups.items()}


@dataclass
class TaskResults:
    task: str
    settings: dict
    measures: list[str]
    runs: list[MeasureRun]

    def pairs(self) -> list[str]:
        return list(dict.fromkeys(r.pair for r in self.runs))

    def only(self, run_ids: set[str]) -> TaskResults:
        return TaskResults(self.task, self.settings, self.measures, [r for r in self.runs if r.run_id in run_ids])

    def table(self, pair: str) -> Table | None:
        """The pair's runs, best first: IR4QA every measure; QA accuracy overall and by gold answer
        type, then key-term recall and precision."""
        runs = [r for r in self.runs if r.pair == pair]
        if not runs:
            return None
        label = f"{pair}: {LABELS[self.task]} ({len(runs)} run{'s' if len(runs) != 1 else ''})"
        if self.task == "ir4qa":
            return Table(f"{pair}-ir4qa", label, ["Run", *self.measures],
                         [[r.run_id, *(r.means.get(m) for m in self.measures)] for r in runs])
        present = {t for r in runs for t in r.by_type}
        types = [t for t in vocab.ANSWER_TYPES if t in present]
        return Table(f"{pair}-qa", label, ["Run", "Accuracy", *(t[:3] for t in types), "KT recall", "KT precision"],
                     [[r.run_id, r.means.get("accuracy"), *(r.by_type.get(t) for t in types),
                       r.means.get("KT-recall"), r.means.get("KT-precision")] for r in runs])

    def topic_table(self, run: MeasureRun) -> Table:
        """One run's values per topic."""
        topic_ids = sorted({t for values in run.topics.values() for t in values})
        shown = [m for m in self.measures if m in run.topics]
        return Table(f"{run.run_id}-topics", f"{run.run_id}: {len(topic_ids)} topics",
                     ["Topic", *(QA_LABELS.get(m, m) for m in shown)],
                     [[t, *(run.topics[m].get(t) for m in shown)] for t in topic_ids])

    def chart_svg(self, pair: str) -> str:
        runs = [r for r in self.runs if r.pair == pair]
        measures = [m for m in self.measures if any(m in r.means for r in runs)][:CHARTED]
        series = [charts.Bars(QA_LABELS.get(m, m), {r.run_id: r.means[m] for r in runs if m in r.means},
                              {r.run_id: list(r.topics.get(m, {}).values()) for r in runs}) for m in measures]
        return charts.bar_chart_svg(f"{pair}: {SHORT[self.task]} means over topics", "score", series,
                                    [r.run_id for r in runs])


def latest_settings(session: Session, task: str):
    """The settings of the task's most recent scoring, as the store keeps them: (their key, their JSON);
    None before the first."""
    return session.execute(select(db.EvaluationResult.settings_id, db.EvaluationResult.settings)
                           .join(db.Run, db.Run.id == db.EvaluationResult.run_id)
                           .where(db.Run.kind == task).order_by(db.EvaluationResult.id.desc()).limit(1)).first()


def load(session: Session, task: str) -> TaskResults | None:
    """The runs of an IR4QA or QA scoring, in two queries; None when the task has no stored scores."""
    latest = latest_settings(session, task)
    if latest is None:
        return None
    key, settings = latest
    query = (select(db.Run.run_id, db.Run.team, db.EvaluationResult.measure, db.EvaluationResult.topic_id,
                    db.EvaluationResult.answer_type, db.EvaluationResult.value)
             .join(db.Run, db.Run.id == db.EvaluationResult.run_id)
             .where(db.Run.kind == task, db.EvaluationResult.settings_id == key)
             .order_by(db.Run.run_id, db.EvaluationResult.id))
    runs: dict[str, MeasureRun] = {}
    measures: dict[str, None] = {}
    for run_id, team, measure, topic_id, answer_type, value in session.execute(query):
        run = runs.setdefault(run_id, MeasureRun(run_id, team))
        measures.setdefault(measure)
        if topic_id is None:
            run.means[measure] = value
        else:
            run.topics.setdefault(measure, {})[topic_id] = value
            if answer_type:
                run.gold_types[topic_id] = answer_type
    kept = json.loads(settings)
    # QA in its fixed order; IR4QA as asked for (the settings name the measures unless they are the default)
    order = list(QA_MEASURES) if task == "qa" else list(kept.get("measures") or measures)
    return TaskResults(task, kept, order, sorted(runs.values(), key=_rank(task)))


def _rank(task: str):
    """As the commands rank: IR4QA by mean Q (NTCIREVAL's), then AP (without them, the first measure); QA by
    accuracy, then key-term recall; ties in run ID order."""
    def key(run: MeasureRun):
        if task == "qa":
            firsts = ["accuracy", "KT-recall"]
        else:
            firsts = [m for m in RANKED_BY if m in run.means] or list(run.means)[:1]
        return (*(-(run.means.get(m) or 0.0) for m in firsts), run.run_id)
    return key
