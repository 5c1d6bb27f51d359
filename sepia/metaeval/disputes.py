"""Assessor agreement on a campaign: nugget votes (vital or not) and nugget judgments (match or
not), per language as in ACLIA's agreement table, and where the assessors split.

An *item* is what several assessors decide on: a nugget for votes, a (topic, run, answer rank,
nugget) tuple for judgments. Only items with two or more decisions can agree or disagree.
- Lone dissent: on an item with at least three decisions, one assessor says one thing and all the
  others the opposite. An assessor's dissent share = lone dissents / such items they decided on.
- Split items: items without a unanimous decision, most disputed (closest to an even split) first.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence

import numpy as np

from sepia import vocab
from sepia.formats.model import GoldStandard, Judgment
from sepia.metaeval.agreement import fleiss_kappa, krippendorff_alpha_counts


@dataclass
class Item:
    kind: str                  # "vote" or "judgment"
    key: tuple
    label: str
    # (assessor, decision): a vote True (vital) or False, a judgment 1, 0.5 or 0; assessor None = unnamed
    decisions: list[tuple[str | None, float]] = field(default_factory=list)

    @property
    def yes(self) -> int:
        return sum(1 for _, d in self.decisions if d)

    @property
    def count(self) -> int:
        return len(self.decisions)


def _topic_lang(topic_id: str, default: str | None) -> str:
    return vocab.topic_language(topic_id) or default or "?"


def vote_items(gold: GoldStandard) -> list[tuple[str, Item]]:
    """(language, item) for every nugget; votes recorded only as counts become unnamed decisions."""
    items = []
    for topic in gold.topics:
        lang = _topic_lang(topic.topic_id, gold.lang)
        for nugget in topic.nuggets:
            item = Item("vote", (topic.topic_id, nugget.nugget_id), f"{topic.topic_id} {nugget.nugget_id}: {nugget.text}")
            if nugget.votes:
                item.decisions = [(assessor, bool(vital)) for assessor, vital in nugget.votes]
            elif nugget.voter_count:
                vital = nugget.vital_count or 0
                item.decisions = [(None, i < vital) for i in range(nugget.voter_count)]
            items.append((lang, item))
    return items


def judgment_items(judgments: Iterable[Judgment], default_lang: str | None = None) -> list[tuple[str, Item]]:
    grouped: dict[tuple, Item] = {}
    for j in judgments:
        key = (j.topic_id, j.run_id, j.answer_rank, j.nugget_id)
        item = grouped.get(key)
        if item is None:
            item = grouped[key] = Item("judgment", key, f"{j.topic_id} {j.run_id} #{j.answer_rank} {j.nugget_id}")
        item.decisions.append((j.assessor, j.match))
    return [(_topic_lang(key[0], default_lang), item) for key, item in grouped.items()]


@dataclass(frozen=True)
class AgreementRow:
    lang: str
    kind: str
    items: int            # items with two or more decisions
    decisions: int
    assessors: int
    observed: float       # share of agreeing pairs of decisions
    kappa: float          # yes / no: a partial support (0.5) counts as a yes
    alpha: float
    # Judgments only: three categories (support 1, partial 0.5, not 0), nominal; NaN for votes.
    kappa3: float = float("nan")
    alpha3: float = float("nan")

    def as_dict(self) -> dict:
        return dict(self.__dict__)


PARTIAL_CATEGORIES = (0.0, 0.5, 1.0)  # not, partial support, support


def agreement_row(lang: str, kind: str, items: Sequence[Item]) -> AgreementRow:
    usable = [i for i in items if i.count >= 2]
    counts = np.array([[i.count - i.yes, i.yes] for i in usable], float).reshape(-1, 2)
    names = {a for i in usable for a, _ in i.decisions if a is not None}
    pairs = counts.sum(1) * (counts.sum(1) - 1)
    observed = float(((counts * (counts - 1)).sum(1).sum() / pairs.sum())) if len(usable) else float("nan")
    row = AgreementRow(lang, kind, len(usable), int(counts.sum()), len(names), observed,
                       fleiss_kappa(counts), krippendorff_alpha_counts(counts, [0, 1], "nominal"))
    if kind != "judgment":
        return row
    three = np.array([[sum(float(d) == c for _, d in i.decisions) for c in PARTIAL_CATEGORIES] for i in usable],
                     float).reshape(-1, 3)
    return replace(row, kappa3=fleiss_kappa(three),
                   alpha3=krippendorff_alpha_counts(three, PARTIAL_CATEGORIES, "nominal"))


def agreement_table(labelled: Sequence[tuple[str, Item]]) -> list[AgreementRow]:
    """One row per language and kind, plus an ALL row per kind when there are several languages."""
    groups: dict[tuple[str, str], list[Item]] = defaultdict(list)
    for lang, item in labelled:
        groups[(item.kind, lang)].append(item)
    rows = []
    for kind in ("vote", "judgment"):
        langs = sorted(lang for k, lang in groups if k == kind)
        for lang in langs:
            rows.append(agreement_row(lang, kind, groups[(kind, lang)]))
        if len(langs) > 1:
            rows.append(agreement_row("ALL", kind, [i for lang in langs for i in groups[(kind, lang)]]))
    return rows


@dataclass(frozen=True)
class AssessorDisputes:
    kind: str
    assessor: str
    decided: int          # items with three or more decisions that this assessor decided on
    lone_dissents: int
    share: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def assessor_disputes(items: Sequence[Item]) -> list[AssessorDisputes]:
    """Per assessor and kind: how often they alone disagree with all the others; highest share first."""
    decided: dict[tuple[str, str], int] = defaultdict(int)
    alone: dict[tuple[str, str], int] = defaultdict(int)
    for item in items:
        if item.count < 3:
            continue
        yes = item.yes
        for assessor, decision in item.decisions:
            if assessor is None:
                continue
            decided[(item.kind, assessor)] += 1
            same_as_me = yes if decision else item.count - yes
            if same_as_me == 1:
                alone[(item.kind, assessor)] += 1
    rows = [AssessorDisputes(kind, a, n, alone[(kind, a)], alone[(kind, a)] / n) for (kind, a), n in decided.items()]
    return sorted(rows, key=lambda r: (r.kind, -r.share, -r.lone_dissents, r.assessor))


@dataclass(frozen=True)
class SplitItem:
    kind: str
    label: str
    yes: int
    decisions: int
    minority: float       # share of the smaller side, 0.5 = an even split
    dissenters: tuple[str, ...]

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def split_items(items: Sequence[Item], limit: int | None = None) -> list[SplitItem]:
    """Items without a unanimous decision, most disputed first."""
    rows = []
    for item in items:
        yes = item.yes
        if item.count < 2 or yes in (0, item.count):
            continue
        minority_yes = yes <= item.count - yes
        dissenters = tuple(sorted(a for a, d in item.decisions if a is not None and d == minority_yes))
        rows.append(SplitItem(item.kind, item.label, yes, item.count, min(yes, item.count - yes) / item.count, dissenters))
    rows.sort(key=lambda r: (-r.minority, -r.decisions, r.kind, r.label))
    return rows[:limit] if limit else rows
