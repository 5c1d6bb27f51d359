"""exact (docs/spec.md, Matching): the nugget's token sequence occurs as a contiguous run in some response's
token sequence, so white space and punctuation never decide a match (`GDP 增长` matches `GDP增长`)."""
from __future__ import annotations

from dataclasses import dataclass, field

from sepia.matchers.base import MatcherKind
from sepia.text.tokenize import Tokenizer

_SEP = "\x00"  # never inside a token (tokens are letters and digits), so joined tokens cannot run together


@dataclass
class ExactMatcher:
    tokenizer: Tokenizer = field(default_factory=Tokenizer)
    name: str = "exact"
    _nuggets: dict[str, str] = field(default_factory=dict, repr=False)  # joined once, not per run

    def _joined(self, text: str) -> str:
        tokens = self.tokenizer.tokens(text)
        return _SEP + _SEP.join(tokens) + _SEP if tokens else ""

    def scores(self, run_id, topic_id, nuggets, answers) -> list[float]:
        texts = [self._joined(a.text) for a in answers]
        found = []
        for n in nuggets:
            if n.text not in self._nuggets:
                self._nuggets[n.text] = self._joined(n.text)
            needle = self._nuggets[n.text]  # a nugget without tokens never matches
            found.append(1.0 if needle and any(needle in t for t in texts) else 0.0)
        return found


KIND = MatcherKind(
    name="exact", label="exact", automatic=True, make=lambda o: ExactMatcher(o.tokenizer),
    options=("tokenizer",), summary="the nugget's tokens occur, in order and contiguously, in a response")
