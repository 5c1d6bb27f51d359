"""SEPIA as a library: the calls a notebook makes, with the numbers `sepia evaluate` and
`sepia evaluate-ir4qa` print (tests/test_api.py compares them).

    import sepia
    result = sepia.evaluate(gold="gold.xml", runs=["runs/"], matcher="binarized")
    result.to_pandas()          # one row per run and topic

Options are keyword-only and checked once, before anything is read, against the matcher registry's
descriptors. A file that cannot be used raises `sepia.formats.errors.FormatError`, whose `problems`
are every `PATH:LINE:COLUMN: message`; an option that cannot be used raises ValueError (one line).
The heavy modules are imported on first use, so `import sepia` stays light.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence, cast

from sepia.matchers import OptionError
from sepia.text.plural import counted

if TYPE_CHECKING:
    from sepia.formats.model import CCLQARun, GoldStandard
    from sepia.formats.errors import Problem
    from sepia.ir4qa.evaluate import IRRunScore
    from sepia.matchers.base import NumberRule
    from sepia.qa.evaluate import QARunScore
    from sepia.scoring.evaluate import RunScore, Settings
    from sepia.scoring.output import Format
    from sepia.scoring.weights import Scheme

__all__ = ["Agreement", "BudgetSimulation", "CallError", "Evaluation", "IR4QAEvaluation", "MetaEvaluation", "OptionError",
           "PlanEstimates", "QAEvaluation", "Validation", "agreement", "budget", "calibrate", "check_budgets", "check_matcher_options",
           "evaluate", "evaluate_ir4qa", "evaluate_qa", "evaluate_stored", "files_in", "meta_evaluate",
           "plan_estimates", "score_each", "settings", "validate"]

PARTIALS = (0.0, 0.5, 1.0)
F_MEASURES = ("f", "nuggetizer")
AVERAGES = ("sepia", "trec_eval", "ir_measures")


def files_in(paths: str | Path | Sequence[str | Path], pattern: str = "*.xml") -> list[str]:
    """Files as given; a folder stands for its files that match the pattern, in name order."""
    files: list[str] = []
    for path in map(Path, [paths] if isinstance(paths, (str, Path)) else paths):
        files += sorted(map(str, path.glob(pattern))) if path.is_dir() else [str(path)]
    return files


class _Table:
    """Records in, a DataFrame out (pandas is optional)."""

    def to_records(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def to_pandas(self):
        try:
            import pandas  # type: ignore[import-untyped]  # an optional dependency
        except ImportError:
            raise ImportError("to_pandas needs pandas, which SEPIA does not install: pip install pandas "
                              "(or use to_records())") from None
        return pandas.DataFrame.from_records(self.to_records())


# -- CCLQA runs: F(beta) with a matcher ------------------------------------------------------------

@dataclass
class Evaluation(_Table):
    """Scored runs, in the order `sepia evaluate` prints them: per matcher (in the order given), best
    score first, ties by run ID."""
    runs: list[RunScore]
    config: Settings
    measures: tuple[str, ...] = ()
    groups: list[int] = field(default_factory=list)  # each run's matcher group (several with auto_judgments)
    judged: bool = False  # automatic assessors' judgments: partial support shows in the titles

    @property
    def settings(self) -> dict:
        """The settings as the JSON output's "settings" holds them."""
        return self.config.describe()

    @property
    def warnings(self) -> list[str]:
        """Every run's warnings, each once, in the order of the runs."""
        return list(dict.fromkeys(w for r in self.runs for w in r.warnings))

    def to_records(self) -> list[dict[str, Any]]:
        """One record per run and topic: the run's mean F beside the topic's F, recall, precision,
        matched nuggets a, length L and allowance."""
        return [{"run_id": r.run_id, "matcher": r.matcher, "run_score": r.score, **t.as_dict()}
                for r in self.runs for t in r.topics]

    def scores(self) -> dict[str, float]:
        """Each run's F (macro average over its topics), by run ID (of the first matcher's group)."""
        found: dict[str, float] = {}
        for r in self.runs:
            found.setdefault(r.run_id, r.score)
        return found

    def render(self, output: Format = "table") -> str:
        """The text `sepia evaluate --format OUTPUT` prints (table, tsv or json)."""
        from sepia.scoring.output import RankedOutput

        out = RankedOutput(output, self.measures, self.settings)
        for group, run in zip(self.groups or [0] * len(self.runs), self.runs):
            out.add(run, group)
        pieces: list[str] = []
        out.write(pieces.append, self.title)
        return "".join(pieces)

    def title(self, name: str) -> str:
        """The heading of a matcher's table."""
        c, described = self.config, self.settings
        shown = replace(c, matcher=name).describe()  # a group's own matcher: its options only
        return (f"F{c.beta:g} with the {name.upper()} matcher"
                + (f" (theta {c.theta:g})" if shown["theta"] is not None else "")
                + (f" (numbers {shown['numbers']})" if "numbers" in shown else "")
                + "".join(f" ({k} {v})" for k, v in shown.get("options", {}).items())
                + (f" (partial support counts {c.partial:g})" if self.judged or name == "human" else "")
                + f", {c.weights} weights, {described['allowance']}; tokens: {described['tokens']}"
                + (f"; the first {counted(c.depth, 'response')} per topic" if c.depth else ""))


def check_matcher_options(settings: Settings) -> None:
    """A matcher's own options must be ones its descriptor names, and numbers="strict" needs a matcher
    that reads it: OptionError before anything is read (`sepia.matchers.check_options`)."""
    from sepia import matchers

    matchers.check_options(settings.matcher, settings.matcher_options, settings.numbers)


def evaluate(*, gold: str | Path | GoldStandard, runs: str | Path | Sequence[str | Path | CCLQARun],
             judgments: str | Path | None = None, auto_judgments: Sequence[str] = (), measures: Sequence[str] = (),
             **options: Any) -> Evaluation:
    """Score CCLQA runs against a gold standard, as `sepia evaluate` does with the same options.

    `gold` and `runs` are paths (a folder of runs stands for its .xml files) or objects already read;
    `judgments` a human judgments TSV (the human matcher needs it); `auto_judgments` automatic
    assessors' files (`[NAME=]FILE`), each scored as a matcher of its own; `measures=["nuggetizer"]`
    adds TREC RAG's four nugget scores; `options` are `settings`' (matcher, beta, theta, weights,
    allowance, allowance_per_type, partial, numbers, matcher_options, stem, stopwords, as_set, depth)."""
    chosen = settings(**options)
    _check_measures(measures)
    if isinstance(runs, Sequence) and not isinstance(runs, str) and not runs:
        raise ValueError("give at least one run (a run file, a folder of run files or a CCLQARun)")
    kind = chosen.matcher_kind()
    if kind and kind.needs_judgments and judgments is None:
        raise ValueError(f"the {chosen.matcher} matcher needs judgments (judgments=FILE.tsv)")
    scored, groups = _score(gold, runs, judgments, chosen, tuple(auto_judgments))
    return Evaluation(scored, chosen, tuple(measures), groups, bool(auto_judgments))


def evaluate_stored(*, store: str | None = None, run_ids: Sequence[str] = (), lang_pairs: Sequence[str] = (),
                    save: bool = False, measures: Sequence[str] = (), **options: Any) -> Evaluation:
    """Score the CCLQA runs of a campaign store (a database URL; by default SEPIA_HOME's or
    SEPIA_DATABASE_URL's) against its gold standard and judgments, as `sepia evaluate --store` does:
    every run, or those of `run_ids` or `lang_pairs`; with `save`, the scores are kept in the store.
    `options` are `settings`'. ValueError when the store lacks what the scoring needs."""
    from sepia.services.scores import NothingToScore, score_stored_runs
    from sepia.store.db import Store

    chosen = settings(**options)
    _check_measures(measures)
    try:
        with Store(store) as opened:
            scored = score_stored_runs(opened, chosen, list(run_ids) or None, list(lang_pairs) or None, save=save)
    except NothingToScore as exc:
        raise ValueError(str(exc)) from None
    return Evaluation(scored, chosen, tuple(measures), [0] * len(scored))


def settings(*, matcher: str = "binarized", beta: float = 3.0, theta: float = 0.5, weights: Scheme = "pyramid",
             allowance: float | None = None, allowance_per_type: Mapping[str, float] | None = None,
             partial: float = 0.5, numbers: NumberRule = "lenient", matcher_options: Mapping[str, str] | None = None,
             stem: bool = False, stopwords: bool = False, as_set: bool = False, depth: int | None = None) -> Settings:
    """F-score settings, every one checked (against the matcher registry's descriptors for the
    matcher's own): `allowance` sets C for every answer type, `allowance_per_type` for the types it
    names; `partial` is what a partial support counts for (human matcher); `depth` keeps the first N
    responses of a run per topic."""
    from sepia import matchers
    from sepia.matchers.base import NUMBER_RULES
    from sepia.scoring.evaluate import Settings
    from sepia.text.tokenize import Tokenizer
    from sepia.scoring.weights import SCHEMES

    matchers.kind(matcher)  # ValueError naming the matchers there are
    _one_of("weights", weights, SCHEMES)
    _one_of("numbers", numbers, NUMBER_RULES)
    _one_of("partial", float(partial), PARTIALS)
    if not beta > 0:
        raise ValueError(f"beta must be above 0, not {beta}")
    if depth is not None and depth < 1:
        raise ValueError(f"depth must be at least 1, not {depth}")
    chosen = Settings(matcher=matcher, beta=float(beta), theta=float(theta), weights=weights,
                      allowance_per_type=dict(allowance_per_type or {}), allowance=allowance,
                      tokenizer=Tokenizer(stem=stem, stopwords=stopwords), as_set=as_set, partial=float(partial),
                      depth=depth, numbers=numbers, matcher_options=dict(matcher_options or {}))
    check_matcher_options(chosen)
    return chosen


def _check_measures(measures: Sequence[str]) -> None:
    for name in measures:
        _one_of("measures", name, F_MEASURES)


class CallError(ValueError):
    """What was asked cannot be done as asked, whatever the files hold: the same run given twice,
    automatic assessors' files that name one matcher (`sepia evaluate`'s usage errors)."""


def score_each(*, gold: str | Path | GoldStandard, runs: str | Path | Sequence[str | Path | CCLQARun],
               config: Settings, judgments: str | Path | None = None,
               auto_judgments: Sequence[str] = ()) -> Iterator[tuple[int, RunScore]]:
    """`evaluate`'s scores one run at a time, in the order the runs are given: (the matcher's number,
    the run's score) for each matcher (several with `auto_judgments`), so that a caller can render
    each run and let it go (`sepia evaluate` does); `config` as `settings` makes it. The gold
    standard, the judgments and the matchers are read and made when the first score is asked for; a
    run whose ID came before is skipped, and CallError names every such run once the others are
    scored."""
    from sepia.formats.judgments import read_judgments
    from sepia.matchers.decisions import read_decisions
    from sepia.scoring.evaluate import Evaluator

    read_gold = _gold(gold)
    kind = config.matcher_kind()
    reader = read_judgments if kind and kind.learns_from_other_runs else read_decisions
    read: Any = reader(str(judgments)) if judgments is not None else None  # judgments or decisions
    if auto_judgments:
        from sepia.convert.autojudgments import auto_matchers

        try:
            automatic = auto_matchers(tuple(auto_judgments), read_gold, config.partial)
        except ValueError as exc:
            raise CallError(str(exc)) from None
        evaluators = [Evaluator(read_gold, replace(config, matcher=name), None, m) for name, m in automatic.items()]
    else:
        evaluators = [Evaluator(read_gold, config, read)]
    each: Iterable[CCLQARun] = _each_run(runs)  # one run in memory at a time ...
    if any(e.learns for e in evaluators):  # ... but a matcher that learns from other runs sees them all first
        each = list(each)
        for evaluator in evaluators:
            evaluator.learn(each)
    seen, repeated = set(), set()
    for run in each:
        if run.run_id in seen:
            repeated.add(run.run_id)
            continue
        seen.add(run.run_id)
        for group, evaluator in enumerate(evaluators):
            yield group, evaluator.evaluate(run)
    if repeated:
        raise CallError(f"the same run ID is given more than once: {', '.join(sorted(repeated))}")
    if not seen:
        raise ValueError("no run to score: the folders given hold no .xml file")


def _score(gold, runs, judgments, settings: Settings, auto_specs: tuple[str, ...]) -> tuple[list, list[int]]:
    """Every run scored by every matcher, ranked within each matcher's group."""
    keyed = sorted((((group, -score.score, score.run_id), score)
                    for group, score in score_each(gold=gold, runs=runs, config=settings, judgments=judgments,
                                                   auto_judgments=auto_specs)), key=lambda pair: pair[0])
    return [s for _, s in keyed], [k[0] for k, _ in keyed]


def _gold(gold) -> GoldStandard:
    from sepia.formats.model import GoldStandard
    from sepia.formats.read import expect, read_file

    if isinstance(gold, GoldStandard):
        return gold
    return expect(read_file(str(gold), "gold"), GoldStandard, str(gold))


def _each_run(runs) -> Iterator[CCLQARun]:
    """The runs in the order given, each file read when its turn comes."""
    from sepia.formats.model import CCLQARun
    from sepia.formats.read import expect, read_file

    for given in [runs] if isinstance(runs, (str, Path, CCLQARun)) else runs:
        if isinstance(given, CCLQARun):
            yield given
        else:
            yield from (expect(read_file(p, "cclqa"), CCLQARun, p) for p in files_in(given))


def _one_of(option: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{option} {value!r} is not one of {', '.join(map(str, choices))}")


# -- IR4QA runs: document rankings against graded qrels --------------------------------------------

@dataclass
class IR4QAEvaluation(_Table):
    """IR4QA runs' scores, best first (as `sepia evaluate-ir4qa` ranks them)."""
    runs: list[IRRunScore]
    measures: tuple[str, ...]
    settings: dict

    @property
    def warnings(self) -> list[str]:
        return list(dict.fromkeys(w for r in self.runs for w in r.warnings))

    def to_records(self) -> list[dict[str, Any]]:
        """One record per run and topic: each measure shown, R (relevant documents) and the relevant
        documents retrieved."""
        return [{"run_id": r.run_id, **topic} for r in self.runs for topic in self._topics(r)]

    def means(self) -> dict[str, dict[str, float | None]]:
        """Each run's mean of each measure (None for a run without a scored topic)."""
        return {r.run_id: self._means(r) for r in self.runs}

    def to_json(self) -> str:
        """The text `sepia evaluate-ir4qa --format json` prints."""
        from sepia.versions import stamped

        document = {"runs": [{"run_id": r.run_id, **self._means(r), "topics": self._topics(r)} for r in self.runs],
                    "settings": self.settings}
        return json.dumps(stamped(document), indent=2) + "\n"

    def _means(self, run: IRRunScore) -> dict[str, float | None]:
        return {m: run.means[m] if run.topics else None for m in self.measures}

    def _topics(self, run: IRRunScore) -> list[dict[str, Any]]:
        return [{"topic_id": t, **{m: s.values[m] for m in self.measures}, "R": s.relevant,
                 "relevant_retrieved": s.retrieved_relevant} for t, s in run.topics.items()]


def evaluate_ir4qa(*, qrels: str | Path, runs: str | Path | Sequence[str | Path], gains: str | None = None,
                   cutoff: int = 1000, measures: Sequence[str] = (), condensed: bool = False,
                   average: str = "sepia") -> IR4QAEvaluation:
    """Score IR4QA runs (SEPIA XML or TREC run files) against graded qrels (SEPIA TSV or TREC qrels),
    as `sepia evaluate-ir4qa` does: `gains` "G1:G2:..." (default the level itself; NTCIREVAL's
    measures use them), `measures` names of `sepia.ir4qa.registry`: ir_measures' names with
    ir_measures' meaning (`nDCG@10`, `P(rel=2)@10`), NTCIREVAL's under `ntcir:` (default AP, ntcir:Q,
    ntcir:nDCG); docs/ir4qa-measures.md has the table."""
    from sepia.ir4qa import trec
    from sepia.ir4qa.evaluate import IR4QAEvaluator, IR4QAResults, ranked_ir4qa, read_xml_rankings
    from sepia.ir4qa.measures import default_gains, parse_gains
    from sepia.ir4qa.registry import parse_measures

    shown = parse_measures(tuple(measures))
    _one_of("average", average, AVERAGES)
    if cutoff < 1:
        raise ValueError(f"cutoff must be at least 1, not {cutoff}")
    options: dict[str, Any] = {"measures": shown, "condensed": condensed}
    if average != "sepia":
        options["average"] = average
    read = trec.read_any_qrels(str(qrels))
    gain_list = parse_gains(gains) if gains else default_gains(read)
    evaluator = IR4QAEvaluator(read, gain_list, cutoff, **options)
    paths = files_in(runs)
    if not paths:
        raise ValueError("give at least one run (a run file or a folder of run files)")
    scored = [evaluator.score(run_id, rankings) for path in paths
              for run_id, rankings in (trec.read_trec_runs(path) if trec.is_trec_run_file(path)
                                       else [read_xml_rankings(path)])]
    results = IR4QAResults(ranked_ir4qa(scored), gain_list, cutoff, options)
    return IR4QAEvaluation(results.runs, tuple(shown), results.settings)


# -- meta-evaluation: automatic against human scores ------------------------------------------------

@dataclass
class MetaEvaluation(_Table):
    """Automatic matchers against the human score of the same runs: `report` is what `sepia metaeval
    --format json` prints without the versions (correlations at four levels, intervals, discriminative
    power, ranking consistency, disagreements, warnings, the plots written)."""
    report: dict

    def to_records(self) -> list[dict[str, Any]]:
        """One record per run: its human F and each matcher's."""
        return [dict(row) for row in self.report["scores"]]

    def render(self, output: str = "table", limit: int | None = 20) -> str:
        """The text `sepia metaeval --format OUTPUT --limit LIMIT` prints (0 or None: every disagreement)."""
        if output == "json":
            from sepia.versions import stamped

            return json.dumps(stamped(self.report), ensure_ascii=False, indent=1) + "\n"
        from sepia.metaeval.render import metaeval_text

        report = {k: v for k, v in self.report.items() if k not in ("disagreements", "plots", "warnings")}
        return (metaeval_text(report, self.report["disagreements"], limit or None)
                + "".join(f"wrote {path}\n" for path in self.report["plots"]))


def meta_evaluate(*, gold: str | Path | GoldStandard, runs: str | Path | Sequence[str | Path | CCLQARun],
             judgments: str | Path | Sequence[str | Path], matchers: Sequence[str] = (),
             auto_judgments: Sequence[str] = (), beta: float = 3.0, theta: float = 0.5, weights: str = "pyramid",
             numbers: str = "lenient", matcher_options: Mapping[str, str] | None = None, permutations: int = 1000,
             repetitions: int = 100, seed: int = 0, plots: str | Path | None = None) -> MetaEvaluation:
    """Every automatic matcher (default binarized, softmatch and exact) and automatic assessor against
    the human judgments' F of the same runs, as `sepia metaeval` computes it; `plots` a folder to
    write the figures (PNG and SVG) to."""
    from sepia import matchers as registry
    from sepia.metaeval.disagreement import disagreements
    from sepia.metaeval.render import json_ready
    from sepia.metaeval.report import AUTOMATIC, metaeval_report, score_matrices

    for name in matchers:
        if not registry.kind(name).automatic:
            raise ValueError(f"{name} is not an automatic matcher")
    if permutations < 1 or repetitions < 1:
        raise ValueError("permutations and repetitions must be at least 1")
    read_gold = _gold(gold)
    read_runs = list(_each_run(runs))
    ids = Counter(r.run_id for r in read_runs)
    repeated = sorted(i for i, n in ids.items() if n > 1)
    if repeated:
        raise ValueError(f"the same run ID is given more than once: {', '.join(repeated)}")
    read = _judgments(judgments)
    auto = []
    if auto_judgments:
        from sepia.convert.autojudgments import auto_matchers

        auto = list(auto_matchers(auto_judgments, read_gold).values())
    data = score_matrices(read_gold, read_runs, read, matchers=list(matchers or AUTOMATIC) + auto, beta=beta,
                          theta=theta, weights=weights, numbers=numbers, matcher_options=dict(matcher_options or {}))
    report = metaeval_report(data, n_resamples=permutations, repetitions=repetitions, seed=seed)
    written: list[str] = []
    if plots is not None:
        from sepia.metaeval.plots import pvalue_curves, scatter_runs

        written = [str(p) for p in scatter_runs(report, Path(plots)) + pvalue_curves(report, Path(plots))]
    listing = disagreements(read_gold, read_runs, read, theta=theta).as_dict()
    return MetaEvaluation(json_ready({**report, "disagreements": listing, "plots": written,
                                      "warnings": data.warnings}))


# -- budgeted estimates: judging part of the topics ------------------------------------------------

BUDGETS = (10.0, 20.0, 30.0, 50.0)
LEARNER_REFUSED = ("the {} matcher is not simulated: learning from these judgments, its errors depend on the "
                   "very topics each simulated plan judges, which voids the intervals; --matcher learned trains "
                   "SEPIA's model on each plan's judgments, cross-fitted, or give a model's decisions made "
                   "without these judgments as --auto-judgments")


@dataclass
class BudgetSimulation(_Table):
    """Judging plans re-sampled from fully judged runs, as `sepia metaeval budget` simulates them:
    `report` holds "matcher", "settings" and per language pair ("language_pairs", empty when no run
    is scored on a topic of the gold standard: the warnings say why) the figures of each budget's
    topic-level plans ("budgets") and item-level ones ("item_plans"), or with the learned matcher
    every plan kind's ("plans"; "feature" names an automatic assessor among its features)."""
    report: dict
    warnings: list[str] = field(default_factory=list)

    @property
    def learned(self) -> bool:
        return "feature" in self.report

    def to_records(self) -> list[dict[str, Any]]:
        """One record per language pair, budget and plan kind ("plan": topics or items; "matcher"),
        the nested figures flattened (`means_coverage`, `differences_width`, ...)."""
        matcher = self.report["matcher"]
        records = []
        for group in self.report["language_pairs"]:
            rows = (group["plans"] if self.learned else
                    [{"plan": "topics", "matcher": matcher, **r} for r in group["budgets"]]
                    + [{"plan": "items", "matcher": matcher, **r} for r in group.get("item_plans", [])])
            records += [{"language_pair": group["language_pair"], **_flat(row)} for row in rows]
        return records

    def render(self, output: str = "table") -> str:
        """The text `sepia metaeval budget --format OUTPUT` prints (table or json)."""
        from sepia.metaeval.budget_render import budget_text, learned_budget_text
        from sepia.versions import stamped

        report = self.report
        if output == "json" and self.learned:
            plans = [{"language_pair": g["language_pair"], **row} for g in report["language_pairs"] for row in g["plans"]]
            document = {"matcher": "learned", "settings": report["settings"], "feature": report["feature"], "plans": plans}
            return json.dumps(stamped(document), indent=1) + "\n"
        if output == "json":
            return json.dumps(stamped(report), indent=1) + "\n"
        return learned_budget_text(report) if self.learned else budget_text(report, report["matcher"])


def _flat(row: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"means": {"coverage": 0.9}} -> {"means_coverage": 0.9}."""
    flat: dict[str, Any] = {}
    for key, value in row.items():
        if isinstance(value, Mapping):
            flat.update(_flat(value, f"{prefix}{key}_"))
        else:
            flat[prefix + key] = value
    return flat


def budget(*, gold: str | Path | GoldStandard, runs: str | Path | Sequence[str | Path | CCLQARun],
           judgments: str | Path | Sequence[str | Path], matcher: str = "binarized",
           auto_judgments: Sequence[str] = (), budgets: Sequence[float] = BUDGETS, trials: int = 1000,
           level: float = 0.95, seed: int = 0, progress: bool = False, feature: str | None = None, waves: int = 2,
           **options: Any) -> BudgetSimulation:
    """Judging part of the topics, from fully judged runs (`judgments`: TSV files or folders of them):
    for each budget (a share of each language pair's topics, in per cent) re-sample `trials` judging
    plans and report the coverage and width of the PPI++ intervals of the run means and differences
    (against human-only intervals from the same topics) and Kendall's tau of the estimated ranking,
    as `sepia metaeval budget` does. `matcher` an automatic matcher, or "learned" (the learned matcher
    trained on each plan's judgments, cross-fitted; topic- and item-level plans); `auto_judgments` one
    automatic assessor's file, simulated instead (with "learned", one of the model's features);
    `feature` (with "learned" only) an automatic matcher whose values are one of the model's features
    instead, e.g. "embedding"; `options` are `settings`' scoring options (beta, theta, weights, allowance, allowance_per_type,
    partial, numbers, matcher_options, stem, stopwords, as_set); `progress` draws a progress bar of
    the learned matcher's plans; `waves` the learned active plans' waves (the first uniform, each later
    one drawn where the model refitted on every judgment so far is unsure). CallError: no judgments,
    more than one automatic assessor, or a feature beside an assessor."""
    from sepia import matchers as registry

    if not registry.kind(matcher).automatic:
        raise ValueError(f"{matcher} is not an automatic matcher")
    budgets = [float(b) for b in budgets]
    check_budgets(budgets)
    if trials < 1 or not 0 < level < 1:
        raise ValueError("trials must be at least 1 and level between 0 and 1")
    if waves < 2:
        raise ValueError(f"an active plan has at least two waves (a uniform one, then one drawn by the model), not {waves}")
    if matcher == "learned":  # it takes the F-score's beta, theta and weights only
        options = {k: v for k, v in options.items() if k in ("beta", "theta", "weights")}
    chosen = settings(matcher=matcher if matcher != "learned" else "binarized", **options)
    read_gold = _gold(gold)
    read_runs = list(_each_run(runs))
    read = _judgments(judgments)
    if not read:
        raise CallError("no judgments found: the simulation needs fully judged runs")
    assessor = None
    if auto_judgments:
        from sepia.convert.autojudgments import auto_matchers

        try:
            automatic = list(auto_matchers(tuple(auto_judgments), read_gold).values())
        except ValueError as exc:
            raise CallError(str(exc)) from None
        if len(automatic) > 1:
            raise CallError("give one --auto-judgments file (or a --matcher) for the simulation")
        assessor = automatic[0]
    if feature is not None:
        if assessor is not None:
            raise CallError("give one feature for the learned model: --feature or --auto-judgments, not both")
        assessor = feature_matcher(feature, matcher, read_gold, read_runs)
    if matcher == "learned":  # an automatic assessor is then one of the model's features
        return _learned_budget(read_gold, read_runs, read, budgets, trials, seed, level, chosen, assessor,
                               progress, waves)
    scorer: Any = assessor or matcher
    name = scorer if isinstance(scorer, str) else scorer.name
    if isinstance(scorer, str) and registry.kind(scorer).learns_from_other_runs:
        raise ValueError(LEARNER_REFUSED.format(name))
    from sepia.metaeval.budget import budget_report, paired_scores
    from sepia.metaeval.items import item_scores
    from sepia.metaeval.render import json_ready

    scoring = {"beta": chosen.beta, "theta": chosen.theta, "weights": chosen.weights,
               "allowance_per_type": chosen.allowance_per_type, "allowance": chosen.allowance,
               "partial": chosen.partial, "numbers": chosen.numbers, "matcher_options": chosen.matcher_options,
               "tokenizer": chosen.tokenizer, "as_set": chosen.as_set}  # the scoring options of `sepia evaluate`
    groups, warnings = paired_scores(read_gold, read_runs, read, scorer, **scoring)
    if not groups:
        return BudgetSimulation({"matcher": name, "settings": {}, "language_pairs": []}, warnings)
    items = item_scores(read_gold, read_runs, read, scorer, **scoring)
    report = json_ready(budget_report(groups, budgets, trials, seed, level, items, chosen.beta))
    return BudgetSimulation({"matcher": name, **report}, warnings)


def feature_matcher(name: str, matcher: str, gold: GoldStandard, runs: Sequence[CCLQARun]):
    """The automatic matcher `name` (default options), shown every run first, whose values become a
    feature of the learned model in `budget`; ValueError (one line) for one that cannot be."""
    from sepia import matchers as registry
    from sepia.matchers.base import LearningMatcher

    if matcher != "learned":
        raise ValueError(f"--feature adds a feature to the learned model: it needs --matcher learned, not {matcher}")
    described = registry.kind(name)
    if not described.automatic or described.learns_from_other_runs:
        raise ValueError(f"the {name} matcher cannot be a feature: choose an automatic matcher that does not learn "
                         "from these judgments")
    made = registry.make(name)
    return made.learn(gold, runs) if isinstance(made, LearningMatcher) else made


def check_budgets(budgets: Sequence[float]) -> None:
    """A budget is a share of the topics in per cent: ValueError for one that is not."""
    bad = [b for b in budgets if not 0 < b <= 100]
    if bad:
        raise ValueError(f"a budget is a share of the topics above 0% and at most 100%, not {bad[0]:g}%")


def _learned_budget(gold, runs, judgments, budgets, trials, seed, level, chosen: Settings, assessor,
                    progress: bool, waves: int = 2) -> BudgetSimulation:
    """`budget` with the learned matcher: topic- and item-level plans with BINARIZED and with the
    learned matcher cross-fitted on each plan's judgments (`sepia.metaeval.learned_plans`), an
    automatic assessor's values (a matcher object, or None) among its features."""
    from sepia.text.progress import maybe_progress
    from sepia.metaeval.learned_plans import ActiveDesign, assessor_column, learned_budget_report
    from sepia.metaeval.render import json_ready

    extra = None if assessor is None else assessor_column(assessor, gold, runs)
    with maybe_progress(progress, "plans", trials * len(budgets)) as advance:
        report = learned_budget_report(gold, runs, judgments, budgets, trials, seed, level, chosen.beta, extra,
                                       advance=advance, design=ActiveDesign(waves), theta=chosen.theta,
                                       weights=chosen.weights)
    return BudgetSimulation(json_ready({"matcher": "learned", "feature": assessor and assessor.name, **report}))


@dataclass
class PlanEstimates(_Table):
    """PPI++ estimates of the stored CCLQA runs' human F3 from a pool's judging plan, as `sepia evaluate
    --store --plan POOL` prints them: `report` is its JSON without the versions (per language pair the
    runs' and the run pairs' automatic score, estimate, interval and lambda, how many topics are judged
    of the plan, the projected width; "matcher", "pool", "level"), `warnings` what it warns of."""
    report: dict
    warnings: list[str] = field(default_factory=list)

    def to_records(self) -> list[dict[str, Any]]:
        """One record per language pair and run (`other_run_id` None) or pair of runs (`decided`: the
        interval of A - B excludes 0), the columns of `--format tsv` (shrunk, shrunk_low and shrunk_high
        when the report has them, None for a language pair of runs not shrunk)."""
        from sepia.metaeval.item_estimates import shrunk_columns_of

        records = []
        shrunk = shrunk_columns_of(self.report)
        for group in self.report["language_pairs"]:
            for row in [*group["runs"], *group["pairs"]]:
                records.append({"language_pair": group["language_pair"], "run_id": row.get("run_id", row.get("a")),
                                "other_run_id": row.get("b"),
                                **{k: row[k] for k in ("automatic", "estimate", "low", "high", "lambda", "judged",
                                                       "topics")}, "decided": row.get("decided"),
                                **{k: row.get(k) for k in shrunk}})
        return records

    def to_json(self) -> str:
        """The text `sepia evaluate --store --plan POOL --format json` prints."""
        from sepia.versions import stamped

        return json.dumps(stamped(self.report), ensure_ascii=False, indent=1) + "\n"


def plan_estimates(*, pool: str, store: str | None = None, level: float = 0.95, config: Settings | None = None,
                   **options: Any) -> PlanEstimates:
    """The PPI++ estimates of the stored CCLQA runs' human F3 (`options`: `settings`' for the automatic
    matcher, binarized by default, or `config` as `settings` makes it) from the human judgments of pool `pool`'s judging plan so far, at
    confidence `level`, as `sepia evaluate --store --plan POOL` computes them; the web tool's estimates
    page shows the same. ValueError when the store lacks what they need (no judged topic of the plan,
    a plan whose population changed, no CCLQA runs) or the matcher is the human one."""
    from sepia.services.plan_estimates import estimate_plan
    from sepia.services.scores import NothingToScore
    from sepia.store.db import Store
    from sepia.store.errors import ImportRefused

    chosen = config or settings(**options)
    if chosen.matcher == "human":
        raise ValueError("the estimates correct an automatic matcher: choose binarized, softmatch, exact or a plug-in")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, not {level}")
    try:
        with Store(store) as opened:
            report, warnings = estimate_plan(opened, chosen, pool, level)
    except (ImportRefused, NothingToScore) as exc:
        raise ValueError(str(exc)) from None
    return PlanEstimates(report, warnings)


def calibrate(*, gold: str | Path | GoldStandard, runs: str | Path | Sequence[str | Path | CCLQARun],
              judgments: str | Path, level: float = 0.95, auto_judgments: Sequence[str] = (),
              config: Settings | None = None, **options: Any) -> PlanEstimates:
    """The PPI++ estimates of each run's human F3 and of every difference of two runs from the human
    `judgments` of a random sample of topics (every run judged on them), correcting the automatic
    matcher (`options` as `settings` takes them, binarized by default, or `config`; or one automatic
    assessor's file, `auto_judgments`), as `sepia evaluate --calibrate FILE` computes them. A learned
    matcher without a model is trained on the sample's judgments only, cross-fitted over its topics.
    Everything is read and checked before anything is estimated: FormatError for a bad file,
    CallError for a call that cannot be made (the human matcher, several assessors, a run twice),
    ValueError for judgments that cannot calibrate (none, topics the gold standard lacks, a run not
    judged on a sampled topic)."""
    from sepia.convert.autojudgments import auto_matchers
    from sepia.formats.judgments import read_judgments
    from sepia.matchers.learned import cross_fitted, fits_on_plan
    from sepia.metaeval.calibrate import calibrate as estimate, run_topic_scores
    from sepia.metaeval.render import json_ready
    from sepia.scoring.evaluate import Evaluator

    chosen = config or settings(**options)
    if chosen.matcher == "human":
        raise CallError("calibration corrects an automatic matcher: choose binarized, softmatch, exact, a plug-in "
                        "or automatic judgments")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, not {level}")
    read_gold = _gold(gold)
    sample = read_judgments(str(judgments))
    if not sample:
        raise ValueError(f"{judgments}: no judgments: nothing to calibrate with")
    topics = {t.topic_id for t in read_gold.topics if t.nuggets}
    outside = sorted({j.topic_id for j in sample} - topics)
    if outside:
        raise ValueError(f"{judgments}: judgments of topics the gold standard lacks or leaves out: "
                         f"{', '.join(outside[:5])}{' ...' if len(outside) > 5 else ''}")
    judged = {j.topic_id for j in sample}
    judged_pairs = {(j.run_id, j.topic_id) for j in sample}
    given: Iterable[CCLQARun] = _each_run(runs)
    if auto_judgments:
        try:
            matchers = auto_matchers(auto_judgments, read_gold, chosen.partial)
        except ValueError as exc:
            raise CallError(str(exc)) from None
        if len(matchers) > 1:
            raise CallError("--calibrate corrects one matcher: give one --auto-judgments file")
        name, matcher = next(iter(matchers.items()))
        automatic = Evaluator(read_gold, replace(chosen, matcher=name), None, matcher)
    elif fits_on_plan(chosen):  # trained on the sample's judgments only, cross-fitted over its topics
        given = list(given)
        automatic = Evaluator(read_gold, chosen, None, cross_fitted(read_gold, given, sample, "topic"))
    else:  # a learned matcher with a model: fixed before the sample
        automatic = Evaluator(read_gold, chosen)
    human = Evaluator(read_gold, replace(chosen, matcher="human", matcher_options={}), sample)
    if automatic.learns:  # the learned matcher's model sees every run before it scores one
        given = list(given)
        automatic.learn(given)
    scores, seen = [], set()
    for run in given:
        if run.run_id in seen:
            raise CallError(f"the same run ID is given more than once: {run.run_id}")
        seen.add(run.run_id)
        unjudged = sorted(t.topic_id for t in run.topics if t.answers and t.topic_id in judged
                          and (run.run_id, t.topic_id) not in judged_pairs)
        if unjudged:
            raise ValueError(f"{judgments}: run {run.run_id} is not judged on the sampled topic {unjudged[0]}: a "
                             "judged topic needs the judgments of every run")
        scores.append(run_topic_scores(automatic, human, run, judged))
    report = json_ready(estimate(scores, level))
    if not report["language_pairs"]:
        raise ValueError(f"{judgments}: no judged topic belongs to the runs' language pairs")
    report["matcher"] = automatic.settings.matcher
    return PlanEstimates(report)


# -- Question Analysis runs: answer types and key terms --------------------------------------------

QA_TITLE = "Question Analysis: answer-type accuracy (by gold answer type), key-term recall and precision"


@dataclass
class QAEvaluation(_Table):
    """Question Analysis runs' scores, best first, as `sepia evaluate-qa` ranks them; `warnings`
    holds the files' warnings (`PATH:LINE:COLUMN: warning: ...`) and the runs'."""
    runs: list[QARunScore]
    warnings: list[str] = field(default_factory=list)

    def to_records(self) -> list[dict[str, Any]]:
        """One record per run and topic: gold and predicted answer type, whether they agree, and the
        topic's key-term recall and precision (None without gold key terms)."""
        return [{"run_id": r.run_id, "topic_id": t.topic_id, "gold_type": t.gold_type,
                 "predicted_type": t.predicted_type, "correct": t.correct,
                 "key_term_recall": t.key_terms.recall if t.key_terms else None,
                 "key_term_precision": t.key_terms.precision if t.key_terms else None}
                for r in self.runs for t in r.topics]

    def render(self, output: str = "table", confusion: bool = False) -> str:
        """The text `sepia evaluate-qa --format OUTPUT [--confusion]` prints."""
        from sepia.qa.evaluate import SETTINGS
        from sepia.qa.report import as_json, confusion_tables, table, tsv

        if output == "json":
            return as_json(self.runs, SETTINGS) + "\n"
        if output == "tsv":
            return tsv(self.runs)
        return table(self.runs, QA_TITLE) + (confusion_tables(self.runs) if confusion else "")


def evaluate_qa(*, topics: str | Path, runs: str | Path | Sequence[str | Path]) -> QAEvaluation:
    """Score Question Analysis runs against a topic set (answer types and gold key terms) or a gold
    standard (answer types only), as `sepia evaluate-qa` does. Every file is checked as `sepia validate`
    checks it first: FormatError with every problem of every file that is not valid."""
    from sepia.formats.errors import FormatError
    from sepia.formats.model import GoldStandard, QARun, Topic, TopicSet
    from sepia.qa.evaluate import evaluate_qa as score

    paths = files_in(runs)
    if not paths:
        raise ValueError("give at least one run (a run file or a folder of run files)")
    checked = [validate(topics, kinds=(TopicSet, GoldStandard))] + [validate(p, format="qa", kinds=(QARun,))
                                                                    for p in paths]
    if not all(c.valid for c in checked):
        raise FormatError([p for c in checked for p in c.found])
    read_topics, read_runs = checked[0].value, [cast(QARun, c.value) for c in checked[1:]]
    ids = Counter(r.metadata.run_id for r in read_runs)
    repeated = sorted(i for i, n in ids.items() if n > 1)
    if repeated:
        raise ValueError(f"the same run ID is given more than once: {', '.join(repeated)}")
    if isinstance(read_topics, GoldStandard):  # answer types only, no key terms
        topic_list = [Topic(t.topic_id, t.questions, answer_type=t.answer_type) for t in read_topics.topics]
    else:
        topic_list = cast(TopicSet, read_topics).topics
    scored = score(topic_list, read_runs)
    return QAEvaluation(scored, [*(p for c in checked for p in c.problems),
                                 *dict.fromkeys(w for r in scored for w in r.warnings)])


# -- files: validation -----------------------------------------------------------------------------

@dataclass
class Validation:
    """A file's check: the object read (None when invalid) and every problem, `PATH:LINE:COLUMN: message`
    (warnings too, which leave the file valid)."""
    path: str
    value: object | None
    found: list[Problem] = field(default_factory=list, repr=False)

    @property
    def valid(self) -> bool:
        return self.value is not None

    @property
    def problems(self) -> list[str]:
        return [str(p) for p in self.found]


def validate(path: str | Path, *, format: str | None = None, max_size: int | None = None,
             gold: str | Path | None = None, kinds: tuple[type, ...] = ()) -> Validation:
    """Check a run, topic, gold standard, judgments or TREC RAG file as `sepia validate` does (the
    format detected unless given); with `gold`, judgments naming a nugget it lacks are reported; with
    `kinds`, a file of another kind is invalid."""
    from sepia.convert.validate import validate_any_file
    from sepia.formats.errors import Problem
    from sepia.services.validation import missing_in_configured_store

    read_gold = _gold(gold) if gold is not None else None
    value, problems = validate_any_file(path, format, max_size, read_gold, str(gold or ""),
                                        missing_in_configured_store)
    if value is not None and kinds and not isinstance(value, kinds):
        expected = " or ".join(k.__name__ for k in kinds)
        problems = [*problems, Problem(str(path), 1, 1, f"expected {expected}, got a {type(value).__name__}")]
        value = None
    return Validation(str(path), value, list(problems))


# -- assessors: agreement on votes and judgments ---------------------------------------------------

GROUPINGS = ("assessor", "topic", "type", "lang", "run")


@dataclass
class Agreement(_Table):
    """How far assessors agree: `report` is what `sepia agreement --format json` prints (without the
    versions): "agreement" (kappa and alpha per language and kind), "assessors", "disputed", and "by"
    and "changes" when asked for."""
    report: dict

    def to_records(self) -> list[dict[str, Any]]:
        """The agreement table: one record per language and kind of label."""
        return [dict(row) for row in self.report["agreement"]]

    def render(self, output: str = "table") -> str:
        """The text `sepia agreement --format OUTPUT` prints (table or json)."""
        if output == "json":
            from sepia.versions import stamped

            return json.dumps(stamped(self.report), ensure_ascii=False, indent=1) + "\n"
        from sepia.metaeval.assessors_render import changes_text, quality_text, rates_text
        from sepia.metaeval.render import agreement_text

        report, grouped = self.report, self.report.get("by", {})
        text = agreement_text(report["agreement"], report["assessors"], report["disputed"])
        if "assessor" in grouped:
            text += "\n" + quality_text(grouped["assessor"]["quality"], grouped["assessor"]["kappa"])
        for by, rows in grouped.get("disputes", {}).items():
            text += "\n" + rates_text(by, rows)
        if "changes" in report:
            text += "\n" + changes_text(report["changes"])
        return text


def agreement(*, gold: str | Path | GoldStandard | Sequence[str | Path | GoldStandard],
              judgments: str | Path | Sequence[str | Path] = (),
              limit: int | None = 20, by: Sequence[str] = (), after: str | Path | Sequence[str | Path] = (),
              runs: str | Path | Sequence[str | Path] = ()) -> Agreement:
    """Fleiss' kappa and Krippendorff's alpha of the gold standards' vital votes and of nugget
    judgments (TSV files or folders of them), lone dissent per assessor and the `limit` most
    disputed items (None: all), as `sepia agreement` does; `by` adds per-assessor quality and
    dispute rates; `after` (a second round of judgments) with `runs` splits each run's human F change."""
    from sepia.metaeval.disputes import agreement_table, assessor_disputes, judgment_items, split_items, vote_items
    from sepia.metaeval.render import json_ready

    for name in by:
        _one_of("by", name, GROUPINGS)
    if bool(after) != bool(runs):
        raise ValueError("after and runs go together: the runs whose score change is split")
    from sepia.formats.model import GoldStandard

    golds = [_gold(p) for p in ([gold] if isinstance(gold, (str, Path, GoldStandard)) else gold)]
    labelled = [pair for g in golds for pair in vote_items(g)]
    langs = {g.lang for g in golds if g.lang}
    read = _judgments(judgments)
    labelled += judgment_items(read, langs.pop() if len(langs) == 1 else None)
    items = [item for _, item in labelled]
    report: dict[str, Any] = {"agreement": [r.as_dict() for r in agreement_table(labelled)],
                              "assessors": [a.as_dict() for a in assessor_disputes(items)],
                              "disputed": [s.as_dict() for s in split_items(items, limit or None)]}
    merged = _merged(golds)
    if by:
        report["by"] = _grouped(merged, read, by)
    if after:
        from sepia.metaeval.rounds import score_change

        report["changes"] = [c.as_dict() for c in score_change(merged, list(_each_run(runs)), read, _judgments(after))]
    return Agreement(json_ready(report))


def _judgments(paths) -> list:
    from sepia.formats.judgments import read_judgments

    return [j for p in files_in(paths, "*.tsv") for j in read_judgments(p)]


def _merged(golds: list[GoldStandard]) -> GoldStandard:
    from sepia.formats.model import GoldStandard

    langs = {g.lang for g in golds}
    return GoldStandard(langs.pop() if len(langs) == 1 else None, [t for g in golds for t in g.topics])


def _grouped(gold: GoldStandard, judgments, groupings) -> dict:
    from sepia.metaeval.assessors import assessor_quality, dispute_rates, kappa_matrix, match_units, vote_units

    units = vote_units(gold) + match_units(judgments, gold)
    grouped: dict[str, Any] = {}
    for by in dict.fromkeys(groupings):
        if by == "assessor":
            grouped[by] = {"quality": [r.as_dict() for r in assessor_quality(units)],
                           "kappa": [p.as_dict() for p in kappa_matrix(units)]}
        grouped.setdefault("disputes", {})[by] = [r.as_dict() for r in dispute_rates(units, by)]
    return grouped
