"""Adversarial probes of the matchers (`sepia metaeval adversarial`): for every topic of a gold
standard a faithful response (its nuggets' text, one answer per nugget) and the perturbed responses
of sepia.metaeval.probes, each scored by every matcher as a run of its own; a matcher is fooled on a
topic when the perturbed response's F scores at least as high as the faithful one's.

The fooled rate of a matcher and probe is over the topics the probe changes. Beside it, the share of
those topics where the perturbed response keeps at least the faithful one's recall: a matcher that
loses only through precision (the perturbation made the response longer) shows there.

The responses are written as CCLQA runs (run IDs PROBE-<LANG>-<LANG>-NN-T, NN = 01 for the faithful
responses, then one per probe in PROBES' order), so an automatic assessor outside SEPIA can judge them
and be scored here from its judgments file (--auto-judgments).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from sepia.formats.model import Answer, CCLQARun, CCLQATopic, GoldStandard, Metadata, topic_lang
from sepia.matchers.base import NUMBER_RULES, NumberRule
from sepia.metaeval.probes import PROBES, ProbeContext
from sepia.scoring.evaluate import Evaluator, Settings

FAITHFUL = "faithful"
TEAM = "PROBE"
_EPSILON = 1e-12  # equal F up to rounding counts as "at least as high"


def run_number(probe: str) -> int:
    return 1 if probe == FAITHFUL else 2 + list(PROBES).index(probe)


def probe_context(gold: GoldStandard, seed: int = 0) -> ProbeContext:
    """Every topic with nuggets, its faithful answers one per nugget (white space runs as one space)."""
    topics = [t for t in gold.topics if t.nuggets]
    if not topics:
        raise ValueError("the gold standard has no nuggets: there is nothing to probe")
    return ProbeContext([t.topic_id for t in topics], [topic_lang(gold, t) for t in topics],
                        [[" ".join(n.text.split()) for n in t.nuggets] for t in topics], seed)


def probe_runs(ctx: ProbeContext, probes: Sequence[str] = tuple(PROBES)) -> tuple[list[CCLQARun], dict]:
    """The faithful and perturbed responses as runs (one per probe and language), and which topics
    each probe changed: {probe: set of topic IDs}."""
    answers = {FAITHFUL: ctx.faithful} | {p: [PROBES[p].perturb(ctx, i) for i in range(len(ctx.topic_ids))]
                                          for p in probes}
    changed = {p: {t for i, t in enumerate(ctx.topic_ids) if answers[p][i] != ctx.faithful[i]} for p in probes}
    runs = []
    for probe, per_topic in answers.items():
        for lang in dict.fromkeys(ctx.langs):
            topics = [CCLQATopic(t, [Answer(k + 1, text) for k, text in enumerate(per_topic[i])])
                      for i, t in enumerate(ctx.topic_ids) if ctx.langs[i] == lang]
            run_id = f"{TEAM}-{lang}-{lang}-{run_number(probe):02d}-T"
            runs.append(CCLQARun(Metadata(run_id, f"adversarial probe: {probe}"), topics))
    return runs, changed


@dataclass
class Fooled:
    matcher: str
    probe: str
    topics: int = 0       # topics the probe changed
    fooled: int = 0       # of those, where the perturbed F reached the faithful F
    kept_recall: int = 0  # of those, where the perturbed recall reached the faithful recall
    fooled_topics: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float | None:
        return self.fooled / self.topics if self.topics else None

    @property
    def recall_rate(self) -> float | None:
        return self.kept_recall / self.topics if self.topics else None

    def as_dict(self) -> dict:
        return {"matcher": self.matcher, "probe": self.probe, "topics": self.topics, "fooled": self.fooled,
                "fooled_rate": self.rate, "kept_recall": self.kept_recall, "kept_recall_rate": self.recall_rate,
                "fooled_topics": self.fooled_topics}


def fooled_rates(gold: GoldStandard, evaluators: dict[str, Evaluator], ctx: ProbeContext,
                 probes: Sequence[str] = tuple(PROBES)) -> tuple[list[Fooled], dict]:
    """Per matcher (by label) and probe, how often the perturbed response scored as high as the
    faithful one; and the runs' per-topic F, {label: {run_id: {topic_id: f}}}."""
    runs, changed = probe_runs(ctx, probes)
    by_probe: dict[str, list[CCLQARun]] = {}
    for run in runs:
        by_probe.setdefault(run.metadata.description.removeprefix("adversarial probe: "), []).append(run)
    results, scores = [], {}
    for evaluator in evaluators.values():  # a learned matcher sees every probe run before it scores one
        evaluator.learn(runs)
    for label, evaluator in evaluators.items():
        topic_scores = {p: {t.topic_id: t for run in runs_ for t in evaluator.evaluate(run).topics}
                        for p, runs_ in by_probe.items()}
        scores[label] = {p: {t: s.f for t, s in per.items()} for p, per in topic_scores.items()}
        for probe in probes:
            row = Fooled(label, probe)
            for topic_id in ctx.topic_ids:
                if topic_id not in changed[probe]:
                    continue
                faithful, perturbed = topic_scores[FAITHFUL][topic_id], topic_scores[probe][topic_id]
                row.topics += 1
                if perturbed.f >= faithful.f - _EPSILON:
                    row.fooled += 1
                    row.fooled_topics.append(topic_id)
                row.kept_recall += perturbed.recall >= faithful.recall - _EPSILON
            results.append(row)
    return results, scores


def make_evaluators(gold: GoldStandard, matchers: Sequence[str], number_rules: Sequence[NumberRule], auto: dict,
                    settings: Settings) -> dict[str, Evaluator]:
    """One evaluator per matcher and number rule (the rule only for matchers that take it), then one per
    automatic assessor's judgments; labelled `binarized`, `binarized --numbers strict`, ..."""
    from dataclasses import replace

    from sepia import matchers as registered

    evaluators = {}
    for name in matchers:
        kind = registered.kind(name)
        rules = number_rules if "numbers" in kind.options else ("lenient",)
        own = {k: v for k, v in settings.matcher_options.items() if k in kind.extra}  # --matcher-option
        for rule in rules:
            label = name + (f" --numbers {rule}" if rule != "lenient" else "")
            evaluators[label] = Evaluator(gold, replace(settings, matcher=name, numbers=rule, matcher_options=own))
    for name, matcher in auto.items():
        evaluators[name] = Evaluator(gold, replace(settings, matcher=name), None, matcher)
    return evaluators


@dataclass
class ProbeReport:
    context: ProbeContext
    matchers: list[str]          # the labels, in order
    rows: list[Fooled]
    warnings: list[str]

    def as_dict(self) -> dict:
        from sepia.metaeval.probes import PROBES

        probes = list(dict.fromkeys(r.probe for r in self.rows))
        return {"topics": len(self.context.topic_ids), "probes": {p: PROBES[p].label for p in probes},
                "matchers": self.matchers, "fooled": [r.as_dict() for r in self.rows]}


def run_probes(gold: GoldStandard, matchers: Sequence[str] = (), number_rules: Sequence[NumberRule] = NUMBER_RULES,
               auto: dict | None = None, settings: Settings | None = None, probes: Sequence[str] = tuple(PROBES),
               seed: int = 0) -> ProbeReport:
    """The whole probe: every matcher named (by default every automatic one, unless assessors' files
    are given), each number rule, every probe. ValueError for a gold standard without nuggets."""
    ctx = probe_context(gold, seed)
    settings = settings or Settings()
    names = list(matchers or ([] if auto else _default_matchers(settings)))
    evaluators = make_evaluators(gold, names, number_rules, auto or {}, settings)
    rows, _ = fooled_rates(gold, evaluators, ctx, probes)
    warnings = list(dict.fromkeys(w for e in evaluators.values() for w in e.warnings))
    return ProbeReport(ctx, list(evaluators), rows, warnings)


def _default_matchers(settings: Settings) -> list[str]:
    """Every automatic matcher; one that learns from other runs' judgments or must be told where to ask
    (`opt_in`) only when given one of its own options (the probes have no judgments: the learned matcher
    needs model=MODEL; the llm matcher, base_url=URL)."""
    from sepia import matchers as registered

    return [n for n in registered.names(automatic_only=True)
            if not (registered.kind(n).learns_from_other_runs or registered.kind(n).opt_in)
            or set(settings.matcher_options) & set(registered.kind(n).extra)]
