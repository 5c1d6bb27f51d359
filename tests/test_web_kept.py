"""The results overview's scored part is kept in each server process (sepia.web.kept) and made again
as soon as the scores or runs it shows change: scoring again, a replaced run, another store."""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import delete, event, select

from test_web_results import CORPUS, OWN, sample_campaign
from web_helpers import browser_for, web_app

from sepia.formats.read import read_file
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.runs import import_run
from sepia.store.exchange.topics import import_topics
from sepia.store.models import EvaluationResult, NuggetJudgment, Response, Run, RunTopic
from sepia.web.app import create_app
from sepia.web.kept import SHELF, kept
from sepia.campaign.results_store import SCORES_STATE


def statements(app, browser, path: str) -> tuple[str, list[str]]:
    """The page and the SQL statements it sent."""
    seen: list[str] = []
    engine = app.extensions["sepia_store"].engine
    listener = lambda _c, _cur, statement, *args: seen.append(statement)  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        page = browser.get(path).get_data(as_text=True)
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    return re.sub(r'content="[^"]+"|name="csrf_token" value="[^"]+"', "", page), seen


def afresh(app) -> str:
    """The overview as a new process on the same store shows it (nothing kept)."""
    other = create_app({key: app.config[key] for key in ("DATABASE_URL", "SECRET_KEY", "SEARCH_ENGINE", "TESTING",
                                                        "SESSION_COOKIE_SECURE")})
    try:
        return statements(other, browser_for(other, "org"), "/results/")[0]
    finally:
        other.extensions["sepia_store"].dispose()


def rescore_last_run(store, value: float) -> tuple[list[int], list[int]]:
    """Score the most recently scored run again, as replace_cclqa_scores does (its rows deleted,
    as many inserted), every value now `value`; the IDs before and after."""
    with store.transaction() as session:
        newest = session.scalar(select(EvaluationResult).order_by(EvaluationResult.id.desc()).limit(1))
        rows = session.scalars(select(EvaluationResult).where(
            EvaluationResult.run_id == newest.run_id, EvaluationResult.settings_id == newest.settings_id)
            .order_by(EvaluationResult.id)).all()
        before = [r.id for r in rows]
        copies = [EvaluationResult(run_id=r.run_id, measure=r.measure, matcher=r.matcher, settings=r.settings,
                                   settings_id=r.settings_id,
                                   topic_id=r.topic_id, answer_type=r.answer_type, value=value) for r in rows]
        for row in rows:
            session.delete(row)
        session.flush()
        session.add_all(copies)
        session.flush()
        return before, [c.id for c in copies]


def test_the_scored_part_is_kept_until_scores_or_runs_change(app, web_store):
    sample_campaign(app, web_store)
    org = browser_for(app, "org")
    org.post("/results/score", follow_redirects=True)  # its page made the part
    first, _ = statements(app, org, "/results/")
    assert "CS-CS: human F3 (3 runs)" in first and first == afresh(app)

    # Scored again: on SQLite the new rows take the deleted rows' IDs, their count is the same
    before, after = rescore_last_run(web_store, 0.98765)
    assert before == after
    rescored, made = statements(app, org, "/results/")
    again, reused = statements(app, org, "/results/")
    assert "0.9877" not in first and "0.9877" in rescored and again == rescored == afresh(app)
    assert any("evaluation_result.value" in s for s in made)
    assert not any("evaluation_result.value" in s for s in reused) and len(reused) < len(made)

    # A run replaced (the newest, whose ID the new row takes on SQLite) loses its scores
    with web_store.transaction() as session:
        newest = session.scalar(select(Run).order_by(Run.id.desc()).limit(1))
        run_id, pk = newest.run_id, newest.id
    assert run_id == OWN
    with web_store.transaction() as session:  # its judgments first: a run with judgments is not replaced
        responses = select(Response.id).join(RunTopic).where(RunTopic.run_id == pk)
        session.execute(delete(NuggetJudgment).where(NuggetJudgment.response_id.in_(responses)))
        import_run(session, read_file(CORPUS / "runs" / f"{OWN}.xml"), replace=True)
    with web_store.transaction() as session:
        assert session.scalar(select(Run.id).where(Run.run_id == OWN)) == pk
    replaced, _ = statements(app, org, "/results/")
    assert f"<td class=\"docid\">{OWN}</td>" in rescored and f"<td class=\"docid\">{OWN}</td>" not in replaced
    assert replaced == afresh(app)

    # Scored again from the page (the replaced run has no judgments)
    org.post("/results/score", follow_redirects=True)
    scored = statements(app, org, "/results/")[0]
    assert f"<td class=\"docid\">{OWN}</td>" in scored and scored != replaced and scored == afresh(app)


def test_each_app_keeps_its_own(app, web_store, tmp_path):
    """Two stores in one process (tests; or two apps) never share a kept part, even at equal keys."""
    sample_campaign(app, web_store)
    org = browser_for(app, "org")
    org.post("/results/score", follow_redirects=True)
    scored = statements(app, org, "/results/")[0]
    (tmp_path / "other").mkdir()
    other = web_app(tmp_path / "other")
    try:
        empty = statements(other, browser_for(other, "org"), "/results/")[0]
    finally:
        other.extensions["sepia_store"].dispose()
    assert "No scores are stored yet" in empty and "No scores are stored yet" not in scored


def test_a_part_made_while_its_rows_changed_is_used_but_not_kept(app):
    keys, made = iter([1, 2, 2, 2, 2]), []

    def make():
        made.append(1)
        return len(made)

    with app.app_context():
        assert kept("part", lambda: next(keys), make) == 1  # key 1 before, 2 after: not kept
        assert kept("part", lambda: next(keys), make) == 2  # made under 2, kept
        assert kept("part", lambda: next(keys), make) == 2
    assert len(made) == 2


def test_threads_share_a_part_and_never_change_what_they_share(app):
    """A part made by one thread serves the others; a new part replaces the mapping of kept parts
    whole, so a thread holding the old one still reads it as it was."""
    keys, made = {"part": 1, "other": 1}, []

    def ask(name):
        with app.app_context():
            return kept(name, lambda: (keys[name],), lambda: made.append(name) or len(made))

    assert ask("part") == 1
    with app.app_context():
        before = app.extensions[SHELF]
    with ThreadPoolExecutor(2) as others:
        assert [f.result() for f in [others.submit(ask, "part") for _ in range(4)]] == [1] * 4
        assert others.submit(ask, "other").result() == 2
        keys["part"] = 2
        assert others.submit(ask, "part").result() == 3
    assert ask("part") == 3 and ask("other") == 2 and len(made) == 3
    assert dict(before) == {"part": ((1,), 1)} and app.extensions[SHELF] is not before
    with pytest.raises(TypeError):
        app.extensions[SHELF]["part"] = None


def test_the_key_changes_with_every_write_to_scores_and_runs(store):  # every backend
    """Rescoring with as many rows, replacing a run, deleting scores: each gives another key."""
    with store.transaction() as session:
        import_topics(session, read_file(CORPUS / "topics.xml"))
        import_gold(session, read_file(CORPUS / "gold.xml"))
        for path in sorted((CORPUS / "runs").glob("TEAM*.xml")):
            import_run(session, read_file(path))
    from sepia.services.scores import score_stored_runs

    keys = []

    def key():
        with store.transaction() as session:
            keys.append(tuple(session.execute(SCORES_STATE).one()))

    key()
    score_stored_runs(store, {"matcher": "binarized"}, save=True)
    key()
    rescore_last_run(store, 0.5)
    key()
    with store.transaction() as session:
        import_run(session, read_file(CORPUS / "runs" / f"{OWN}.xml"), replace=True)
    key()
    with store.transaction() as session:
        session.execute(EvaluationResult.__table__.delete().where(EvaluationResult.id == select(
            EvaluationResult.id).order_by(EvaluationResult.id).limit(1).scalar_subquery()))
    key()
    assert len(set(keys)) == len(keys)
