"""llm (issue 32): a large language model behind any OpenAI-compatible chat-completions server decides
whether a run's responses to a topic support each nugget: support 1, partial_support 0.5 (as TREC RAG
counts it), not_support 0 (sepia/llm/, docs/llm.md).

Made, it asks the server which model it serves and has it label one plain pair, so a missing key, a
server that does not answer, a model it does not serve or one that answers nonsense is one line
before anything is scored. Shown every run first (`learn`, as the evaluator does wherever a matcher
scores), it asks for every decision at once, `concurrency` requests at a time; a pair whose answer
cannot be read is undecided: scored 0, counted and listed in the warnings."""
from __future__ import annotations

import threading
from typing import Sequence

from sepia import vocab
from sepia.formats.model import Answer, CCLQARun, GoldNugget, GoldStandard, topic_lang
from sepia.llm.assessor import OPTIONS, Assessor, Config, Item
from sepia.llm.labels import VALUES
from sepia.matchers.base import MatcherKind, MatcherOptions

SHOWN = 10  # undecided pairs listed in a warning; the rest are counted


class LLMMatcher:
    name = "llm"

    def __init__(self, assessor: Assessor, decided: dict[tuple[str, str], list[float]] | None = None,
                 warnings: Sequence[str] = (), undecided: Sequence[tuple[str, str, str]] = ()):
        self.assessor = assessor
        self.decided = decided or {}  # (run, topic) -> values, asked for by `learn`
        self.warnings = list(warnings)
        self.undecided = list(undecided)  # (run, topic, nugget): scored 0, listed
        self._lock = threading.Lock()

    def learn(self, gold: GoldStandard, runs: Sequence[CCLQARun]) -> LLMMatcher:
        """The matcher for these runs: every (run, topic)'s decisions asked for at once."""
        asked = items_of(gold, runs)
        items, where = [item for item, _ in asked], [at for _, at in asked]
        decided, undecided = {}, []
        for (run_id, topic_id, nuggets), found in zip(where, self.assessor.decide(items)):
            decided[(run_id, topic_id)] = [VALUES[v] if v else 0.0 for v in found]
            undecided += [(run_id, topic_id, n.nugget_id) for n, v in zip(nuggets, found) if v is None]
        warnings = [f"the llm matcher ({self.assessor.model}): {self.assessor.usage.line()}"]
        if undecided:
            warnings.append(undecided_line(undecided, sum(len(i.nuggets) for i in items)))
        return LLMMatcher(self.assessor, decided, warnings, undecided)

    def scores(self, run_id: str, topic_id: str, nuggets: Sequence[GoldNugget],
               answers: Sequence[Answer]) -> list[float]:
        known = self.decided.get((run_id, topic_id))
        if known is not None and len(known) == len(nuggets):
            return known
        found = self.assessor.decide([_item(_lang(run_id, "EN"), nuggets, answers)])[0]
        missed = [(run_id, topic_id, n.nugget_id) for n, v in zip(nuggets, found) if v is None]
        if missed:
            with self._lock:
                self.undecided += missed
        return [VALUES[v] if v else 0.0 for v in found]


def items_of(gold: GoldStandard, runs: Sequence[CCLQARun]) -> list[tuple[Item, tuple[str, str, Sequence[GoldNugget]]]]:
    """Each answered (run, topic) of the run's language with nuggets: (what to ask, (run, topic, nuggets))."""
    by_lang: dict[str, list] = {}
    for topic in gold.topics:
        if topic.nuggets:
            by_lang.setdefault(topic_lang(gold, topic), []).append(topic)
    found = []
    for run in runs:
        lang = _lang(run.run_id, gold.lang)
        answered = {t.topic_id: t.answers for t in run.topics if t.answers}
        found += [(_item(lang, topic.nuggets, answered[topic.topic_id]), (run.run_id, topic.topic_id, topic.nuggets))
                  for topic in by_lang.get(lang, []) if topic.topic_id in answered]
    return found


def undecided_line(undecided: Sequence[tuple[str, str, str]], asked: int) -> str:
    shown = ", ".join(" ".join(u) for u in undecided[:SHOWN]) + (", ..." if len(undecided) > SHOWN else "")
    return (f"the llm matcher left {len(undecided)} of {asked} (run, topic, nugget) pairs undecided, scored as no "
            f"match: {shown}")


def _lang(run_id: str, fallback: str | None) -> str:
    parsed = vocab.parse_run_id(run_id)
    return parsed.target_lang if parsed else fallback or "EN"


def _item(lang: str, nuggets: Sequence[GoldNugget], answers: Sequence[Answer]) -> Item:
    """The run's answers to a topic, joined in rank order, and the nuggets' texts."""
    ordered = sorted(answers, key=lambda a: a.rank)
    return Item(lang, "\n\n".join(a.text for a in ordered), tuple(n.text for n in nuggets))


def _make(options: MatcherOptions) -> LLMMatcher:
    return LLMMatcher(Assessor(Config.parse(options.extra)).connect())


def _versions(extra) -> dict[str, str]:
    return Assessor(Config.parse(extra)).identify().describe()


KIND = MatcherKind(name="llm", label="LLM", automatic=True, make=_make, extra=OPTIONS, opt_in=True, versions=_versions,
                   summary="a language model behind an OpenAI-compatible server labels each nugget (base_url=URL)")
