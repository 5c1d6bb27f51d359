"""A pool's agreement keeps partial support apart and beside it gives the yes/no collapse, saying which
is which (issue 21, item 7); checked against statsmodels' Fleiss' kappa. On SQLite and PostgreSQL."""
from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import select
from statsmodels.stats.inter_rater import fleiss_kappa

from test_control_items import DRY, two_topics_and_runs

from sepia.store import pool_agreement
from sepia.store.models import Assignment, Nugget, NuggetJudgment, PoolEntry, Topic, utcnow
from sepia.store.pools import assign_pool, build_pool
from tests.helpers import accounts


def test_pool_agreement_with_partial_support(store):
    two_topics_and_runs(store)
    marks = {"甲乙": ((1, 0.5), (0.5, 0.5)), "乙": ((0, 1), (0, 1)), "甲": ((1, 1), (0.5, 0))}
    with store.transaction() as session:
        session.scalars(select(Topic).where(Topic.id != DRY)).one().retired = True
        pool = build_pool(session, "p", "cclqa", 10)
        accounts(session, "as1", "as2")
        assign_pool(session, "p", ["as1", "as2"], overlap=1.0)
        nuggets = session.scalars(select(Nugget.id).where(Nugget.topic_id == DRY).order_by(Nugget.position)).all()
        for a in session.scalars(select(Assignment).join(PoolEntry)):
            a.judged_at = utcnow()
            first, second = marks[a.entry.members[0].text]
            mine = first if a.assessor == "as1" else second
            for response in a.entry.members:
                session.add_all(NuggetJudgment(response_id=response.id, nugget_id=n, assessor=a.assessor, match=m)
                                for n, m in zip(nuggets, mine))
        session.flush()
        [row] = pool_agreement.agreement(session, pool)
    units = [(1, 0.5), (0.5, 0.5), (0, 0), (1, 1), (1, 0.5), (1, 0)]  # item x nugget: (as1, as2)
    three = np.array([[sum(v == c for v in u) for c in (0, 0.5, 1)] for u in units])
    two = np.array([[sum(v == 0 for v in u), sum(v > 0 for v in u)] for u in units])
    assert row.units == 6
    assert row.kappa == pytest.approx(fleiss_kappa(three))
    assert row.kappa_yes_no == pytest.approx(fleiss_kappa(two))
    assert row.kappa_yes_no > row.kappa  # (1, 0.5) agrees only when a partial support counts as a yes
