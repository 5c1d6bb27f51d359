"""Automatic nugget assignments given as files, scored like a matcher (`--auto-judgments`).

An LLM nugget assigner, an embedding matcher or any other automatic assessor may deliver its
decisions instead of running inside SEPIA: as the judgments TSV (the assessor column names the
matcher; 1, 0 or 0.5) or as nuggetizer JSONL from an AutoNuggetizer run (the format of
`sepia convert nuggetizer`; the matcher is named after the file). The assignments then score runs
exactly as the human judgments do (a nugget's best value over the answers, `--partial` for 0.5), and
`sepia metaeval` sets them against the human judgments as it does BINARIZED.

`NAME=FILE` names the matcher. A nuggetizer file's qids and run IDs become SEPIA IDs as the converter
makes them; its nuggets are matched to the gold standard's by their text within each topic, so the
nugget lists may come in another order; a nugget whose text the gold lacks keeps its position ID
(N01, ...) and is reported by the unknown-nugget warning.
"""
from __future__ import annotations

from pathlib import Path

from sepia.formats.model import GoldStandard, Judgment
from sepia.matchers import builtin_kinds
from sepia.matchers.decisions import PARTIAL
from sepia.matchers.human import HumanMatcher

JSONL_SUFFIXES = (".jsonl", ".jl", ".json")


def split_spec(spec: str) -> tuple[str | None, Path]:
    """`NAME=FILE` or `FILE`."""
    if "=" in spec and not Path(spec).exists():
        name, path = spec.split("=", 1)
        return name.strip() or None, Path(path)
    return None, Path(spec)


def read_auto_judgments(spec: str, gold: GoldStandard | None = None) -> dict[str, list[Judgment]]:
    """The judgments of each automatic matcher a file holds, by the matcher's name. Raises
    FormatError (every problem of the file) or ValueError (a name taken by a built-in matcher)."""
    name, path = split_spec(spec)
    if path.suffix.lower() in JSONL_SUFFIXES:
        found = {name or path.stem: _from_nuggetizer(path, gold)}
    else:
        from sepia.formats.judgments import read_judgments

        found = {}
        for j in read_judgments(path):
            found.setdefault(j.assessor, []).append(j)
        if name:
            if len(found) > 1:
                raise ValueError(f"{path} holds the judgments of {len(found)} assessors "
                                 f"({', '.join(found)}); NAME=FILE names one")
            found = {name: next(iter(found.values()), [])}
    taken = [n for n in found if n in builtin_kinds()]
    if taken:
        raise ValueError(f"{path}: {', '.join(taken)} is the name of a built-in matcher; name the file's "
                         "matcher with NAME=FILE")
    return found


def _from_nuggetizer(path: Path, gold: GoldStandard | None) -> list[Judgment]:
    from sepia.convert.nuggetizer import convert_nuggetizer

    conversion = convert_nuggetizer(path, partial=PARTIAL)
    if gold is None:
        return conversion.judgments
    by_text = {t.topic_id: {" ".join(n.text.split()): n.nugget_id for n in t.nuggets} for t in gold.topics}
    own = {(t.topic_id, n.nugget_id): " ".join(n.text.split()) for t in conversion.gold.topics for n in t.nuggets}
    relabelled = []
    for j in conversion.judgments:
        nugget_id = by_text.get(j.topic_id, {}).get(own[(j.topic_id, j.nugget_id)], j.nugget_id)
        relabelled.append(Judgment(j.topic_id, j.run_id, j.answer_rank, nugget_id, j.match, j.assessor))
    return relabelled


def auto_matchers(specs, gold: GoldStandard | None = None, partial: float = PARTIAL) -> dict[str, HumanMatcher]:
    """One matcher per automatic assessor in the files given."""
    matchers: dict[str, HumanMatcher] = {}
    for spec in specs:
        for name, judgments in read_auto_judgments(spec, gold).items():
            if name in matchers:
                raise ValueError(f"two files name the automatic matcher {name!r}; name them with NAME=FILE")
            matchers[name] = HumanMatcher(judgments, name=name, partial=partial)
    return matchers
