"""Score CCLQA runs against a gold standard: per topic, macro averages overall and by answer type."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import KW_ONLY, dataclass, field
from typing import Iterable, Sequence

from sepia import vocab
from sepia.formats.model import CCLQARun, GoldStandard, Judgment, topic_lang
from sepia.scoring.allowance import Allowance, mean_nugget_lengths
from sepia.scoring import nuggetizer
from sepia.scoring.fscore import TopicScore, topic_score
from sepia.scoring.depth import at_depth
from sepia import matchers as registered
from sepia.matchers.base import BatchMatcher, JudgedMatcher, LearningMatcher, Matcher, MatcherOptions, NumberRule
from sepia.matchers.decisions import PARTIAL
from sepia.text.tokenize import Tokenizer, char_length
from sepia.scoring.weights import Scheme, nugget_weights


@dataclass
class RunScore:
    run_id: str
    matcher: str
    score: float
    by_type: dict[str, float]
    topics: list[TopicScore]
    warnings: list[str] = field(default_factory=list)
    nuggetizer: dict | None = None  # TREC RAG's four scores, `nuggetizer.run_means`

    @property
    def language_pair(self) -> str:
        return vocab.language_pair_of(self.run_id)

    def as_dict(self, measures: Sequence[str] = ()) -> dict:
        """The JSON object of docs/spec.md (Command-line contract); with "nuggetizer" in `measures`, also
        TREC RAG's four scores (per topic, and per run over all topics and over the answered topics)."""
        with_nuggetizer = "nuggetizer" in measures and self.nuggetizer is not None
        topics = [t.as_dict() | ({"nuggetizer": t.nuggetizer} if with_nuggetizer else {}) for t in self.topics]
        document = {"run_id": self.run_id, "matcher": self.matcher, "score": self.score, "by_type": self.by_type,
                    "topics": topics}
        if with_nuggetizer:
            document["nuggetizer"] = self.nuggetizer
        return document


@dataclass
class Settings:
    matcher: str = "binarized"
    _: KW_ONLY  # the rest by name: twelve options of like types are not to be told apart by place
    beta: float = 3.0
    theta: float = 0.5
    weights: Scheme = "pyramid"
    allowance_per_type: dict[str, float] = field(default_factory=dict)
    allowance: float | None = None
    tokenizer: Tokenizer = field(default_factory=Tokenizer)
    as_set: bool = False
    partial: float = PARTIAL  # human matcher: what a partial support (judged 0.5) counts for in F
    depth: int | None = None  # only the first N responses of a run per topic count (sepia.scoring.depth)
    numbers: NumberRule = "lenient"  # "strict": a nugget's numbers must be in the response (matchers that take it)
    matcher_options: dict[str, str] = field(default_factory=dict)  # a matcher's own options (--matcher-option)

    def matcher_kind(self) -> registered.MatcherKind | None:
        """The matcher's descriptor; None for one that is not registered (an assessor's judgments file)."""
        return registered.kind_or_none(self.matcher)

    def matcher_options_for(self, judgments: Sequence[Judgment] | None = None) -> MatcherOptions:
        return MatcherOptions(theta=self.theta, tokenizer=self.tokenizer, as_set=self.as_set, partial=self.partial,
                              numbers=self.numbers, judgments=judgments, extra=dict(self.matcher_options))

    def identity(self, described: dict | None = None) -> dict:
        """The values of the settings that decide the scores, as JSON values: what the store keys the
        scores by (`sepia.store.results.settings_key`); `describe` is the same settings as text to
        show. Like `describe`, it leaves out the options the matcher does not take (theta as None)
        and those that were added later while at the value that behaves as before (numbers
        lenient, no matcher options, no depth), so that the identity of older scores does not
        change; migration 0019 computed it from the descriptions kept before. `described` is this
        `describe()` when the caller made it already (a save keeps both): describing again would
        ask an LLM matcher's server for its model a second time."""
        described = dict(self.describe() if described is None else described)
        described["allowance"] = {"per_type": dict(sorted(self.allowance_per_type.items())), "all": self.allowance}
        described["tokens"] = {"stem": self.tokenizer.stem, "stopwords": self.tokenizer.stopwords, "as_set": self.as_set}
        return described

    def describe(self) -> dict:
        """The settings as `sepia evaluate` prints them (and the store keeps them with the scores): the
        options the matcher's descriptor names; `numbers` and a matcher's own options only when set, so
        scores kept before they existed keep their settings."""
        kind = self.matcher_kind()
        takes = kind.options if kind else ()
        allowance = Allowance({}, self.allowance_per_type, self.allowance).describe()
        described = {"matcher": self.matcher, "beta": self.beta,
                     "theta": self.theta if "theta" in takes else None, "weights": self.weights,
                     "allowance": allowance,
                     "tokens": self.tokenizer.describe() + (", as a set" if self.as_set else ", as a bag")}
        if "partial" in takes:
            described["partial"] = self.partial
        if "numbers" in takes and self.numbers != "lenient":
            described["numbers"] = self.numbers
        if self.matcher_options:
            described["options"] = dict(sorted(self.matcher_options.items()))
        if kind and kind.versions:  # a model's identity, a prompt's digest: ValueError when it cannot tell
            described["versions"] = kind.versions(self.matcher_options)
        if self.depth is not None:
            described["depth"] = self.depth
        return described


def evaluate_runs(gold: GoldStandard, runs: Sequence[CCLQARun], *, matcher: str | Matcher = "binarized",
                  judgments: Sequence[Judgment] | None = None, beta: float = 3.0, theta: float = 0.5,
                  weights: Scheme = "pyramid", allowance: float | None = None,
                  allowance_per_type: dict[str, float] | None = None,
                  tokenizer: Tokenizer | None = None, as_set: bool = False,
                  partial: float = PARTIAL, numbers: NumberRule = "lenient",
                  matcher_options: dict[str, str] | None = None) -> list[RunScore]:
    """Score every run; the result is ranked by score, best first.

    `allowance` overrides C for every answer type, `allowance_per_type` for the types it names.
    `matcher` is a registered matcher's name or a matcher object (e.g. judgments of an automatic
    assessor, `sepia.convert.autojudgments`)."""
    instance = None if isinstance(matcher, str) else matcher
    settings = Settings(matcher if isinstance(matcher, str) else matcher.name, beta=beta, theta=theta, weights=weights,
                        allowance_per_type=allowance_per_type or {}, allowance=allowance,
                        tokenizer=tokenizer or Tokenizer(), as_set=as_set, partial=partial, numbers=numbers,
                        matcher_options=dict(matcher_options or {}))
    return Evaluator(gold, settings, judgments, instance).rank(runs)


class Evaluator:
    """Holds what does not change from run to run: weights, allowances and the matcher's caches."""

    def __init__(self, gold: GoldStandard, settings: Settings, judgments: Sequence[Judgment] | None = None,
                 matcher: Matcher | None = None):
        self.gold = gold
        self.settings = settings
        self.matcher = matcher or registered.make(settings.matcher, settings.matcher_options_for(judgments))
        judgments = judgments if matcher is None else getattr(matcher, "judgments", None)
        self.allowance = Allowance(mean_nugget_lengths(gold), settings.allowance_per_type, settings.allowance)
        self.warnings: list[str] = []
        if judgments:
            from sepia.formats.judgments import unknown_nuggets
            from sepia.matchers.decisions import nugget_pairs

            missing = unknown_nuggets(nugget_pairs(judgments), gold)
            if missing:
                shown = ", ".join(f"{t} {n}" for t, n in missing[:10]) + (", ..." if len(missing) > 10 else "")
                self.warnings.append(f"the judgments name {len(missing)} nuggets the gold standard lacks "
                                     f"(ignored): {shown}")
        self.topics_by_lang: dict[str, list] = defaultdict(list)
        self.weights: dict[str, list[float]] = {}
        self.vital: dict[str, list[bool]] = {}
        for topic in gold.topics:
            if not topic.nuggets:
                self.warnings.append(f"topic {topic.topic_id} has no nuggets in the gold standard and is left out")
                continue
            self.weights[topic.topic_id], notes = nugget_weights(topic.nuggets, settings.weights)
            self.vital[topic.topic_id] = [nuggetizer.is_vital(n) for n in topic.nuggets]
            self.warnings += [f"topic {topic.topic_id}: {note}" for note in notes]
            self.topics_by_lang[topic_lang(gold, topic)].append(topic)

    def rank(self, runs: Iterable[CCLQARun]) -> list[RunScore]:
        if self.learns:
            runs = list(runs)
            self.learn(runs)
        return ranked(self.evaluate(run) for run in runs)

    @property
    def learns(self) -> bool:
        """Whether the matcher must see every run before it scores one (`learn`)."""
        return isinstance(self.matcher, LearningMatcher)

    def learn(self, runs: Sequence[CCLQARun]) -> None:
        """Show a matcher that learns from other runs (`learns_from_other_runs`) every run it will
        score, as scored (at depth), before it scores any: it becomes the matcher for those runs.
        ValueError (one line) when it cannot learn from them."""
        if isinstance(self.matcher, LearningMatcher):
            self.matcher = self.matcher.learn(self.gold, [at_depth(run, self.settings.depth) for run in runs])
            self.warnings += [w for w in getattr(self.matcher, "warnings", ()) if w not in self.warnings]

    def evaluate(self, run: CCLQARun, judgments: Sequence[Judgment] | None = None) -> RunScore:
        """One run's scores. For a matcher that reads judgments (`with_judgments`), `judgments` (when
        given) replace those the evaluator was made with: a caller may bring each run's judgments with the run."""
        matcher = self.matcher
        run = at_depth(run, self.settings.depth)
        if judgments is not None and isinstance(matcher, JudgedMatcher):
            matcher = matcher.with_judgments(judgments)
        parsed = vocab.parse_run_id(run.run_id)
        lang = parsed.target_lang if parsed else self.gold.lang or ""
        topics = self.topics_by_lang.get(lang, [])
        warnings: list[str] = []
        if not topics:
            warnings.append(f"the gold standard has no {lang} topics with nuggets; run {run.run_id} scores 0")
        answered = {t.topic_id: t for t in run.topics}
        unknown = sorted(set(answered) - {t.topic_id for t in topics})
        if unknown:
            warnings.append(f"run {run.run_id} answers topics the gold standard lacks (ignored): {', '.join(unknown)}")
        scores = []
        nugget_scores: list[dict[str, float] | None] = []
        answer_lists = [answered[t.topic_id].answers if t.topic_id in answered else [] for t in topics]
        batched = _batched_scores(matcher, run.run_id, topics, answer_lists)
        judging = matcher if isinstance(matcher, JudgedMatcher) else None
        beta = self.settings.beta
        for i, (topic, answers) in enumerate(zip(topics, answer_lists)):
            topic_id = topic.topic_id
            if answers and judging and judging.unjudged(run.run_id, topic_id):
                warnings.append(f"run {run.run_id} topic {topic_id}: no {_judged_by(matcher)} judgments "
                                "(scored as no match)")
            if batched is not None:
                match_scores = batched[i]
            elif answers:
                match_scores = matcher.scores(run.run_id, topic_id, topic.nuggets, answers)
            else:
                match_scores = []
            values = match_scores or [0.0] * len(topic.nuggets)
            nugget_scores.append(nuggetizer.topic_scores(values, self.vital[topic_id]) if answers else None)
            scores.append(topic_score(
                topic_id, topic.answer_type, weights=self.weights[topic_id],
                match_scores=judging.credit(values) if judging else values,
                length=char_length("".join([a.text for a in answers])),  # = the sum over the answers
                char_allowance=self.allowance(lang, topic.answer_type), beta=beta, has_responses=bool(answers),
                nuggetizer=nugget_scores[-1] or nuggetizer.zero()))
        return RunScore(run.run_id, self.settings.matcher, _mean([s.f for s in scores]), _by_type(scores),
                        scores, self.warnings + warnings, nuggetizer.run_means(nugget_scores))


def ranked(results: Iterable[RunScore]) -> list[RunScore]:
    """Best score first; ties in run ID order."""
    return sorted(results, key=lambda r: (-r.score, r.run_id))


def _batched_scores(matcher: Matcher, run_id: str, topics, answer_lists) -> list[list[float]] | None:
    """Every topic's match scores from one call, for matchers that can batch (softmatch,
    BINARIZED); [] for a topic without answers, as `evaluate` expects."""
    if not isinstance(matcher, BatchMatcher):
        return None
    answered = [i for i, answers in enumerate(answer_lists) if answers]
    many = iter(matcher.scores_many(run_id, [(topics[i].nuggets, answer_lists[i]) for i in answered]))
    with_answers = set(answered)
    return [next(many) if i in with_answers else [] for i in range(len(topics))]


def _judged_by(matcher) -> str:
    return "human" if matcher.name == "human" else f"{matcher.name!r}"


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _by_type(scores: Sequence[TopicScore]) -> dict[str, float]:
    groups: dict[str, list[float]] = defaultdict(list)
    for s in scores:
        groups[s.answer_type].append(s.f)
    return {t: _mean(v) for t, v in sorted(groups.items(), key=lambda kv: _type_order(kv[0]))}


def _type_order(answer_type: str) -> int:
    return vocab.ANSWER_TYPES.index(answer_type) if answer_type in vocab.ANSWER_TYPES else len(vocab.ANSWER_TYPES)
