"""Two organisers deciding one disputed item at the same moment, on each backend: one decision is
kept and the other organiser is told the item was decided meanwhile (nothing of theirs saved), never
"decided" twice with one of them silently lost."""
from __future__ import annotations

import re
import threading

import pytest
from sqlalchemy import select

from web_helpers import browser_for, web_app_on

from sepia.formats import model
from sepia.scoring.adjudication import ADJUDICATED
from sepia.store import judging
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.runs import import_run
from sepia.store.exchange.topics import import_topics
from sepia.store.models import Assignment, Nugget, NuggetJudgment, Pool
from sepia.store.pools import assign_pool, build_pool

TOPIC = "X-CS-1"
MEANWHILE = "was decided by another organiser since you opened this page"


def one_disputed_item(store):
    """A pool whose one item as1 and as2 judged differently."""
    with store.transaction() as session:
        import_topics(session, model.TopicSet([model.Topic(TOPIC, [model.LangText("CS", "什么是禽流感?")],
                                                               answer_type="DEFINITION")], "CS"))
        import_gold(session, model.GoldStandard("CS", [model.GoldTopic(TOPIC, "DEFINITION", nuggets=[
            model.GoldNugget("N001", "禽类"), model.GoldNugget("N002", "病毒")])]))
        import_run(session, model.CCLQARun(model.Metadata("A-CS-CS-01-T"), [
            model.CCLQATopic(TOPIC, [model.Answer(1, "禽类传染病")])]))
        build_pool(session, "main", "cclqa", depth=5)
        assign_pool(session, "main", ["as1", "as2"], overlap=1.0)
        nuggets = session.scalars(select(Nugget.id).order_by(Nugget.position)).all()
        for assignment in session.scalars(select(Assignment)):
            judging.save_nugget_judgment(session, assignment, nuggets, {nuggets[0]} if assignment.assessor == "as1" else set())


@pytest.fixture
def disputed(store_url):
    """The web tool on a store with one disputed item: the app, the pool's ID, the nuggets' IDs."""
    app = web_app_on(store_url, one_disputed_item)
    with app.extensions["sepia_store"].transaction() as session:
        ids = session.scalar(select(Pool.id)), session.scalars(select(Nugget.id).order_by(Nugget.position)).all()
    yield app, *ids
    app.extensions["sepia_store"].dispose()


def test_the_second_organiser_is_told_the_item_was_decided(disputed):
    app, pool_id, nuggets = disputed
    organisers = [browser_for(app, "org"), browser_for(app, "org")]
    pages = [o.get(f"/pools/{pool_id}/disputes").get_data(as_text=True) for o in organisers]
    action, seen = re.search(r'action="(/pools/\d+/disputes/\d+)">\s*<input[^>]*>\s*<input type="hidden" name="seen" '
                             r'value="([^"]*)">', pages[0]).groups()
    assert seen == ""  # undecided when both opened the page
    decisions = [[str(nuggets[0])], [str(nuggets[1])]]

    def form(decision, seen):  # N001 is a one-against-one tie, which the organiser must choose
        return {"nugget": decision, f"tie-{nuggets[0]}": "1" if str(nuggets[0]) in decision else "0", "seen": seen}
    start = threading.Barrier(2)
    told = [""] * 2

    def decide(i):
        start.wait()
        organisers[i].post(action, form(decisions[i], seen))
        told[i] = organisers[i].get(f"/pools/{pool_id}/disputes").get_data(as_text=True)

    threads = [threading.Thread(target=decide, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    kept = [MEANWHILE not in page and "decided: that judgment is now the official one" in page for page in told]
    assert sorted(kept) == [False, True] and all(MEANWHILE in page for page, k in zip(told, kept) if not k)
    winner = kept.index(True)
    with app.extensions["sepia_store"].transaction() as session:
        official = dict(session.execute(select(NuggetJudgment.nugget_id, NuggetJudgment.match)
                                        .where(NuggetJudgment.assessor == ADJUDICATED)).all())
    assert official == {n: float(str(n) in decisions[winner]) for n in nuggets}
    # Now decided: a form drawn after the decision changes it, one drawn before is refused.
    page = organisers[1 - winner].get(f"/pools/{pool_id}/disputes").get_data(as_text=True)
    now = re.search(r'name="seen" value="([^"]*)"', page).group(1)
    assert now != "" and organisers[1 - winner].post(action, form([], now)).status_code == 302
    assert "decided: that judgment is now the official one" in organisers[1 - winner].get(
        f"/pools/{pool_id}/disputes").get_data(as_text=True)
    organisers[winner].post(action, form(decisions[winner], now))
    assert MEANWHILE in organisers[winner].get(f"/pools/{pool_id}/disputes").get_data(as_text=True)
