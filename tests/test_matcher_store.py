"""A matcher that learns from the other runs' judgments (its descriptor says learns_from_other_runs),
scored from the store: it is handed every stored judgment at once, not each run's own with the run as
the human matcher is, on SQLite and PostgreSQL. The toy learner leaves out the run it scores; the
expected counts are worked from the judgment files."""
from __future__ import annotations

import pytest

import sepia.matchers as registry
from sepia.formats.judgments import read_judgments
from sepia.matchers.base import MatcherKind
from sepia.resources import resource_dir
from sepia.services.scores import score_stored_runs
from sepia.matchers.decisions import judged_matches

CORPORA = resource_dir("corpora")


class OtherRuns:
    """A toy learner: a nugget matches when some other run's answer to the topic was judged to hold it."""
    name = "otherruns"

    def __init__(self, judgments):
        self.seen = len(judgments)
        self.yes = {(run, topic, nugget) for (run, topic, _, nugget), v in judged_matches(judgments).items() if v == 1}

    def scores(self, run_id, topic_id, nuggets, answers):
        return [1.0 if any(r != run_id and (t, n) == (topic_id, x.nugget_id) for r, t, n in self.yes) else 0.0
                for x in nuggets]


made: list[OtherRuns] = []


def _make(options):
    made.append(OtherRuns(options.judgments))
    return made[-1]


KIND = MatcherKind("otherruns", "other runs", True, _make, options=("judgments",), needs_judgments=True,
                   learns_from_other_runs=True, summary="what the assessors found in other runs' answers")


@pytest.fixture
def learner(monkeypatch):
    builtin = registry.builtin_kinds()
    monkeypatch.setattr(registry, "builtin_kinds", lambda: {**builtin, "otherruns": KIND})
    made.clear()


def test_a_learner_gets_every_stored_judgment_and_never_its_own_run(campaign_store, learner):  # noqa: F811
    files = [j for lang in ("cs", "ct", "ja") for j in read_judgments(CORPORA / lang / "judgments.tsv")]
    scores = score_stored_runs(campaign_store, {"matcher": "otherruns"}, save=False)
    assert len(made) == 1 and made[0].seen == len(files)
    yes = {(r, t, n) for (r, t, _, n), v in judged_matches(files).items() if v == 1}
    for score in scores:
        for topic in score.topics:
            # by hand: the nuggets some other run was judged to hold (none where this run did not answer)
            expected = {n for r, t, n in yes if t == topic.topic_id and r != score.run_id} if topic.length else set()
            assert topic.matched == len(expected), (score.run_id, topic.topic_id)
