"""The topic developer's "Generate query" button: key terms in, a query string out.

Each usable key term becomes a quoted phrase (one word or several, in any language), and the
phrases are joined with OR, so BM25F ranks first the documents that contain the most key terms,
rarer terms weighing more, and a document missing one term is still found.
"""
from __future__ import annotations

import re

from sepia.search.analyzers import analyzer_for

MAX_TERMS = 20
_SPACE = re.compile(r"\s+")


def generate_query(lang: str, key_terms: list[str]) -> str:
    """'"term one" OR "term two" ...'; terms that analyse to nothing (stop words, punctuation)
    and repeats (after analysis) are left out; '' when no term is usable."""
    analyzer = analyzer_for(lang)
    parts, seen = [], set()
    for raw in key_terms:
        # Inside quotes only the quote character is special to the query language.
        term = _SPACE.sub(" ", (raw or "").replace('"', " ")).strip()
        if not term:
            continue
        analysed = tuple(t.text for t in analyzer(term, mode="query"))
        if not analysed or analysed in seen:
            continue
        seen.add(analysed)
        parts.append(f'"{term}"')
        if len(parts) == MAX_TERMS:
            break
    return " OR ".join(parts)
