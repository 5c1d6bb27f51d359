"""Score IR4QA runs: AP, NTCIREVAL's Q and nDCG (or the measures asked for) per topic and their means over the topics with relevant documents.

`IR4QAEvaluator` prepares the qrels once and scores one run at a time: a run's documents are needed
only while it is scored, so that memory does not grow with the number of runs."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from sepia import limits, vocab
from sepia.formats.model import IR4QARun
from sepia.ir4qa import registry
from sepia.ir4qa.measures import IRScores, JudgedTopic
from sepia.ir4qa.qrels import Qrels

MEASURES = registry.DEFAULT  # what the store keeps; --measures may ask for others
RANKED_BY = (registry.NTCIR + "Q", "AP")  # runs are ranked by these means, the first found first


def stored_measures(shown: Sequence[str]) -> tuple[str, ...]:
    """What a scoring of the store computes: `MEASURES` always, then the measures asked for; ValueError
    for a name longer than the store keeps."""
    for name in shown:
        problem = limits.too_long(f"the measure name {name}", name, limits.MEASURE)
        if problem:
            raise ValueError(problem)
    return tuple(dict.fromkeys((*MEASURES, *shown)))


@dataclass
class IRRunScore:
    run_id: str
    means: dict[str, float]
    topics: dict[str, IRScores]
    warnings: list[str] = field(default_factory=list)

    @property
    def language_pair(self) -> str:
        return vocab.language_pair_of(self.run_id)

    def as_dict(self) -> dict:
        return {"run_id": self.run_id, **self.means,
                "topics": [{"topic_id": t, **s.as_dict()} for t, s in self.topics.items()]}


@dataclass
class IR4QAResults:
    """Ranked run scores with the gains and cut-off they were computed with."""
    runs: list[IRRunScore]
    gains: list[float]
    cutoff: int = 1000
    options: dict = field(default_factory=dict)  # measures, condensed, average (see `IR4QAEvaluator`)

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(self.options.get("measures") or MEASURES)

    @property
    def settings(self) -> dict:
        """Gains, cut-off and beta, and the options that differ from the defaults (so that the default
        scores keep the settings they always had in the store)."""
        extra = {k: (list(v) if k == "measures" else v) for k, v in self.options.items()
                 if v and not (k == "measures" and tuple(v) == MEASURES)}
        return {"gains": ":".join(f"{g:g}" for g in self.gains), "cutoff": self.cutoff, "beta": 1, **extra}


AVERAGES = {
    None: "the topics of the run's language with a relevant document",  # SEPIA's, NTCIR's
    "trec_eval": "the run's topics found in the qrels",                 # trec_eval's, without -c
    "ir_measures": "every topic of the qrels",                          # ir_measures' calc_aggregate, trec_eval -c
}


class IR4QAEvaluator:
    """The qrels prepared once (every topic with a relevant document), then one run scored at a time.
    Raises ValueError at once when a level of those topics has no gain. `options`: measures,
    condensed (see `sepia.ir4qa.measures.score_ranking`), average (which topics a
    run's means are over, AVERAGES: SEPIA's by default, trec_eval's or ir_measures')."""

    def __init__(self, qrels: Qrels, gains: Sequence[float], cutoff: int = 1000,
                 measures: Sequence[str] | None = None, condensed: bool = False, average: str | None = None):
        if average not in AVERAGES:
            raise ValueError(f"average must be one of {', '.join(str(a) for a in AVERAGES)}, not {average!r}")
        self.average = average
        self.judged_topics = set(qrels)
        wanted = qrels.items() if average in ("trec_eval", "ir_measures") else (
            (t, judged) for t, judged in qrels.items() if any(level > 0 for level in judged.values()))
        self.topics = {t: JudgedTopic(judged, gains, cutoff) for t, judged in wanted}
        self.measures = tuple(measures or MEASURES)
        self.condensed = condensed

    def score(self, run_id: str, rankings: Mapping[str, Sequence[str]]) -> IRRunScore:
        """One run, given each topic's DOCIDs in rank order, over the topics of `average` (by default
        those of its target language, or of no language, that have a relevant document: a topic the
        run did not answer scores 0). A run left with no topic has no means (an empty dict) and says why."""
        scores = {t: self.topics[t].score(rankings.get(t, ()), self.measures, self.condensed)
                  for t in self._topics_of(run_id, rankings)}
        warnings = [f"run {run_id}: no qrels for topic {t} (ignored)" for t in rankings if t not in self.judged_topics]
        if not scores:
            warnings.append(f"run {run_id}: no topic scored: the qrels have none of {AVERAGES[self.average]}")
        means = {m: registry.run_value(m, [s.values[m] for s in scores.values()]) for m in self.measures} if scores else {}
        return IRRunScore(run_id, means, scores, warnings)

    def _topics_of(self, run_id: str, rankings: Mapping[str, Sequence[str]]) -> list[str]:
        if self.average == "trec_eval":
            return sorted(t for t in rankings if t in self.topics)
        if self.average == "ir_measures":  # a topic the run did not answer scores 0
            return sorted(self.topics)
        # a topic ID that names no language (TREC's 401) is every run's
        target = getattr(vocab.parse_run_id(run_id), "target_lang", None)
        return sorted(t for t in self.topics if target is None or vocab.topic_language(t) in (None, target))


def rankings_of(run: IR4QARun) -> dict[str, list[str]]:
    """Each topic's DOCIDs in rank order."""
    return {t.topic_id: [d.docid for d in sorted(t.documents, key=lambda d: d.rank)] for t in run.topics}


def read_xml_rankings(path) -> tuple[str, dict[str, list[str]]]:
    """A SEPIA IR4QA XML run's ID and `rankings_of` it, checked as `read_file(path, "ir4qa")` checks it
    (raising the same FormatError); a valid run is read as lists of DOCIDs, not objects."""
    from sepia.formats.read import expect, read_loaded
    from sepia.formats.stream import read_clean_rankings
    from sepia.formats.xmlsafe import load_xml

    loaded = load_xml(path)
    rankings = read_clean_rankings(loaded)
    if rankings is not None:
        return rankings
    run = expect(read_loaded(loaded, "ir4qa")[0], IR4QARun, path)
    return run.metadata.run_id, rankings_of(run)


def ranked_ir4qa(results: Iterable[IRRunScore]) -> list[IRRunScore]:
    """Best mean Q (NTCIREVAL's) first, then AP (without them, by the first measure); ties in run ID order; runs
    without a scored topic last."""
    def key(r: IRRunScore):
        if not r.topics:
            return (1, r.run_id)
        first = [m for m in RANKED_BY if m in r.means] or list(r.means)[:1]
        return (0, *(-r.means[m] for m in first), r.run_id)
    return sorted(results, key=key)
