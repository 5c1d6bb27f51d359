"""The model's answer read tolerantly: JSON in a code fence or with prose around it, an object with a
list of labels or a bare list, labels spelled as people spell them. A count that is not the number of
nuggets asked about, or a label that means nothing, leaves the batch undecided (None)."""
from __future__ import annotations

import json
import re

SUPPORT, PARTIAL, NOT = "support", "partial_support", "not_support"
VALUES = {SUPPORT: 1.0, PARTIAL: 0.5, NOT: 0.0}
_SPELLINGS = {
    SUPPORT: ("support", "supported", "supports", "full", "full_support", "fully_supported", "yes", "s"),
    PARTIAL: ("partial_support", "partial", "partially_supported", "partially", "partly", "p"),
    NOT: ("not_support", "not_supported", "no_support", "unsupported", "not", "no", "none", "n"),
}
_LABEL = {spelling: label for label, spellings in _SPELLINGS.items() for spelling in spellings}
_FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def label(value) -> str | None:
    if isinstance(value, dict):  # {"label": ...} or {"assignment": ...}
        value = next((value[k] for k in ("label", "assignment", "support", "decision") if k in value), None)
    if not isinstance(value, str):
        return None
    return _LABEL.get(re.sub(r"[\s\-]+", "_", value.strip().lower()).strip("_."))


def parse(text: str, count: int) -> list[str] | None:
    """`count` labels (support, partial_support, not_support) from the model's answer, or None."""
    for candidate in json_values(text):
        if isinstance(candidate, dict):
            candidate = next((v for k in ("labels", "assignments", "nuggets", "answer") if isinstance(v := candidate.get(k), list)),
                             None)
        if isinstance(candidate, list):
            labels = [label(v) for v in candidate]
            return labels if len(labels) == count and None not in labels else None  # type: ignore[return-value]
    return None


def json_values(text: str):
    """The JSON values the answer holds: the whole text, each fenced block, then the first value
    starting at each { or [."""
    decoder = json.JSONDecoder()
    for chunk in [text, *_FENCE_RE.findall(text)]:
        try:
            yield json.loads(chunk)
            return
        except ValueError:
            pass
    for match in re.finditer(r"[\[{]", text):
        try:
            yield decoder.raw_decode(text, match.start())[0]
            return
        except ValueError:
            continue
