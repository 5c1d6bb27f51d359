"""The campaign's results as the ACLIA overview publishes them, read from the scores the store keeps:
per language pair the runs with ALL and each answer type (human and automatic F3), the number of
runs by team and language pair, the IR4QA x CCLQA collaboration matrix, and a bar chart with
confidence intervals. A team sees its own runs beside the mean and the best of their language pair."""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sepia import vocab
from sepia.campaign import charts, task_results
from sepia.campaign.schedule import TASK_LABELS, TASKS
from sepia.campaign.tables import Table
from sepia.scoring import nuggetizer
from sepia.scoring.evaluate import Settings
from sepia.store import models as db
from sepia.store.results import RAG_PREFIX
from sepia.store.results import settings_key
from sepia import matchers

# the official score, ACLIA's automatic one, then the learned matcher's when organisers asked for it,
# and an LLM's when they scored with one (`sepia evaluate --store --matcher llm`)
MATCHERS = ("human", "binarized", "learned", "llm")
MATCHER_LABELS = {m: matchers.kind(m).title for m in MATCHERS}  # as their descriptors name them


@dataclass
class TopicRow:
    topic_id: str
    answer_type: str | None
    f: float
    recall: float | None
    precision: float | None


@dataclass
class RunResult:
    run_id: str
    team: str
    pair: str
    matcher: str
    score: float = 0.0
    topics: list[TopicRow] = field(default_factory=list)
    label: str = ""  # the settings' name when not the matcher's defaults
    rag: dict[str, float] = field(default_factory=dict)  # TREC RAG's scores: `vital`, `vital answered`, ...

    @property
    def title(self) -> str:
        return self.label or MATCHER_LABELS[self.matcher]

    @property
    def by_type(self) -> dict[str, float]:
        groups: dict[str, list[float]] = {}
        for topic in self.topics:
            groups.setdefault(topic.answer_type or "OTHER", []).append(topic.f)
        return {t: statistics.fmean(v) for t, v in groups.items()}


def default_settings(matcher: str) -> Settings:
    """The settings the results pages score with, and look for in the store."""
    return Settings(matcher=matcher)


_COLUMNS = (db.Run.run_id, db.Run.team, db.EvaluationResult.matcher, db.EvaluationResult.measure,
            db.EvaluationResult.topic_id, db.EvaluationResult.answer_type, db.EvaluationResult.value,
            db.EvaluationResult.recall, db.EvaluationResult.precision)


def load_results(session: Session, matcher: str, run_ids: list[str] | None = None,
                 settings: Settings | None = None, label: str = "") -> list[RunResult]:
    """The stored F-scores of CCLQA runs under `settings` (its scores named `label`), by default
    under the default settings of `matcher` (of a matcher that has none, `opt_in`: under the
    settings it last stored scores with), one query."""
    key = (settings_key(settings.identity()) if settings is not None else
           settings_key(default_settings(matcher).identity()) if not matchers.kind(matcher).opt_in else
           select(db.EvaluationResult.settings_id).where(db.EvaluationResult.matcher == matcher)
           .order_by(db.EvaluationResult.id.desc()).limit(1).scalar_subquery())
    query = (select(*_COLUMNS).join(db.Run, db.Run.id == db.EvaluationResult.run_id)
             .where(db.Run.kind == "cclqa", db.EvaluationResult.matcher == matcher,
                    db.EvaluationResult.settings_id == key)
             .order_by(db.Run.run_id, db.EvaluationResult.id))
    if run_ids is not None:
        query = query.where(db.Run.run_id.in_(run_ids))
    return _collected(session.execute(query), label)


def load_released(session: Session) -> dict[str, list[RunResult]]:
    """The stored F-scores of CCLQA runs under every settings the organisers released to the teams
    (`db.ReleasedSettings`), by `released-ID`, each named by its label; one query."""
    query = (select(db.ReleasedSettings.id, db.ReleasedSettings.label, *_COLUMNS)
             .join(db.EvaluationResult, db.EvaluationResult.settings_id == db.ReleasedSettings.settings_id)
             .join(db.Run, db.Run.id == db.EvaluationResult.run_id).where(db.Run.kind == "cclqa")
             .order_by(db.ReleasedSettings.id, db.Run.run_id, db.EvaluationResult.id))
    rows: dict[tuple[int, str], list] = {}
    for released_id, label, *row in session.execute(query):
        rows.setdefault((released_id, label), []).append(row)
    return {f"released-{released_id}": _collected(found, label) for (released_id, label), found in rows.items()}


def _collected(rows, label: str) -> list[RunResult]:
    """RunResults from rows of `_COLUMNS` in run order, best first."""
    results: dict[str, RunResult] = {}
    for run_id, team, matcher, measure, topic_id, answer_type, value, recall, precision in rows:
        result = results.setdefault(run_id, RunResult(run_id, team, vocab.language_pair_of(run_id), matcher,
                                                      label=label))
        if measure.startswith(RAG_PREFIX):
            result.rag[measure.removeprefix(RAG_PREFIX)] = value
        elif topic_id is None:
            result.score = value
        else:
            result.topics.append(TopicRow(topic_id, answer_type, value, recall, precision))
    return sorted(results.values(), key=lambda r: (-r.score, r.run_id))


def answer_types(results: list[RunResult]) -> list[str]:
    present = {t for r in results for t in r.by_type}
    return [t for t in vocab.ANSWER_TYPES if t in present]


@dataclass
class PairSection:
    """One language pair: a table per matcher (ACLIA's Tables 8-19) and one chart of them all, then
    the IR4QA and Question Analysis tables (each with its chart) of the pair, if scored."""
    pair: str
    tables: list[Table]
    others: dict[str, Table] = field(default_factory=dict)  # task -> its table


def pair_sections(results: dict[str, list[RunResult]],
                  others: dict[str, task_results.TaskResults | None] | None = None) -> list[PairSection]:
    scored = {task: found for task, found in (others or {}).items() if found is not None}
    pairs = {r.pair for runs in results.values() for r in runs} | {p for found in scored.values() for p in found.pairs()}
    sections = []
    for pair in sorted(pairs, key=pair_order):
        tables = [pair_table(pair, runs, key, runs[0].title) for key in [*MATCHERS, *(k for k in results if k not in MATCHERS)]
                  if (runs := [r for r in results.get(key, []) if r.pair == pair])]
        sections.append(PairSection(pair, tables, {task: table for task, found in scored.items()
                                                   if (table := found.table(pair)) is not None}))
    return sections


def pair_table(pair: str, runs: list[RunResult], key: str, label: str) -> Table:
    """One language pair's runs scored by one matcher: F3 of ALL and of each answer type."""
    types = answer_types(runs)
    return Table(f"{pair}-{key}", f"{pair}: {label} F3 ({len(runs)} run{'s' if len(runs) != 1 else ''})",
                 ["Run", "ALL"] + [t[:3] for t in types],
                 [[r.run_id, r.score] + [r.by_type.get(t) for t in types] for r in runs])


def rag_table(pair: str, runs: list[RunResult], key: str, label: str = "") -> Table | None:
    """One language pair's TREC RAG scores (nuggetizer's four) under one matcher's settings (named
    `label`, by default the runs' title), over every topic and over the answered topics as nuggetizer
    averages; None when none are stored."""
    runs = [r for r in runs if r.rag]
    if not runs:
        return None
    columns = [f"{m}{over}" for over in ("", " answered") for m in nuggetizer.MEASURES]
    return Table(f"{pair}-{key}-rag", f"{pair}: {label or runs[0].title}, TREC RAG nugget scores",
                 ["Run", *(c.replace("_", " ") for c in columns)], [[r.run_id, *(r.rag.get(c) for c in columns)] for r in runs])


def find_table(session: Session, key: str) -> Table | None:
    """One table of the results pages by its key (`pair_sections`, `runs_by_team`, `collaboration`),
    made from only what it shows: one matcher's results, or one task's, or none."""
    if key.startswith("runs-"):
        return next((t for t in runs_by_team(session) if t.key == key), None)
    kind, _, matcher = key.rpartition("-")
    if matcher in task_results.TASKS:
        found = task_results.load(session, matcher)
        return found.table(kind) if found is not None else None
    if matcher not in MATCHERS:
        return None
    results = load_results(session, matcher)
    if kind == "collaboration":
        return collaboration(session, results, matcher)
    return next((t for section in pair_sections({matcher: results}) for t in section.tables if t.key == key), None)


def runs_by_team(session: Session) -> list[Table]:
    """ACLIA's Tables 3-5: how many runs each team stored, by task and language pair."""
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for kind, team, source, target, count in session.execute(
            select(db.Run.kind, db.Run.team, db.Run.source_lang, db.Run.target_lang, func.count())
            .group_by(db.Run.kind, db.Run.team, db.Run.source_lang, db.Run.target_lang)):
        counts.setdefault(kind, {}).setdefault(team, {})[f"{source}-{target}"] = count
    tables = []
    for kind in TASKS:
        if kind not in counts:
            continue
        pairs = sorted({p for by_pair in counts[kind].values() for p in by_pair}, key=pair_order)
        teams = sorted(counts[kind])
        numbers = [[counts[kind][team].get(p, 0) for p in pairs] + [sum(counts[kind][team].values())]
                   for team in teams]
        rows = [[team, *row] for team, row in zip(teams, numbers)]
        rows.append(["Total", *(sum(column) for column in zip(*numbers))])
        tables.append(Table(f"runs-{kind}", f"{TASK_LABELS[kind]} runs by team and language pair",
                            ["Team"] + pairs + ["All"], rows))
    return tables


def collaboration(session: Session, results: list[RunResult], matcher: str) -> Table | None:
    """ACLIA's Tables 20-23: each CCLQA run scored by the IR4QA run its metadata names; rows are the
    IR4QA runs, columns the CCLQA teams (the best run of a team where it has several)."""
    named = dict(session.execute(select(db.Run.run_id, db.Run.ir4qa_run).where(
        db.Run.kind == "cclqa", db.Run.ir4qa_run.is_not(None))).all())
    cells: dict[str, dict[str, float]] = {}
    for result in results:
        source = named.get(result.run_id)
        if source:
            row = cells.setdefault(source, {})
            row[result.team] = max(row.get(result.team, 0.0), result.score)
    if not cells:
        return None
    teams = sorted({t for row in cells.values() for t in row})
    return Table(f"collaboration-{matcher}", f"IR4QA x CCLQA: {MATCHER_LABELS[matcher]} F3 of each CCLQA team "
                 "by the IR4QA run it used", ["IR4QA run"] + teams,
                 [[source] + [cells[source].get(t) for t in teams] for source in sorted(cells)])


def bar_chart_svg(results: dict[str, list[RunResult]], pair: str) -> str:
    """The runs of a language pair, best first, one bar per matcher: mean F3 with its 95% confidence
    interval over topics (`sepia.campaign.charts`); as SVG."""
    series = [charts.Bars(MATCHER_LABELS[m], {r.run_id: r.score for r in runs if r.pair == pair},
                          {r.run_id: [t.f for t in r.topics] for r in runs if r.pair == pair})
              for m in MATCHERS if (runs := results.get(m))]
    series = [s for s in series if s.means]
    first = series[0].means if series else {}
    return charts.bar_chart_svg(f"{pair}: mean F3 over topics", "F3", series, sorted(first, key=lambda r: -first[r]))


def pair_order(pair: str) -> int:
    return vocab.LANGUAGE_PAIRS.index(pair) if pair in vocab.LANGUAGE_PAIRS else len(vocab.LANGUAGE_PAIRS)


def team_table(table: Table, own: set[str]) -> Table | None:
    """A team's rows of a pair's table (every released run of the pair) in run ID order, so that its
    runs stand in the same rows in every table, then once the pair's mean and best of each column;
    None when the team has no run in it."""
    mine = sorted((row for row in table.rows if row[0] in own), key=lambda row: row[0])
    if not mine:
        return None
    pair = "-".join(table.key.split("-")[:2])
    columns = [[row[i] for row in table.rows if row[i] is not None] for i in range(1, len(table.columns))]
    title = re.sub(r" \(\d+ runs?\)$", "", table.title)  # the count of every team's runs is not the team's
    return Table(table.key, title, table.columns, mine + [
        [f"{pair} mean of the released runs", *(statistics.fmean(c) if c else None for c in columns)],
        [f"{pair} best released run", *(max(c) if c else None for c in columns)]], context=2)


def topic_table(run: RunResult) -> Table:
    """One run's F3, recall and precision per topic."""
    return Table(f"{run.run_id}-{run.matcher}-topics",
                 f"{run.run_id}, {run.title}: {len(run.topics)} topics",
                 ["Topic", "Type", "F3", "Recall", "Precision"],
                 [[t.topic_id, t.answer_type, t.f, t.recall, t.precision] for t in run.topics])
