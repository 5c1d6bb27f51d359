"""Which characters of a stored text a query matched, as (start, end) offsets into that text,
and their HTML renderings (a snippet, the whole document).

The text is re-analysed with the field's own analyzer, so a mark always covers whole tokens as
the index saw them; phrase words are marked only where they occur as the phrase.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from html import escape
from typing import Iterable

from whoosh import query as wq

SNIPPET_CHARS = 200
_ESCAPED = re.compile("[&<>\"']")  # what html.escape replaces
TEXT_FIELDS = ("title", "body")


@dataclass
class QueryTerms:
    """The positive terms and phrases of a parsed query (negated parts never highlight)."""
    terms: set[str] = field(default_factory=set)
    phrases: set[tuple[str, ...]] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.terms or self.phrases)


def query_terms(q: wq.Query, reader=None, fields=TEXT_FIELDS) -> QueryTerms:
    """Collect the terms of `q` on the text fields; prefix, wildcard and fuzzy terms are expanded
    against `reader` when one is given."""
    found = QueryTerms()

    def text_of(fieldname, value):
        if isinstance(value, bytes):
            return reader.schema[fieldname].from_bytes(value)
        return value

    def walk(node):
        if isinstance(node, wq.Not):
            return
        if isinstance(node, wq.AndNot):
            walk(node.a)
            return
        if isinstance(node, wq.Phrase):
            if node.fieldname in fields and node.words:
                found.phrases.add(tuple(node.words))
            return
        if isinstance(node, wq.Term):
            if node.fieldname in fields:
                found.terms.add(node.text)
            return
        if isinstance(node, wq.MultiTerm) and reader is not None:
            if node.field() in fields:
                for fieldname, value in node.expanded_terms(reader):
                    found.terms.add(text_of(fieldname, value))
            return
        for child in node.children():
            walk(child)

    walk(q)
    return found


def match_spans(analyzer, text: str, wanted: QueryTerms) -> list[tuple[int, int]]:
    """Sorted, merged (start, end) character spans of `text` matching `wanted`."""
    if not text or not wanted:
        return []
    return token_spans(((t.text, t.pos, t.startchar, t.endchar)
                        for t in analyzer(text, positions=True, chars=True, mode="index")), wanted)


def token_spans(tokens: Iterable[tuple[str, int, int, int]], wanted: QueryTerms) -> list[tuple[int, int]]:
    """Sorted, merged spans of the (term, position, start, end) tokens of a text that match
    `wanted`: from analysing the text, or from an index that keeps character offsets."""
    spans = []
    by_pos: dict[int, list[tuple[str, int, int]]] = defaultdict(list)
    for term, pos, start, end in tokens:
        if term in wanted.terms:
            spans.append((start, end))
        if wanted.phrases:
            by_pos[pos].append((term, start, end))
    for phrase in wanted.phrases:
        spans.extend(phrase_spans(by_pos, phrase))
    return merge_spans(spans)


def phrase_spans(by_pos, phrase):
    """Where `phrase` occurs among the tokens `by_pos` holds (position -> [(term, start, end)])."""
    for pos in sorted(by_pos):
        for term, start, end in by_pos[pos]:
            if term != phrase[0]:
                continue
            last_end = end
            for k, word in enumerate(phrase[1:], 1):
                nxt = [e for t, _s, e in by_pos.get(pos + k, ()) if t == word]
                if not nxt:
                    break
                last_end = max(nxt)
            else:
                yield start, max(last_end, end)


def snippet_spans(analyzer, text: str, wanted: QueryTerms, width: int = SNIPPET_CHARS,
                  context: int = 12, fold=str.lower) -> tuple[list[tuple[int, int]], int, int]:
    """(spans, start, end) for a snippet without analysing the whole text: the query's words are
    looked up as plain strings in `fold(text)` (case-folded; a fold must keep the length), the
    densest window of them is chosen, and only a few characters around each candidate are
    analysed, which confirms it and gives its exact offsets; failing that, around every candidate
    (at most MAX_REGIONS places). The whole text is analysed when no candidate is confirmed and
    some word of the query was not found as a plain string (normalised forms such as 付属 for 附属,
    食べる for 食べた). When every word was found but none confirmed (a phrase whose words occur,
    but not together: the document matched in its title), the snippet is the text's beginning,
    unmarked."""
    if len(text) > width + 2 * context:
        rough, missing = _candidates(fold(text), wanted)
        if rough:
            lo, hi = best_window(text, rough, width)
            spans = (_confirmed(analyzer, text, wanted, [r for r in rough if lo <= r[0] and r[1] <= hi], context)
                     or _confirmed(analyzer, text, wanted, rough, context))
            if spans:
                start, end = best_window(text, spans, width)
                return spans, start, end
            if not missing:
                return [], 0, width
    spans = match_spans(analyzer, text, wanted)
    start, end = best_window(text, spans, width)
    return spans, start, end


MAX_REGIONS = 40


def _confirmed(analyzer, text: str, wanted: QueryTerms, rough: list[tuple[int, int]],
               context: int) -> list[tuple[int, int]]:
    """The spans matching `wanted` that overlap the rough candidates, found by analysing only a
    few characters around them."""
    reach = max((sum(map(len, p)) for p in wanted.phrases), default=0)
    regions = merge_spans((max(0, s - context), min(len(text), e + context + reach)) for s, e in rough)
    spans = [(s + a, e + a) for a, b in regions[:MAX_REGIONS] for s, e in match_spans(analyzer, text[a:b], wanted)
             if any(s + a < re and e + a > rs for rs, re in rough)]
    return merge_spans(spans)


def _candidates(folded: str, wanted: QueryTerms, limit: int = 200) -> tuple[list[tuple[int, int]], bool]:
    """Where the query's terms occur as plain strings, and each phrase: its words written
    together (CJK) or with spaces, else its first word; and whether some term or phrase was
    found nowhere (the text may write it otherwise)."""
    words, missing = set(), False
    for term in wanted.terms:
        words.add(term)
        missing = missing or term not in folded
    for phrase in wanted.phrases:
        written = [w for w in ("".join(phrase), " ".join(phrase)) if w in folded]
        words.update(written or phrase[:1])
        missing = missing or phrase[0] not in folded
    found: list[tuple[int, int]] = []
    for word in words:
        at = folded.find(word)
        while at >= 0 and len(found) < limit:
            found.append((at, at + len(word)))
            at = folded.find(word, at + 1)
    return sorted(found), missing


def merge_spans(spans) -> list[tuple[int, int]]:
    """Overlapping or touching spans become one (adjacent CJK words read as one mark)."""
    ordered = sorted(spans)
    if not ordered:
        return []
    merged: list[tuple[int, int]] = []
    first, last = ordered[0]  # the span being merged
    for start, end in ordered[1:]:
        if start > last:
            merged.append((first, last))
            first, last = start, end
        elif end > last:
            last = end
    merged.append((first, last))
    return merged


def mark_html(text: str, spans, start: int = 0, end: int | None = None) -> str:
    """HTML of text[start:end], escaped, each span in <mark data-start data-end> carrying its
    offsets into the whole text."""
    end = len(text) if end is None else end
    # most excerpts have nothing to escape: one search for it instead of escaping every piece
    esc = escape if _ESCAPED.search(text, start, end) else str
    out, cursor = [], start
    for s, e in spans:
        if e <= start or s >= end:
            continue
        s, e = max(s, start), min(e, end)
        out.append(esc(text[cursor:s]))
        out.append(f'<mark data-start="{s}" data-end="{e}">{esc(text[s:e])}</mark>')
        cursor = e
    out.append(esc(text[cursor:end]))
    return "".join(out)


def best_window(text: str, spans, width: int = SNIPPET_CHARS) -> tuple[int, int]:
    """The window of `width` characters holding the most marks (the earliest on a tie)."""
    if len(text) <= width:
        return 0, len(text)
    if not spans:
        return 0, width
    best, best_count = 0, -1
    starts, ends = zip(*spans)
    # spans sorted with their ends in order too (merged spans are): those in a window are a run
    ordered = list(starts) == sorted(starts) and list(ends) == sorted(ends)
    lead, last = width // 5, len(text) - width
    for s in starts:
        start = max(0, min(s - lead, last))
        if ordered:
            count = max(0, bisect_right(ends, start + width) - bisect_left(starts, start))
        else:
            count = sum(1 for a, b in spans if a >= start and b <= start + width)
        if count > best_count:
            best, best_count = start, count
    return best, best + width


def snippet_html(text: str, spans, width: int = SNIPPET_CHARS, start: int | None = None,
                 end: int | None = None) -> str:
    """A one-line excerpt around the densest marks, with ellipses where text was cut (or the
    excerpt text[start:end] when given)."""
    if start is None or end is None:
        start, end = best_window(text, spans, width)
    for s, e in spans:  # never cut a mark in two
        if s < start < e:
            start = s
        if s < end < e:
            end = e
    body = mark_html(text, spans, start, end).replace("\r", " ").replace("\n", " ")
    return ("…" if start > 0 else "") + body + ("…" if end < len(text) else "")
