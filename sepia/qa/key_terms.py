"""Key terms compared after the project's normalisation (NFKC, then lower case), per language."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from sepia.formats.model import KeyTerm, LangText
from sepia.text.tokenize import normalize


def _key(text: str) -> str:
    # surrounding white space is not part of a term; inner spaces are ("new york" is not "newyork")
    return normalize(text).strip()


@dataclass(frozen=True)
class KeyTermMatch:
    """One topic's key terms: gold terms found, gold terms, run terms that are gold, run terms
    (each counted once after normalisation)."""
    found: int
    gold: int
    correct: int
    given: int

    @property
    def recall(self) -> float:
        return self.found / self.gold if self.gold else 0.0

    @property
    def precision(self) -> float:
        return self.correct / self.given if self.given else 0.0


def match_key_terms(gold: Iterable[LangText], run: Iterable[KeyTerm]) -> KeyTermMatch:
    """A run term matches a gold term when their normalised texts are equal and, if the run term
    names its LANG, the languages are equal too (a run term without LANG matches in any language)."""
    gold_terms = {(g.lang, _key(g.text)) for g in gold}
    run_terms = {(r.lang, _key(r.text)) for r in run}
    gold_texts = {text for _, text in gold_terms}
    found = sum(1 for lang, text in gold_terms if (lang, text) in run_terms or (None, text) in run_terms)
    correct = sum(1 for lang, text in run_terms if (lang, text) in gold_terms or (lang is None and text in gold_texts))
    return KeyTermMatch(found, len(gold_terms), correct, len(run_terms))
