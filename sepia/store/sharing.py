"""Sharing judging work out to assessors, topic by topic: the rule pool items (`sepia.store.pools.
assign_pool`) and rubric answers (`sepia.store.rubric.assign_answers`) are assigned by. Only
`check_sharing` reads the store; the rest is pure: items are IDs, grouped by topic, with the
assessors who hold each already (assigned it or judged it)."""
from __future__ import annotations

import random
from collections import Counter

from sqlalchemy import select
from sqlalchemy.orm import Session

from sepia.store.models import User


def check_sharing(session: Session, assessors: list[str], overlap: float) -> None:
    """ValueError (one line) for no assessor, an overlap that is not a share, overlap with one
    assessor, a name given twice, or a name that is not an active assessor's account (a typo, an
    organiser, a deactivated account): work shared to it would sit in nobody's queue."""
    if not assessors:
        raise ValueError("name at least one assessor")
    if not 0 <= overlap <= 1:
        raise ValueError("overlap is a share between 0 and 1")
    twice = [name for name, n in Counter(assessors).items() if n > 1]
    if twice:
        raise ValueError(f"assessors named more than once: {', '.join(twice)}")
    if overlap and len(assessors) < 2:
        raise ValueError("overlap needs at least two assessors")
    active = set(session.scalars(select(User.username).where(User.username.in_(assessors),
                                                             User.role == "assessor", User.active)))
    if unknown := [name for name in assessors if name not in active]:
        raise ValueError(f"not active assessors: {', '.join(unknown)}")


def share_out(by_topic: dict[str, list[int]], holders: dict[int, set[str]], assessors: list[str], overlap: float,
              rng: random.Random) -> list[tuple[int, str]]:
    """(item, assessor) to add: each topic's items nobody holds to the topic's assessor, and a share
    OVERLAP of every topic's items to a second assessor as well, for agreement. What is there counts:
    an item is never handed to an assessor who holds it; a topic shared out already stays with its
    assessors; an item held by one assessor needs nobody else, and only the overlap a topic still
    lacks (items held by two or more count towards it) is added."""
    wanted: list[tuple[int, str]] = []
    for (_topic_id, items), (first, second) in zip(sorted(by_topic.items()),
                                                   _topic_assessors(assessors, by_topic, holders)):
        wanted += [(item, first) for item in items if not holders[item]]
        held = [holders[item] or {first} for item in items]
        single = [i for i, h in enumerate(held) if len(h) == 1]
        lacking = round(overlap * len(items)) - sum(len(h) > 1 for h in held)
        for i in sorted(single[k] for k in rng.sample(range(len(single)), max(0, min(lacking, len(single))))):
            wanted.append((items[i], second if second not in held[i] else first))
    return wanted


def queue_order(mine: list[int], topic_of: dict[int, str], order: random.Random) -> list[int]:
    """One assessor's new items in a random order fixed by ORDER, the items of a topic together (so
    an assessor keeps a topic in mind)."""
    by_topic: dict[str, list[int]] = {}
    for item in mine:                       # one pass: a topic's items in the order given
        by_topic.setdefault(topic_of[item], []).append(item)
    topics = sorted(by_topic)
    order.shuffle(topics)
    queue = []
    for topic_id in topics:
        items = by_topic[topic_id]
        order.shuffle(items)
        queue += items
    return queue


def _topic_assessors(assessors: list[str], by_topic: dict[str, list[int]],
                     holders: dict[int, set[str]]) -> list[tuple[str, str]]:
    """(first, second) assessor of each topic, in topic ID order. A topic shared out already keeps the
    named assessors who hold most of its items; a topic nobody holds goes to the one with the fewest
    topics so far (in turn where they tie, as on a first assignment), its overlap to the next one."""
    topics = sorted(by_topic)
    held = {t: {a: sum(a in holders[item] for item in by_topic[t]) for a in assessors} for t in topics}
    chosen: dict[str, list[str]] = {}
    load = dict.fromkeys(assessors, 0)
    for t in topics:
        if any(held[t].values()):
            chosen[t] = sorted(assessors, key=lambda a: -held[t][a])  # stable: ties in the assessors' order
            load[chosen[t][0]] += 1
    for turn, t in enumerate(topics):
        if t not in chosen:
            by_turn = [assessors[(turn + k) % len(assessors)] for k in range(len(assessors))]
            first = min(by_turn, key=lambda a: load[a])
            load[first] += 1
            chosen[t] = [first, assessors[(assessors.index(first) + 1) % len(assessors)]]
    return [(chosen[t][0], chosen[t][1 % len(chosen[t])]) for t in topics]
